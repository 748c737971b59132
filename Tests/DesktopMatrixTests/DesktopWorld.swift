// One server's world in the desktop matrix: a private session bus whose only service
// directory activates this world's server as its desktop installs it (every auto-start writes a
// line to `auto-started` first; GNOME Shell's bus name is not activatable, so there it starts
// nothing), the server on its own display, and the real daysomed and daysomectl. Everything the
// test started is stopped by pid, newest first.

import DaysomeCore
import Glibc

/// A server, its bus and display, and a daemon posting to it.
final class DesktopWorld: RunsTools {
    let server: DesktopServer
    let directory: TestDirectory
    let daysomectl: String
    let daysomed: String
    var outputCount = 0
    private var processes: [SpawnedProcess] = []
    private(set) var busAddress = ""
    private(set) var systemBusAddress: String?
    /// Xvfb's display for X11 servers.
    private(set) var display: String?
    /// The server process the test started (GNOME's notification service is bus-activated).
    private(set) var serverProcess: SpawnedProcess?
    private(set) var daemon: SpawnedProcess?
    /// Phosh: the pixels its own shell lights with no card up.
    var baseline = 0
    /// Another app's window, full screen in front, while she watches a film.
    var film: SpawnedProcess?
    /// The app holding Plasma's inhibition, while it holds it.
    var inhibitor: SpawnedProcess?

    var home: String { "\(self.directory.path)/home" }
    var household: String { "\(self.directory.path)/household.json" }
    var displayState: String { "\(self.directory.path)/display/state" }
    var autoStartedMarker: String { "\(self.directory.path)/auto-started" }
    var daemonPaths: [String] {
        [
            "--runtime-dir", "\(self.directory.path)/run", "--state-dir", "\(self.directory.path)/state",
            "--display-state", self.displayState,
        ]
    }

    /// The environment of every child: nothing from the test process, the private buses.
    var environment: [String: String] {
        var environment = [
            "PATH": childPath, "HOME": self.home, "LANG": "C.UTF-8", "XDG_RUNTIME_DIR": "\(self.directory.path)/xdg",
            "XDG_CONFIG_HOME": "\(self.home)/.config", "XDG_DATA_HOME": "\(self.home)/.local/share",
            "XDG_STATE_HOME": "\(self.home)/.local/state", "DBUS_SESSION_BUS_ADDRESS": self.busAddress,
            "GSETTINGS_BACKEND": "keyfile", "NO_AT_BRIDGE": "1",
        ]
        if let display = self.display { environment["DISPLAY"] = display }
        if let system = self.systemBusAddress { environment["DBUS_SYSTEM_BUS_ADDRESS"] = system }
        if case .phosh = self.server.screen { environment["WLR_BACKENDS"] = "x11" }
        if case .plasma = self.server.screen {
            environment["QT_QPA_PLATFORM"] = "xcb"
            environment["XDG_CURRENT_DESKTOP"] = "KDE"
        }
        return environment
    }

    init(_ server: DesktopServer) throws {
        self.server = server
        _ = try findExecutable(basename(server.executable), package: server.package, in: server.executable)
        self.daysomed = try builtProduct("daysomed")
        self.daysomectl = try builtProduct("daysomectl")
        self.directory = try TestDirectory()
        for name in ["home", "xdg", "display", "services", "out"] { _ = try self.directory.makeDirectory(name) }
        chmod("\(self.directory.path)/xdg", 0o700)
    }

    deinit {
        self.stop()
    }

    /// Keeps a process this world started, for `stop()`.
    func adopt(_ process: SpawnedProcess) {
        self.processes.append(process)
    }

    /// Stops every process this world started, newest first, by pid.
    func stop() {
        for process in self.processes.reversed() { process.stop() }
        self.processes.removeAll()
    }

    // MARK: Buses and display

