// The lock's side of a test's world: a private system bus (a dbus-daemon with a config of its
// own) carrying a stand-in logind (Tests/StandIns/logind.py, python3-dbus), and a stand-in
// ScreenSaver (org.freedesktop's or org.gnome's) on the session's bus, driven as a locker drives
// the real ones: SetLockedHint, SetIdleHint, a new Display session, SetActive, Lock requests. Every process is stopped by pid.

import DaysomeCore
import Glibc

/// A stand-in logind and screensaver for one test's world (a `TestWorld`).
public final class LockWorld {
    public let session: any RunsTools
    private var processes: [SpawnedProcess] = []
    public private(set) var systemBusAddress = ""
    /// The system bus and the stand-in logind on it, newest last, to stop them for a restart.
    private var systemProcesses: [SpawnedProcess] = []
    public let gdbus: String

    public init(_ session: any RunsTools) throws {
        self.session = session
        self.gdbus = try findExecutable("gdbus", package: "libglib2.0-bin")
    }

    deinit {
        self.stop()
    }

    public func stop() {
        for process in self.processes.reversed() { process.stop() }
        self.processes = []
    }

    /// What daysomed needs to find the private system bus, as sd_bus_open_system finds it.
    /// Without the printed `guid=`: like a real system's address, it stays valid across a bus restart.
    public var daemonEnvironment: [String: String] {
        ["DBUS_SYSTEM_BUS_ADDRESS": String(self.systemBusAddress.prefix { $0 != "," })]
    }

    /// The system bus's socket, in the session's directory.
    public static let systemBusName = "system-bus"

    /// Starts the private system bus and, unless `logind` is false, the stand-in logind on it.
    public func startSystemBus(logind: Bool = true) async throws {
        let (process, address) = try await startPrivateBus(
            Self.systemBusName, in: self.session.directory, type: "system", environment: ["PATH": childPath])
        self.processes.append(process)
        self.systemProcesses.append(process)
        self.systemBusAddress = address
        if logind {
            let logind = try await self.startStandIn(
                "logind.py", [String(getuid())], bus: ["DBUS_SYSTEM_BUS_ADDRESS": address])
            self.systemProcesses.append(logind)
        }
    }

    /// Starts a second session bus on which org.freedesktop.ScreenSaver is activatable: its
    /// service file runs `touch marker`, so a call that may auto-start leaves the marker behind.
    /// Returns the bus's address.
    public func startActivatingSessionBus(marker: String) async throws -> String {
        let services = try self.session.directory.makeDirectory("activatable-services")
        try self.session.directory.write(
            "activatable-services/org.freedesktop.ScreenSaver.service",
            "[D-BUS Service]\nName=org.freedesktop.ScreenSaver\nExec=/usr/bin/touch \(marker)\n")
        let (process, address) = try await startPrivateBus(
            "activating-bus", in: self.session.directory, serviceDirectory: services,
            environment: ["PATH": childPath])
        self.processes.append(process)
        return address
    }

    /// Calls GetActive on `address` as any client would, letting the bus auto-start the screensaver.
    public func getActiveAutoStarting(_ address: String) async throws -> ToolResult {
        try await self.session.run(
            self.gdbus,
            [
                "call", "--address", address, "--dest", "org.freedesktop.ScreenSaver", "--object-path",
                "/org/freedesktop/ScreenSaver", "--method", "org.freedesktop.ScreenSaver.GetActive", "--timeout", "2",
            ])
    }

    /// Stops the stand-in logind and the system bus, as a `systemctl restart dbus` would.
    public func stopSystemBus() {
        for process in self.systemProcesses.reversed() { process.stop() }
        self.systemProcesses = []
    }

    /// Starts the stand-in ScreenSaver on the session's bus: org.freedesktop.ScreenSaver, or with
    /// `gnome` org.gnome.ScreenSaver (Phosh's locker); with `notSupported` its GetActive answers
    /// NotSupported, as gsd's proxy does under Phosh. Stopped with the world, or by `stop` on the
    /// process returned (a locker that crashed).
    @discardableResult
    public func startScreenSaver(gnome: Bool = false, notSupported: Bool = false) async throws -> SpawnedProcess {
        try await self.startStandIn(
            "screensaver.py", (gnome ? ["gnome"] : []) + (notSupported ? ["not-supported"] : []),
            bus: ["DBUS_SESSION_BUS_ADDRESS": self.session.environment["DBUS_SESSION_BUS_ADDRESS"] ?? ""])
    }

    @discardableResult
    private func startStandIn(
        _ script: String, _ arguments: [String], bus: [String: String]
    ) async throws -> SpawnedProcess {
        let python = "/usr/bin/python3"
        guard access(python, X_OK) == 0 else { throw HarnessError("\(python) is missing: install python3-dbus") }
        let pipe = try makePipe()
        defer { close(pipe.read) }
        let log = "\(self.session.directory.path)/\(script).log"
        let process = try SpawnedProcess(
            python, ["\(packageRoot())/Tests/StandIns/\(script)"] + arguments,
            environment: ["PATH": childPath, "HOME": "\(self.session.directory.path)/home"].merging(bus) { $1 },
            stdout: pipe.write, stderrPath: log)
        close(pipe.write)
        self.processes.append(process)
        guard await readLine(pipe.read, timeout: 15) == "ready" else {
            throw HarnessError("the stand-in \(script) did not start: \(readFile(log))")
        }
        return process
    }

    /// Calls a method of the stand-in logind, as a locker or a login would.
    public func logind(_ path: String, _ method: String, _ arguments: [String]) async throws {
        try await self.call(self.systemBusAddress, "org.freedesktop.login1", path, method, arguments)
    }

    /// The locker locks (true) or unlocks session `id`: `Session.SetLockedHint`.
    public func setLocked(_ locked: Bool, session id: String = "c1") async throws {
        try await self.logind(
            "/org/freedesktop/login1/session/\(id)", "org.freedesktop.login1.Session.SetLockedHint", ["\(locked)"])
    }

    /// The screensaver becomes active (locked) or inactive; with `gnome`, org.gnome.ScreenSaver's
    /// (Phosh locking, or unlocking on her PIN: no logind Unlock comes).
    public func setScreenSaverActive(_ active: Bool, gnome: Bool = false) async throws {
        let name = gnome ? "org.gnome.ScreenSaver" : "org.freedesktop.ScreenSaver"
        try await self.call(
            self.session.environment["DBUS_SESSION_BUS_ADDRESS"] ?? "", name,
            gnome ? "/org/gnome/ScreenSaver" : "/org/freedesktop/ScreenSaver", name + ".SetActive", ["\(active)"])
    }

    /// `loginctl lock-session` (true) or `unlock-session` for session `id`: logind's request to
    /// the session's locker, which changes no LockedHint itself.
    public func requestLock(_ locked: Bool, session id: String = "c1") async throws {
        try await self.logind(
            "/org/freedesktop/login1/session/\(id)", "org.freedesktop.login1.Session.\(locked ? "Lock" : "Unlock")", [])
    }

    private func call(
        _ address: String, _ destination: String, _ path: String, _ method: String, _ arguments: [String]
    ) async throws {
        let result = try await self.session.run(
            self.gdbus,
            ["call", "--address", address, "--dest", destination, "--object-path", path, "--method", method]
                + arguments)
        guard result.status == 0 else { throw HarnessError("\(result)") }
    }
}
