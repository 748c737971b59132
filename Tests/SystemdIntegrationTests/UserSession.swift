// UserSession: one test's world around a real user manager. `systemd --user` on a 0700 runtime
// directory under .testrun/ (PID 1 is not systemd here: it starts once /run/systemd/system
// exists), whose own session bus is socket-activated at $XDG_RUNTIME_DIR/bus; optionally Xvfb
// and dunst on that bus; and the real daysomed and daysomectl built next to the test bundle.
// Everything is stopped by pid, newest first, the manager last.

import DaysomeCore
import DaysomeFiles
import Glibc

/// One test's user manager, notification server and daemon.
final class UserSession: ShowsNotifications {
    let directory: TestDirectory
    let daysomed: String
    let daysomectl: String
    private var processes: [SpawnedProcess] = []
    /// The user manager started last (a restart replaces it).
    private(set) var manager: SpawnedProcess?
    private var retiredManagers: [SpawnedProcess] = []
    /// Children a killed manager left behind (its bus): signalled by pid when the session stops.
    private var orphans: [pid_t] = []
    /// The cgroups the managers run in, removed (once empty) when the session stops.
    private var cgroups: [String] = []
    /// The daemon started last.
    private(set) var daemon: SpawnedProcess?
    private var daemonArguments: [String] = []
    private var daemonLogs: [String] = []
    var outputCount = 0
    /// dunst's environment (and dunstctl's), once it runs.
    private(set) var serverEnvironment: [String: String]?
    private var dunst: SpawnedProcess?

    /// The manager's $XDG_RUNTIME_DIR (0700, outside /tmp).
    var userRuntime: String { "\(self.directory.path)/xdg" }
    var home: String { "\(self.directory.path)/home" }
    var configHome: String { "\(self.directory.path)/home/.config" }
    var household: String { "\(self.directory.path)/household/household.json" }
    var displayState: String { "\(self.directory.path)/display/state" }
    var runtimeDirectory: String { "\(self.directory.path)/run" }
    var stateDirectory: String { "\(self.directory.path)/state" }
    /// The options `signal`, `pending`, `history` and `status` need to find this daemon.
    var daemonPaths: [String] {
        [
            "--runtime-dir", self.runtimeDirectory, "--state-dir", self.stateDirectory, "--display-state",
            self.displayState,
        ]
    }

    /// What every child gets: nothing inherited from the test process, the scratch home, and the
    /// manager's runtime directory with its socket-activated session bus.
    var environment: [String: String] {
        [
            "PATH": childPath, "HOME": self.home, "LANG": "C.UTF-8", "XDG_RUNTIME_DIR": self.userRuntime,
            "XDG_CONFIG_HOME": self.configHome, "XDG_STATE_HOME": "\(self.home)/.local/state",
            "DBUS_SESSION_BUS_ADDRESS": "unix:path=\(self.userRuntime)/bus",
        ]
    }

    /// Everything every daemon of this session wrote on stderr.
    var daemonStderr: String { self.daemonLogs.map(readFile).joined() }

    private init() throws {
        self.daysomed = try builtProduct("daysomed")
        self.daysomectl = try builtProduct("daysomectl")
        self.directory = try TestDirectory()
        for name in ["xdg", "home", "home/.config", "household", "out"] {
            try self.directory.makeDirectory(name)
        }
    }

    /// A session with a running user manager and, if asked, Xvfb and dunst on its bus.
    static func start(notificationServer: Bool = false) async throws -> UserSession {
        let session = try UserSession()
        do {
            try await session.startManager()
            if notificationServer {
                try await session.startNotificationServer()
            }
        } catch {
            session.stop()
            throw error
        }
        return session
    }

    deinit {
        self.stop()
    }

    /// Stops every process this session started, newest first, by pid; the manager last (it
    /// stops what it started itself: its bus, the daysome- units, a daemon run as a unit).
    func stop() {
        for process in self.processes.reversed() {
            process.stop()
        }
        self.processes.removeAll()
        if let manager = self.manager {
            self.stopManager(manager)
        }
        self.manager = nil
        for manager in self.retiredManagers {
            self.stopManager(manager)
        }
        self.retiredManagers.removeAll()
        for orphan in self.orphans {
            kill(orphan, SIGTERM)
        }
        self.orphans.removeAll()
        for cgroup in self.cgroups {
            removeCgroup(cgroup)
        }
        self.cgroups.removeAll()
    }

    // MARK: The user manager