    /// The private session bus; its one service directory holds the trap (and, for GNOME
    /// Shell, the shell's own notification service, which the shell activates by its name).
    func startBus() async throws {
        let service = """
            [D-BUS Service]
            Name=org.freedesktop.Notifications
            Exec=/bin/sh \(self.directory.path)/activate.sh

            """
        _ = try self.directory.write("activate.sh", "date +%s >> \(self.autoStartedMarker)\n")
        _ = try self.directory.write("services/org.freedesktop.Notifications.service", service)
        if case .gnomeShell = self.server.screen {
            _ = try self.directory.write(
                "services/org.gnome.Shell.Notifications.service",
                "[D-BUS Service]\nName=org.gnome.Shell.Notifications\n"
                    + "Exec=/usr/bin/gjs /usr/share/gnome-shell/org.gnome.Shell.Notifications\n")
        }
        let (bus, address) = try await self.startDaemonBus(type: "session", name: "session")
        if case .sway = self.server.screen {
            // The Wayland user's server and tools connect to it too.
            chmod(self.directory.path, 0o711)
        }
        self.processes.append(bus)
        self.busAddress = address
    }

    /// A stand-in system bus of the test's own (GNOME Shell will not start without one).
    func startSystemBus() async throws {
        let (bus, address) = try await self.startDaemonBus(type: "system", name: "system")
        self.processes.append(bus)
        self.systemBusAddress = address
    }

    /// The test library's private bus, on `<name>-bus`; the session bus may activate only the
    /// world's own `services` (GNOME Shell's notification service).
    private func startDaemonBus(type: String, name: String) async throws -> (SpawnedProcess, String) {
        var anyUser = false
        if case .sway = self.server.screen { anyUser = true }
        return try await startPrivateBus(
            "\(name)-bus", in: self.directory, type: type,
            serviceDirectory: type == "session" ? "\(self.directory.path)/services" : nil, anyUser: anyUser,
            environment: ["PATH": childPath, "HOME": self.home])
    }

    /// Xvfb on a display of its own, for the X11 servers.
    func startDisplay() async throws {
        let (xvfb, display) = try await startXvfb(in: self.directory, home: self.home)
        self.processes.append(xvfb)
        self.display = display
    }

    // MARK: The server

    /// The server's command line.
    private func serverArguments() throws -> [String] {
        if case .dunst = self.server.screen {
            return ["-config", try self.directory.write("dunstrc", dunstConfiguration)]
        }
        return self.server.arguments
    }

    /// Lets the bus activate this server as its desktop's package does (an X11 server on this
    /// world's display), after a line in `auto-started`.
    func makeActivatable() async throws {
        var environment = self.environment
        var command = [self.server.executable] + (try self.serverArguments())
        if case .sway = self.server.screen {
            // As its user, in its session.
            environment = self.waylandEnvironment()
            command = try await self.asWaylandUser(command)
        }
        let assignments = environment.map { "\($0.key)='\($0.value)'" }.sorted().joined(separator: " ")
        let line = command.map { "'\($0)'" }.joined(separator: " ")
        _ = try self.directory.write(
            "activate.sh",
            "date +%s >> \(self.autoStartedMarker)\nexec env -i \(assignments) \(line) "
                + "2>> \(self.directory.path)/server-activated.log\n")
    }

    /// Starts the server and waits until it owns org.freedesktop.Notifications.
    func startServer() async throws {
        let arguments = try self.serverArguments()
        let log = "\(self.directory.path)/server-\(self.processes.count).log"
        let process: SpawnedProcess
        if case .sway = self.server.screen {
            process = try await self.spawnAsWaylandUser(
                self.server.executable, arguments, log: "server-\(self.processes.count).log")
        } else {
            process = try SpawnedProcess(
                self.server.executable, arguments, environment: self.environment, stderrPath: log)
            self.processes.append(process)
        }
        self.serverProcess = process
        _ = try await poll("\(self.server.id) to own org.freedesktop.Notifications", timeout: 60, interval: 0.2) {
            () -> Bool? in
            if process.poll() { throw HarnessError("\(self.server.id) exited early: " + readFile(log)) }
            return try await self.nameHasOwner("org.freedesktop.Notifications") ? true : nil
        }
    }

