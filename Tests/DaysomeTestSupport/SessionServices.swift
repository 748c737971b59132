// A world's session services: a private session bus, Xvfb and dunst on whichever bus the world
// has (its own or the user manager's), a stand-in notification server that answers late, and
// what dunst shows, read as she would see it.

import DaysomeCore
import Glibc

extension TestWorld {
    /// `dbus-daemon --nofork --print-address=1` with a session config that has no service
    /// directories (the stock one would let the bus activate /usr/bin/dunst behind our back), or
    /// only the test's own `activating` directory of service files.
    public func startSessionBus(activating serviceDirectory: String? = nil) async throws {
        let (process, address) = try await startPrivateBus(
            "bus", in: self.directory, serviceDirectory: serviceDirectory,
            environment: ["PATH": childPath, "HOME": self.home])
        self.processes.append(process)
        self.busAddress = address
    }

    /// Xvfb on a display it picks (-displayfd, so parallel tests do not collide) and dunst on the
    /// world's session bus; waits until dunst owns org.freedesktop.Notifications.
    public func startNotificationServer() async throws {
        guard self.busAddress != nil else {
            throw HarnessError("dunst needs a session bus: start .sessionBus or .userManager first")
        }
        _ = try findExecutable("dbus-send", package: "dbus-bin")
        _ = try findExecutable("busctl", package: "systemd")
        let (xvfb, display) = try await startXvfb(in: self.directory, home: self.home)
        self.processes.append(xvfb)
        var environment = self.environment
        environment["DISPLAY"] = display
        self.serverEnvironment = environment
        try await self.launchDunst()
    }

    /// dunst on the world's bus, in the Xvfb display already running; waits until it owns the name.
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
    public func restartSessionBus() async throws {
        let restart = try await self.systemctl(["restart", "dbus.service"])
        guard restart.status == 0 else { throw HarnessError("restarting dbus.service failed: \(restart)") }
        if let dunst = self.dunst {
            dunst.send(SIGTERM)
            _ = await dunst.exit(within: 5)
            self.processes.removeAll { $0 === dunst }
        }
        try await self.launchDunst()
    }

    /// The notification server crashes (SIGKILL, by its pid) and the session starts it again:
    /// every card it showed is gone, and its ids start over.
    public func restartNotificationServer() async throws {
        guard let dunst = self.dunst else { throw HarnessError("no dunst to restart") }
        dunst.send(SIGKILL)
        _ = await dunst.exit(within: 5)
        self.processes.removeAll { $0 === dunst }
        _ = try await poll("the bus to see dunst gone", timeout: 5) { () -> Bool? in
            try await self.nameHasOwner("org.freedesktop.Notifications") ? nil : true
        }
        try await self.launchDunst()
    }

    /// The notification server stops answering (SIGSTOP) or answers again (SIGCONT), as a hung one.
    public func freezeNotificationServer(_ frozen: Bool) throws {
        guard let dunst = self.dunst else { throw HarnessError("no dunst to freeze") }
        dunst.send(frozen ? SIGSTOP : SIGCONT)
    }