    /// Starts `systemd --user` with the session's environment and waits until its private socket
    /// answers (`is-system-running` says running or degraded) and it owns org.freedesktop.systemd1
    /// on its own session bus (which that first call socket-activates).
    func startManager() async throws {
        let executable = "/lib/systemd/systemd"
        guard access(executable, X_OK) == 0 else {
            throw HarnessError("\(executable) is missing: install the Debian package 'systemd'")
        }
        _ = try findExecutable("systemctl", package: "systemd")
        _ = try findExecutable("busctl", package: "systemd")
        // A user manager starts without systemd as PID 1 once this directory exists.
        guard mkdir("/run/systemd", 0o755) == 0 || errno == EEXIST,
            mkdir("/run/systemd/system", 0o755) == 0 || errno == EEXIST
        else {
            throw HarnessError("cannot create /run/systemd/system (\(errnoText(errno))): the user manager needs it")
        }
        // A manager that died leaves its private socket behind; readiness is its new one answering.
        unlink("\(self.userRuntime)/systemd/private")
        let log = "\(self.directory.path)/manager-\(self.retiredManagers.count + 1).log"
        // Every user manager of one uid started from the same cgroup puts its units in the same
        // cgroups (/session.slice/dbus.service…): stopping a unit in one kills the other's
        // processes. A cgroup of its own per manager keeps parallel sessions apart.
        let cgroups = self.makeCgroups()
        let process = try SpawnedProcess(
            "/bin/sh",
            [
                "-c", #"for g in $CGROUPS; do echo $$ > "$g/cgroup.procs" || exit 125; done; exec "$0" "$@""#,
                executable, "--user", "--log-target=console",
            ], environment: self.environment.merging(["CGROUPS": cgroups.joined(separator: " ")]) { $1 },
            stdoutPath: log, stderrPath: log)
        self.manager = process
        _ = try await poll("the user manager (pid \(process.pid)) to answer on its private socket", timeout: 15) {
            () -> Bool? in
            if process.poll() {
                throw HarnessError("systemd --user exited early (\(process.waitStatus ?? -1)): \(readFile(log))")
            }
            guard access("\(self.userRuntime)/systemd/private", F_OK) == 0 else { return nil }
            let state = try await self.systemctl(["is-system-running"]).stdout.filter { !$0.isWhitespace }
            return state == "running" || state == "degraded" ? true : nil
        }
        _ = try await poll("the user manager to own org.freedesktop.systemd1 on its bus", timeout: 15) {
            () -> Bool? in
            try await self.nameHasOwner("org.freedesktop.systemd1") ? true : nil
        }
    }

    /// Creates this session's cgroups (one per hierarchy that tracks processes) and returns them.
    private func makeCgroups() -> [String] {
        let name = "daysome-sdtest-" + basename(of: self.directory.path)
        var roots = ["/sys/fs/cgroup/systemd", "/sys/fs/cgroup/unified"].filter {
            access("\($0)/cgroup.procs", W_OK) == 0
        }
        if roots.isEmpty && access("/sys/fs/cgroup/cgroup.procs", W_OK) == 0 {
            roots = ["/sys/fs/cgroup"]
        }
        let paths: [String] = roots.map { root in root + "/" + name }
        let made = paths.filter { path in mkdir(path, 0o755) == 0 || errno == EEXIST }
        self.cgroups = made
        return made
    }

    /// Whether `name` has an owner on the manager's session bus (asking never activates it).
    func nameHasOwner(_ name: String) async throws -> Bool {
        let result = try await self.busctl([
            "call", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner", "s", name,
        ])
        return result.status == 0 && result.stdout.contains("true")
    }

    /// Stops a manager: SIGTERM (it starts exit.target and stops its units), SIGKILL after a
    /// deadline; a killed manager leaves its children behind, so those (its bus, its services)
    /// are signalled by pid too. Returns how long it took to exit after SIGTERM, in seconds.
    @discardableResult
    private func stopManager(_ process: SpawnedProcess, deadline: Double = 10) -> Double {
        let started = monotonicSeconds()
        if process.poll() {
            return 0
        }
        kill(process.pid, SIGTERM)
        while !process.poll() && monotonicSeconds() - started < deadline {
            usleep(5_000)
        }
        let took = monotonicSeconds() - started
        if !process.poll() {
            let children = childPids(of: process.pid)
            process.stop(deadline: 0)
            for child in children {
                kill(child, SIGTERM)
            }
        }
        return took
    }