    /// Kills the server that owns org.freedesktop.Notifications (SIGKILL) and waits until the
    /// name is gone. For GNOME Shell that is its bus-activated notification service.
    func killServer() async throws {
        let pid = try await self.ownerPid("org.freedesktop.Notifications")
        if let process = self.serverProcess, process.pid == pid || self.server.id == "phosh" {
            // Phosh dies with its compositor.
            process.send(SIGKILL)
            _ = await process.exit(within: 10)
        } else {
            // The shell's notification service, started by this world's own bus.
            kill(pid, SIGKILL)
        }
        _ = try await poll("org.freedesktop.Notifications to lose its owner", timeout: 15) { () -> Bool? in
            try await self.nameHasOwner("org.freedesktop.Notifications") ? nil : true
        }
    }

    /// Starts the server again, as its desktop would.
    func restartServer() async throws {
        if case .gnomeShell = self.server.screen {
            let result = try await self.gdbus([
                "call", "--session", "-d", "org.freedesktop.DBus", "-o", "/org/freedesktop/DBus", "-m",
                "org.freedesktop.DBus.StartServiceByName", "org.gnome.Shell.Notifications", "0",
            ])
            guard result.status == 0 else { throw HarnessError("\(result)") }
            _ = try await poll("GNOME's notification service to own its name again", timeout: 30) { () -> Bool? in
                try await self.nameHasOwner("org.freedesktop.Notifications") ? true : nil
            }
        } else if case .phosh = self.server.screen {
            try await self.startPhosh()
        } else {
            try await self.startServer()
        }
    }

    /// Phosh on its compositor on Xvfb, and the pixels its own shell lights.
    func startPhosh() async throws {
        _ = try findExecutable("phosh", package: "phosh", in: "/usr/libexec/phosh")
        try await self.startServer()
        await pause(3)
        self.baseline = try await self.litPixels()
    }

    // MARK: Bus tools

    func gdbus(_ arguments: [String]) async throws -> ToolResult {
        try await self.run(try findExecutable("gdbus", package: "libglib2.0-bin"), arguments)
    }

    func nameHasOwner(_ name: String) async throws -> Bool {
        let result = try await self.gdbus([
            "call", "--session", "-d", "org.freedesktop.DBus", "-o", "/org/freedesktop/DBus", "-m",
            "org.freedesktop.DBus.NameHasOwner", name,
        ])
        return result.status == 0 && result.stdout.contains("true")
    }

    func ownerPid(_ name: String) async throws -> pid_t {
        let result = try await self.gdbus([
            "call", "--session", "-d", "org.freedesktop.DBus", "-o", "/org/freedesktop/DBus", "-m",
            "org.freedesktop.DBus.GetConnectionUnixProcessID", name,
        ])
        // `(uint32 1234,)`: the last number.
        let digits = result.stdout.split(whereSeparator: { !$0.isNumber }).last.map(String.init) ?? ""
        guard result.status == 0, let pid = pid_t(digits) else { throw HarnessError("no owner pid: \(result)") }
        return pid
    }

    /// Lines the trap wrote: every time the bus tried to auto-start a notification server.
    var autoStarts: [String] { readFile(self.autoStartedMarker).split(separator: "\n").map(String.init) }

    // MARK: The daemon

    /// Where the daemon's display command writes the time it ran: each time the day was
    /// brought back (a line of `date +%s.%N`).
    var broughtBackLog: String { "\(self.directory.path)/brought-back" }

    /// The times the day was brought back, as the display command logged them.
    var timesBroughtBack: [Double] {
        readFile(self.broughtBackLog).split(separator: "\n").compactMap { Double(String($0)) }
    }