    /// Round trips of `ping` through the daemon's control socket, in seconds: how long its loop
    /// took to get to a client. `whileWaiting` runs every 2 ms until the answer is in, to look at
    /// the daemon while it has not answered.
    public func pingDaemon(whileWaiting: () -> Void = {}) throws -> Double {
        let path = self.runtimeDirectory + "/control"
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw HarnessError("socket: errno \(errno)") }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { throw HarnessError("path too long") }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        let start = monotonicSeconds()
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else { throw HarnessError("connect \(path): errno \(errno)") }
        let line = Array("ping\n".utf8)
        guard write(fd, line, line.count) == line.count else { throw HarnessError("write: errno \(errno)") }
        var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while poll(&ready, 1, 2) == 0 { whileWaiting() }
        var answer = [UInt8](repeating: 0, count: 16)
        let count = read(fd, &answer, answer.count)
        guard count > 0, String(decoding: answer[0..<count], as: UTF8.self).hasPrefix("pong") else {
            throw HarnessError("the daemon did not answer ping")
        }
        return monotonicSeconds() - start
    }

    /// A stand-in notification server (`Tests/StandIns/slow-notifications.py`) whose Notify replies
    /// come `delay` seconds late; it prints each Notify and CloseNotification it gets to the returned log.
    public func startSlowNotificationServer(delay: Double) async throws -> String {
        try await self.startStandInServer(delay: delay).log
    }

    /// The stand-in server of `startSlowNotificationServer`, logging to `<name>.log`, with `arguments`
    /// after its own; returns its log and its process (to freeze it, or stop it by its pid).
    public func startStandInServer(
        delay: Double, name: String = "slow-notifications", arguments: [String] = []
    ) async throws -> (log: String, process: SpawnedProcess) {
        let python = "/usr/bin/python3"
        guard access(python, X_OK) == 0 else { throw HarnessError("\(python) is missing: install python3-dbus") }
        let log = "\(self.directory.path)/\(name).log"
        let pipe = try makePipe()
        defer { close(pipe.read) }
        let process = try SpawnedProcess(
            python, ["\(packageRoot())/Tests/StandIns/slow-notifications.py", String(delay), log] + arguments,
            environment: self.environment, stdout: pipe.write, stderrPath: log + ".err")
        close(pipe.write)
        self.processes.append(process)
        guard await readLine(pipe.read, timeout: 15) == "ready" else {
            throw HarnessError("the stand-in notification server '\(name)' did not start: \(readFile(log + ".err"))")
        }
        return (log, process)
    }

    /// Whether dunst still runs, and what it and the manager logged: for a failing dunstctl.
    public var serverDiagnosis: String {
        let dunst = self.dunst.map { $0.poll() ? "dunst exited (\($0.waitStatus ?? -1))" : "dunst runs" } ?? "no dunst"
        let manager = self.directory.read("manager-1.log")
        return "\(dunst); dunst.log: \(self.directory.read("dunst.log").suffix(1_000))"
            + (manager.isEmpty ? "" : "; manager log: " + String(manager.suffix(1_500)))
    }

    /// `dunstctl history`: the notifications dunst has closed (by timeout, by her, or by the
    /// daemon's CloseNotification), newest first.
    public func shownHistory() async throws -> [ShownNotification] {
        try await self.closedNotifications().map(ShownNotification.init)
    }

    /// Polls until the queue shows the display in the foreground with nothing pending and dunst
    /// shows nothing; returns how long that took since `start` (monotonic), in seconds.
    public func settledEmpty(within timeout: Double, since start: Double) async throws -> Double {
        try await poll("nothing pending and nothing shown", timeout: timeout, interval: 0.02) { () -> Double? in
            let queue = try await self.pending()
            guard queue.display == "foreground", queue.starts.isEmpty else { return nil }
            return try await self.displayedCount() == 0 ? monotonicSeconds() - start : nil
        }
    }

    /// Fails if dunst shows anything during the next `seconds` (checked at least once) or, with
    /// `orClosed`, if its history then holds anything.
    public func expectNothingShown(for seconds: Double, orClosed: Bool = false) async throws {
        let end = monotonicSeconds() + seconds
        repeat {
            let count = try await self.displayedCount()
            guard count == 0 else {
                throw HarnessError("dunst shows \(count) notification(s); daysomed said: \(self.daemonStderr)")
            }
            await pause(orClosed ? 0.05 : 0.1)
        } while monotonicSeconds() < end
        guard orClosed else { return }
        let closed = try await self.closedSummaries()
        guard closed.isEmpty else {
            throw HarnessError("dunst's history holds \(closed); daysomed said: \(self.daemonStderr)")
        }
    }
}
