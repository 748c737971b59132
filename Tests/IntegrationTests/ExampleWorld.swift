// The display maker's side of a test's world: openbox on the session's Xvfb, driven with xdotool
// and wmctrl as she would drive it (another window in front, minimise, restore, close), and the
// guide's own example files from docs/examples run as a display maker would run them. Every
// process is stopped by pid.

import DaysomeCore
import DaysomeTestSupport
import Glibc

/// The guide's examples, a window manager and the tools to move windows, for one `TestWorld`.
final class ExampleWorld {
    let session: TestWorld
    private var processes: [SpawnedProcess] = []
    let xdotool: String
    let wmctrl: String
    /// docs/examples, or DAYSOME_EXAMPLES_DIR to try older copies (each fixed problem's test
    /// was run once against the examples as the guide printed them before).
    let examples: String
    /// A `daysomectl` that finds this session's daemon (its paths added), for the launcher.
    private(set) var tools = ""

    init(_ session: TestWorld) throws {
        self.session = session
        self.xdotool = try findExecutable("xdotool", package: "xdotool")
        self.wmctrl = try findExecutable("wmctrl", package: "wmctrl")
        self.examples = getenv("DAYSOME_EXAMPLES_DIR").map { String(cString: $0) } ?? "\(packageRoot())/docs/examples"
    }

    deinit {
        self.stop()
    }

    func stop() {
        for process in self.processes.reversed() { process.stop() }
        self.processes = []
    }

    /// The session's X display, with GTK told to draw without GL and without an accessibility bus.
    var environment: [String: String] {
        var environment = self.session.serverEnvironment ?? self.session.environment
        environment["GDK_BACKEND"] = "x11"
        environment["GSK_RENDERER"] = "cairo"
        environment["NO_AT_BRIDGE"] = "1"
        return environment
    }

    /// Starts openbox and waits until it manages the screen (`wmctrl -m` answers).
    func startWindowManager() async throws {
        let openbox = try findExecutable("openbox", package: "openbox")
        let process = try SpawnedProcess(
            openbox, ["--sm-disable"], environment: self.environment,
            stderrPath: "\(self.session.directory.path)/openbox.log")
        self.processes.append(process)
        _ = try await poll("openbox to manage the screen", timeout: 15) { () -> Bool? in
            if process.poll() {
                throw HarnessError("openbox exited: \(readFile("\(self.session.directory.path)/openbox.log"))")
            }
            return try await self.x(self.wmctrl, ["-m"]).status == 0 ? true : nil
        }
    }

    /// Runs an X tool on the session's display.
    @discardableResult
    func x(_ tool: String, _ arguments: [String]) async throws -> ToolResult {
        try await self.session.run(tool, arguments, environment: self.environment)
    }

    /// Starts the GTK 4 example with `arguments` (the guide's `--display-state`, `--no-pid`).
    func startDayDisplay(_ arguments: [String]) throws -> SpawnedProcess {
        let process = try SpawnedProcess(
            "/usr/bin/python3", ["\(self.examples)/day_display.py"] + arguments, environment: self.environment,
            stderrPath: "\(self.session.directory.path)/day_display.log")
        self.processes.append(process)
        return process
    }

    /// Another app's window, titled "Elsewhere", to take the focus.
    func startOtherApp() async throws -> String {
        let script = """
            import gi
            gi.require_version("Gtk", "4.0")
            from gi.repository import Gtk
            app = Gtk.Application(application_id="org.example.Elsewhere")
            app.connect("activate", lambda a: Gtk.ApplicationWindow(application=a, title="Elsewhere").present())
            app.run([])
            """
        let process = try SpawnedProcess(
            "/usr/bin/python3", ["-c", script], environment: self.environment,
            stderrPath: "\(self.session.directory.path)/elsewhere.log")
        self.processes.append(process)
        return try await self.window(named: "Elsewhere")
    }

    /// The id of the visible window titled exactly `name`, once there is one.
    func window(named name: String, timeout: Double = 20) async throws -> String {
        try await poll("a visible window named \(name)", timeout: timeout, interval: 0.01) { () -> String? in
            let result = try await self.x(self.xdotool, ["search", "--onlyvisible", "--name", "^\(name)$"])
            return result.stdout.split(separator: "\n").first.map(String.init)
        }
    }

    /// Gives window `id` the focus, as a tap on it would (un-minimising it if need be).
    func activate(_ id: String) async throws {
        try await self.x(self.wmctrl, ["-i", "-a", id])
    }

    /// Writes a `daysomectl` wrapper that adds this session's paths, into `<run>/tools`.
    func makeTools() throws -> String {
        let directory = try self.session.directory.makeDirectory("tools")
        let paths = self.session.daemonPaths.map { "'\($0)'" }.joined(separator: " ")
        let wrapper = try self.session.directory.write(
            "tools/daysomectl", "#!/bin/sh\nexec '\(self.session.daysomectl)' \"$@\" \(paths)\n")
        chmod(wrapper, 0o755)
        self.tools = directory
        return wrapper
    }

    /// Starts the launcher on `command`, with `path` as its PATH and `extra` in its environment.
    func startLauncher(
        _ command: [String], path: String, extra: [String: String] = [:], log: String = "launcher.log"
    ) throws -> SpawnedProcess {
        var environment = self.environment.merging(extra) { $1 }
        environment["PATH"] = path
        let process = try SpawnedProcess(
            "/bin/sh", ["\(self.examples)/day-display-launcher"] + command, environment: environment,
            stderrPath: "\(self.session.directory.path)/\(log)")
        self.processes.append(process)
        return process
    }
}