    /// Starts daysomed on this world's bus and waits until its status names the server. Its
    /// display command stands in for the day display: it only logs when it was brought back.
    func startDaemon(household text: String) async throws {
        try writeFile(self.household, text)
        let command = try self.directory.write(
            "bring-back-display", "#!/bin/sh\n/bin/date +%s.%N >> '\(self.broughtBackLog)'\n")
        guard chmod(command, 0o700) == 0 else { throw HarnessError("chmod \(command) failed: \(errnoText(errno))") }
        let log = "\(self.directory.path)/daysomed.log"
        let process = try SpawnedProcess(
            self.daysomed,
            ["--household", self.household, "--notifier", "freedesktop", "--display-command", command]
                + self.daemonPaths,
            environment: self.environment, stderrPath: log)
        self.processes.append(process)
        self.daemon = process
        var seen = "nothing"
        do {
            _ = try await poll("daysomed to see \(self.server.id)", timeout: 30, interval: 0.2) { () -> Bool? in
                if process.poll() { throw HarnessError("daysomed exited early: " + readFile(log)) }
                let server = try? await self.status().notificationServer
                seen = server.map { "\($0)" } ?? "no status"
                return server?.name == self.server.serverName ? true : nil
            }
        } catch {
            throw HarnessError("\(error); status said \(seen); daysomed: \(readFile(log))")
        }
    }

    var daemonLog: String { readFile("\(self.directory.path)/daysomed.log") }

    /// What a failing step adds: the server's view, the daemon's history and its log.
    func diagnosis() async throws -> String {
        var parts: [String] = []
        if case .gnomeShell = self.server.screen { parts.append("banner: \(try await self.banner())") }
        parts.append("history: \(try await self.history().map { "\($0.event) \($0.itemIds) \($0.reason ?? "")" })")
        parts.append("daysomed: \(self.daemonLog.suffix(1_500))")
        return parts.joined(separator: "; ")
    }

    func signal(_ state: String) async throws {
        let result = try await self.ctl(["signal", state] + self.daemonPaths)
        guard result.status == 0 else { throw HarnessError("\(result)") }
    }

    /// History's `delivered` line for `item`, read through the core's type, once the daemon has
    /// written it.
    func deliveredLine(_ item: String, timeout: Double = 20) async throws -> HistoryRecord {
        try await poll("\(item) delivered", timeout: timeout, interval: 0.2) { () -> HistoryRecord? in
            let lines = try await self.ctlJSON(["history", "--json"] + self.daemonPaths)["history"]?.arrayValue
            return try (lines ?? []).map { try HistoryRecord(json: $0) }.first {
                $0.event == .delivered && $0.itemIds == [item]
            }
        }
    }

    /// `status --json` through the core's type, as daysomectl reads it.
    func status() async throws -> StatusSnapshot {
        try StatusSnapshot(json: .object(try await self.ctlJSON(["status", "--json"] + self.daemonPaths)))
    }

    /// `history --json` as (event, itemIds, reason) triples.
    func history() async throws -> [(event: String, itemIds: [String], reason: String?)] {
        let entries = try await self.ctlJSON(["history", "--json"] + self.daemonPaths)["history"]?.arrayValue ?? []
        return entries.compactMap { $0.objectValue }.map { entry in
            (
                entry["event"]?.stringValue ?? "",
                (entry["itemIds"]?.arrayValue ?? []).compactMap(\.stringValue),
                entry["reason"]?.stringValue
            )
        }
    }
}

/// The last component of a path.
func basename(_ path: String) -> String {
    path.split(separator: "/").last.map(String.init) ?? path
}

/// `findExecutable` for a server that lives outside PATH (under /usr/lib): exists and runs.
func findExecutable(_ name: String, package: String, in path: String) throws -> String {
    if path.hasPrefix("/") {
        guard access(path, X_OK) == 0 else {
            throw HarnessError("\(path) is missing: install the Debian package '\(package)' (scripts/install-deps)")
        }
        return path
    }
    return try findExecutable(name, package: package)
}
