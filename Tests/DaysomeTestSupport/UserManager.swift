// A world's `systemd --user` manager: started on the world's 0700 runtime directory (PID 1 is not
// systemd here: a user manager starts once /run/systemd/system exists) in a cgroup of its own,
// with its session bus socket-activated at $XDG_RUNTIME_DIR/bus; stopped, terminated or crashed
// by pid; and the tools that talk to it (systemctl, busctl).

import DaysomeFiles
import Glibc

extension TestWorld {
    /// Starts `systemd --user` with the world's environment and waits until its private socket
    /// answers (`is-system-running` says running or degraded) and it owns org.freedesktop.systemd1
    /// on its own session bus (which that first call socket-activates), the world's session bus
    /// from then on. Unit files written to `$XDG_CONFIG_HOME/systemd/user` beforehand are loaded.
    public func startUserManager() async throws {
        let executable = "/lib/systemd/systemd"
        guard access(executable, X_OK) == 0 else {
            throw HarnessError("\(executable) is missing: install the Debian package 'systemd'")
        }
        _ = try findExecutable("systemctl", package: "systemd")
        _ = try findExecutable("busctl", package: "systemd")
        _ = try findExecutable("dbus-daemon", package: "dbus-daemon")
        guard access("/usr/lib/systemd/user/dbus.socket", F_OK) == 0 else {
            throw HarnessError("the user manager has no dbus.socket: install the Debian package 'dbus-user-session'")
        }
        // A user manager starts without systemd as PID 1 once this directory exists.
        guard mkdir("/run/systemd", 0o755) == 0 || errno == EEXIST,
            mkdir("/run/systemd/system", 0o755) == 0 || errno == EEXIST
        else {
            throw HarnessError("cannot create /run/systemd/system (\(errnoText(errno))): the user manager needs it")
        }
        // A manager that died leaves its private socket behind; readiness is its new one answering.
        unlink("\(self.userRuntime)/systemd/private")
        self.busAddress = "unix:path=\(self.userRuntime)/bus"
        let log = "\(self.directory.path)/manager-\(self.retiredManagers.count + 1).log"
        // Every user manager of one uid started from the same cgroup puts its units in the same
        // cgroups (/session.slice/dbus.service…): stopping a unit in one kills the other's
        // processes. A cgroup of its own per manager keeps parallel worlds apart.
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
        // What lets worlds run side by side: this manager runs in the cgroup made for it (named
        // after this world's own directory), not in the test process's, where two worlds' units
        // would share cgroups. It moves itself into a scope under it.
        let own = cgroups.first.map { "/" + basename(of: $0) } ?? "no cgroup made"
        let group = trackingCgroup(of: process.pid) ?? "none"
        guard group == own || group.hasPrefix(own + "/") else {
            throw HarnessError(
                "systemd --user (pid \(process.pid)) runs in cgroup \(group), not in \(own): worlds side by side "
                    + "would share their units' cgroups")
        }
    }

    /// Creates a cgroup of this world's (one per hierarchy that tracks processes), remembers it
    /// for `stop()`, and returns the ones made.
    private func makeCgroups() -> [String] {
        let name = "daysome-test-" + basename(of: self.directory.path) + "-\(self.retiredManagers.count + 1)"
        var roots = ["/sys/fs/cgroup/systemd", "/sys/fs/cgroup/unified"].filter {
            access("\($0)/cgroup.procs", W_OK) == 0
        }
        if roots.isEmpty && access("/sys/fs/cgroup/cgroup.procs", W_OK) == 0 {
            roots = ["/sys/fs/cgroup"]
        }
        let made = roots.map { root in root + "/" + name }.filter { path in mkdir(path, 0o755) == 0 || errno == EEXIST }
        self.cgroups += made
        return made
    }

    /// Whether `name` has an owner on the world's session bus (asking never activates it).
    public func nameHasOwner(_ name: String) async throws -> Bool {
        let result = try await self.busctl([
            "call", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner", "s", name,
        ])
        return result.status == 0 && result.stdout.contains("true")
    }

    /// SIGTERM to the running manager, waiting (without blocking a thread) until it exited and
    /// was reaped; SIGKILL after `deadline`. Returns the seconds it took and whether SIGTERM sufficed.
    public func terminateManager(deadline: Double = 10) async throws -> (seconds: Double, graceful: Bool) {
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
    /// until the world stops. Returns once the manager is reaped.
    public func crashManager() async throws {
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

    /// `systemctl --user …` against this world's manager (its private socket).
    public func systemctl(_ arguments: [String]) async throws -> ToolResult {
        try await self.run(try findExecutable("systemctl", package: "systemd"), ["--user"] + arguments)
    }

    /// `busctl --user --json=short …` on the world's session bus.
    public func busctl(_ arguments: [String]) async throws -> ToolResult {
        try await self.run(try findExecutable("busctl", package: "systemd"), ["--user", "--json=short"] + arguments)
    }
}

/// Stops a manager: SIGTERM (it starts exit.target and stops its units), SIGKILL after a
/// deadline; a killed manager leaves its children behind, so those (its bus, its services) are
/// signalled by pid too.
func stopManager(_ process: SpawnedProcess, deadline: Double = 10) {
    let started = monotonicSeconds()
    if process.poll() {
        return
    }
    kill(process.pid, SIGTERM)
    while !process.poll() && monotonicSeconds() - started < deadline {
        usleep(5_000)
    }
    if !process.poll() {
        let children = childPids(of: process.pid)
        process.stop(deadline: 0)
        for child in children {
            kill(child, SIGTERM)
        }
    }
}

/// Removes a cgroup and the cgroups under it, deepest first (rmdir only: their files go with them).
/// A cgroup is busy until its last process is gone. Every process still in it is the world's own
/// (its manager's, or what a killed manager left behind, grandchildren too): each is SIGKILLed by
/// the pid its `cgroup.procs` lists, and each rmdir retried for up to `deadline` seconds while it
/// says EBUSY.
public func removeCgroup(_ path: String, deadline: Double = 5) {
    for entry in directoryEntries(path) where entry.isDirectory {
        removeCgroup("\(path)/\(entry.name)", deadline: deadline)
    }
    for pid in readFile("\(path)/cgroup.procs").split(separator: "\n").compactMap({ pid_t(String($0)) }) {
        kill(pid, SIGKILL)
    }
    let end = monotonicSeconds() + deadline
    while rmdir(path) != 0 && errno == EBUSY && monotonicSeconds() < end {
        usleep(10_000)
    }
}

/// The process-tracking cgroup of `pid`: the `name=systemd` line of /proc/<pid>/cgroup on cgroup
/// v1, the `0::` line on v2.
private func trackingCgroup(of pid: pid_t) -> String? {
    let lines = readFile("/proc/\(pid)/cgroup").split(separator: "\n")
    let line = lines.first { $0.contains(":name=systemd:") } ?? lines.first { $0.hasPrefix("0::") }
    return line.map { String($0[$0.index(after: $0.lastIndex(of: ":")!)...]) }
}