    /// SIGTERM to the running manager, waiting (without blocking a thread) until it exited and
    /// was reaped; SIGKILL after `deadline`. Returns the seconds it took and whether SIGTERM sufficed.
    func terminateManager(deadline: Double = 10) async throws -> (seconds: Double, graceful: Bool) {
        guard let process = self.manager else {
            throw HarnessError("no user manager is running")
        }
        let started = monotonicSeconds()
        process.send(SIGTERM)
        let graceful = await process.exit(within: deadline, interval: 0.01)
        if !graceful {
            let children = childPids(of: process.pid)
            process.stop(deadline: 0)
            for child in children {
                kill(child, SIGTERM)
            }
        }
        self.retiredManagers.append(process)
        self.manager = nil
        return (monotonicSeconds() - started, graceful)
    }

    /// SIGKILL to the running manager, as a crash: what it started (its session bus) lives on
    /// until the session stops. Returns once the manager is reaped.
    func crashManager() async throws {
        guard let process = self.manager else {
            throw HarnessError("no user manager is running")
        }
        self.orphans += childPids(of: process.pid)
        process.send(SIGKILL)
        guard await process.exit(within: 5) else {
            throw HarnessError("systemd --user (pid \(process.pid)) survived SIGKILL for 5 s")
        }
        self.retiredManagers.append(process)
        self.manager = nil
    }

    // MARK: A power cut

    /// A power cut: the daemon, dunst, Xvfb, the user manager and everything it started (its
    /// bus, a daysome- service running) killed with SIGKILL at once, each by its pid. The test
    /// wipes the runtime directories; the state directory survives.
    func cutPower() async {
        var started: [pid_t] = []
        var parents = self.manager.map { [$0.pid] } ?? []
        while let parent = parents.popLast() {
            let children = childPids(of: parent)
            started += children
            parents += children
        }
        for process in self.processes.reversed() {
            process.send(SIGKILL)
        }
        self.manager?.send(SIGKILL)
        for pid in started {
            kill(pid, SIGKILL)
        }
        for process in self.processes {
            _ = await process.exit(within: 5)
        }
        if let manager = self.manager {
            _ = await manager.exit(within: 5)
            self.retiredManagers.append(manager)
        }
        self.manager = nil
        self.processes.removeAll()
        self.daemon = nil
        self.dunst = nil
        self.serverEnvironment = nil
    }

    /// After `cutPower`: a new user manager (its bus comes with it) and, if asked, Xvfb and dunst.
    func restoreServices(notificationServer: Bool) async throws {
        try await self.startManager()
        if notificationServer {
            try await self.startNotificationServer()
        }
    }

    // MARK: Xvfb and dunst on the manager's bus

    /// Xvfb on a display it picks (-displayfd) and dunst on the manager's socket-activated bus;
    /// waits until org.freedesktop.Notifications has an owner.
    private func startNotificationServer() async throws {
        let (xvfb, display) = try await startXvfb(in: self.directory, home: self.home)
        self.processes.append(xvfb)
        var environment = self.environment
        environment["DISPLAY"] = display
        self.serverEnvironment = environment
        try await self.launchDunst()
    }

    /// dunst on the manager's bus, in the Xvfb display already running; waits until it owns the name.
    private func launchDunst() async throws {
        guard let environment = self.serverEnvironment else { throw HarnessError("dunst needs Xvfb first") }
        let dunst = try await startDunst(in: self.directory, environment: environment) {
            try await self.nameHasOwner("org.freedesktop.Notifications")
        }
        self.processes.append(dunst)
        self.dunst = dunst
    }

    /// `systemctl --user restart dbus.service`: every connection to the session bus drops. dunst,
    /// which cannot outlive its bus, is stopped by its pid and started again on the new one.
    func restartSessionBus() async throws {
        let restart = try await self.systemctl(["restart", "dbus.service"])
        guard restart.status == 0 else { throw HarnessError("restarting dbus.service failed: \(restart)") }
        if let dunst = self.dunst {
            dunst.send(SIGTERM)
            _ = await dunst.exit(within: 5)
            self.processes.removeAll { $0 === dunst }
        }
        try await self.launchDunst()
    }

    /// Whether dunst still runs, and what it and the manager logged: for a failing dunstctl.
    var serverDiagnosis: String {
        let dunst = self.dunst.map { $0.poll() ? "dunst exited (\($0.waitStatus ?? -1))" : "dunst runs" } ?? "no dunst"
        return "\(dunst); dunst.log: \(self.directory.read("dunst.log").suffix(1_000)); manager log: "
            + String(self.directory.read("manager-1.log").suffix(1_500))
    }

    /// Fails if dunst shows anything, or its history holds anything, during the next `seconds`.
    func expectNothingShown(for seconds: Double) async throws {
        let end = monotonicSeconds() + seconds
        repeat {
            let count = try await self.displayedCount()
            guard count == 0 else {
                throw HarnessError("dunst shows \(count) notification(s); daysomed said: \(self.daemonStderr)")
            }
            await pause(0.05)
        } while monotonicSeconds() < end
        let closed = try await self.closedSummaries()
        guard closed.isEmpty else {
            throw HarnessError("dunst's history holds \(closed); daysomed said: \(self.daemonStderr)")
        }
    }

    // MARK: The daemon

    /// Starts `daysomed --backend systemd` on this session's files and waits until `status
    /// --json` shows it running under its own pid.
    @discardableResult
    func startDaemon(notifier: String = "log") async throws -> SpawnedProcess {
        self.daemonArguments = [
            "--backend", "systemd", "--notifier", notifier, "--household", self.household, "--display-state",
            self.displayState, "--runtime-dir", self.runtimeDirectory, "--state-dir", self.stateDirectory,
        ]
        let process = try self.spawnDaemon()
        try await self.waitUntilRunning(process)
        return process
    }

    /// Starts the daemon again with the same arguments, without waiting for it.
    @discardableResult
    func restartDaemon() throws -> SpawnedProcess {
        try self.spawnDaemon()
    }

    private func spawnDaemon() throws -> SpawnedProcess {
        let log = "\(self.directory.path)/daysomed-\(self.daemonLogs.count + 1).log"
        self.daemonLogs.append(log)
        let process = try SpawnedProcess(
            self.daysomed, self.daemonArguments, environment: self.environment, stderrPath: log)
        self.processes.append(process)
        self.daemon = process
        return process
    }

    /// Waits until `status --json` names `process` as the running daemon.
    func waitUntilRunning(_ process: SpawnedProcess, timeout: Double = 15) async throws {
        _ = try await poll("daysomed (pid \(process.pid)) to publish its status", timeout: timeout, interval: 0.02) {
            () -> Bool? in
            if process.poll() {
                throw HarnessError("daysomed exited early (\(process.waitStatus ?? -1)): \(self.daemonStderr)")
            }
            let status = try await self.status()
            return status["running"]?.boolValue == true && status["pid"]?.doubleValue == Double(process.pid)
                ? true : nil
        }
    }

    /// SIGKILL to the running daemon, then reaps it (so its lock is gone before a restart).
    func killDaemon() async throws {
        guard let process = self.daemon else {
            throw HarnessError("no daemon is running")
        }
        process.send(SIGKILL)
        guard await process.exit(within: 5) else {
            throw HarnessError("daysomed (pid \(process.pid)) survived SIGKILL for 5 s")
        }
        self.processes.removeAll { $0 === process }
        self.daemon = nil
    }

    // MARK: Tools

    /// `systemctl --user …` against this session's manager (its private socket).
    func systemctl(_ arguments: [String]) async throws -> ToolResult {
        try await self.run(try findExecutable("systemctl", package: "systemd"), ["--user"] + arguments)
    }

    /// `busctl --user --json=short …` on the manager's session bus.
    func busctl(_ arguments: [String]) async throws -> ToolResult {
        try await self.run(try findExecutable("busctl", package: "systemd"), ["--user", "--json=short"] + arguments)
    }

    /// `daysomectl signal foreground|away`, as the display calls it.
    func signal(_ state: String) async throws {
        let result = try await self.ctl(["signal", state] + self.daemonPaths)
        guard result.status == 0, result.stderr.isEmpty else {
            throw HarnessError("\(result)")
        }
    }

    /// `daysomectl status --json`.
    func status() async throws -> JSONObject {
        try await self.ctlJSON(["status", "--json"] + self.daemonPaths)
    }

    /// `daysomectl history --json`: (event, lay, at) of every record.
    func history() async throws -> [(event: String, lay: Int?, at: String?)] {
        let records = try await self.ctlJSON(["history", "--json"] + self.daemonPaths)["history"]?.arrayValue ?? []
        return records.map { record in
            let object = record.objectValue ?? JSONObject()
            return (
                object["event"]?.stringValue ?? "", object["lay"]?.doubleValue.map { Int($0) },
                object["at"]?.stringValue
            )
        }
    }

    /// The `at` of every start of `daysomectl plan --household PATH --from TIME --json`.
    func plannedInstants(from: String, household: String? = nil) async throws -> [String] {
        let plan = try await self.ctlJSON([
            "plan", "--household", household ?? self.household, "--from", from, "--json",
        ])
        return (plan["starts"]?.arrayValue ?? []).compactMap { $0.objectValue?["at"]?.stringValue }
    }
}

/// Removes a cgroup and the cgroups under it, deepest first (rmdir only: their files go with them).
func removeCgroup(_ path: String) {
    for entry in directoryEntries(path) where entry.isDirectory {
        removeCgroup("\(path)/\(entry.name)")
    }
    rmdir(path)
}
