// At the edges of a tablet's life, on the real daemon (the log notifier, no bus): what the kernel
// does when it runs short (an inotify queue that overflows while the loop is stopped, a process
// at its descriptor limit) and what inotify does not see (an edit behind a symlink). Each test
// times the daemon from outside on the wall clock, as the issue measured it: the embedded world
// has no kernel queue to fill, no descriptor table and no inotify of its own. The suite's name puts it in scripts/test's faults phase, where no
// parallel test competes for the two cores it measures on.

import DaysomeCore
import DaysomeFiles
import DaysomeTestSupport
import Glibc
import Testing

@Suite("At a tablet's edges: the kernel's limits, and what inotify does not see", .timeLimit(.minutes(2)))
struct TabletEdgeFaultTests {
    /// Her return written while the daemon is stopped and its display watch's inotify queue
    /// overflows (files made and removed in the watched directory): the kernel drops the named
    /// event, and the nameless overflow alone says something changed. Within a second of the
    /// daemon running again, the display reads foreground and nothing is pending.
    @Test func herReturnLostInAnInotifyOverflowIsReadWithinASecondOfTheLoopRunningAgain() async throws {
        let world = try await TestWorld.start([])
        defer { world.stop() }
        try replaceFile(world.household, try farAwayHousehold())
        try await world.startDaemon(notifier: "log")
        let queued = try await world.pending()
        #expect(queued.display == "away" && !queued.starts.isEmpty, "nothing laid to take away: \(queued.starts)")
        let pid = try #require(world.daemon?.pid)

        kill(pid, SIGSTOP)
        defer { kill(pid, SIGCONT) }
        _ = try await poll("daysomed (pid \(pid)) to stop", timeout: 5, interval: 0.01) {
            processState(pid) == "T" ? true : nil
        }
        // Three events a file (made, closed, removed) against a queue of max_queued_events: the
        // queue is full long before her return is written.
        let limit = Int(readFile("/proc/sys/fs/inotify/max_queued_events").split(separator: "\n").first ?? "")
        let files = (limit ?? 16_384) / 2 + 1_000
        let watched = directory(of: world.displayState)
        for index in 0..<files {
            let path = "\(watched)/busy-\(index)"
            close(open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0o600))
            unlink(path)
        }
        try await world.signal("foreground")
        kill(pid, SIGCONT)
        let resumed = monotonicSeconds()
        let seen = try? await poll("the return to be read", timeout: 3, interval: 0.02) { () -> Double? in
            let status = try await world.status()
            let queue = try await world.pending()
            return status.display == .foreground && queue.starts.isEmpty ? monotonicSeconds() - resumed : nil
        }
        print(
            "[TabletEdgeFaultTests] \(files) files made and removed while stopped; her return read "
                + (seen.map { "\(Int($0 * 1_000)) ms after SIGCONT" } ?? "not within 3 s"))
        let status = try await world.status()
        #expect(status.display == .foreground, "the daemon still says \(String(describing: status.display))")
        #expect(try await world.pending().starts.isEmpty)
        #expect((seen ?? .infinity) < 1, "the return was read \(String(describing: seen)) s after SIGCONT")
    }

    /// The household the daemon is given is a symlink into the app's own directory, as an app
    /// that keeps its file elsewhere links it: inotify on the link's directory never sees the app
    /// save by rename next to the target. Within a second of that save the live queue holds the
    /// new label, with no error in status.
    @Test func anEditWrittenNextToASymlinkedHouseholdsTargetIsLaidWithinASecond() async throws {
        let world = try await TestWorld.start([])
        defer { world.stop() }
        let app = try world.directory.makeDirectory("app-data")
        try replaceFile(app + "/saved.json", try farAwayHousehold(label: "Lunch"))
        guard symlink("../app-data/saved.json", world.household) == 0 else {
            throw HarnessError("symlink \(world.household): \(errnoText(errno))")
        }
        try await world.startDaemon(notifier: "log")
        #expect(try await world.pending().starts.contains { $0.title == "Lunch" })

        try replaceFile(app + "/saved.json", try farAwayHousehold(label: "Lunch with Sue"))
        let written = monotonicSeconds()
        let laid = try? await poll("the edit behind the link to be laid", timeout: 3, interval: 0.02) {
            try await world.pending().starts.contains { $0.title == "Lunch with Sue" }
                ? monotonicSeconds() - written : nil
        }
        print(
            "[TabletEdgeFaultTests] an edit next to the household's link target laid "
                + (laid.map { "\(Int($0 * 1_000)) ms after it was written" } ?? "not within 3 s"))
        #expect((laid ?? .infinity) < 1, "the edit was laid \(String(describing: laid)) s after it was written")
        #expect(try await world.householdErrors().isEmpty)
    }

    /// Slow clients that connect and say nothing hold the daemon at its descriptor limit (lowered
    /// with prlimit to what it holds plus 24), the listener's backlog kept full as the daemon's
    /// 2 s deadline closes them: `accept()` fails with EMFILE and leaves the connection queued.
    /// The daemon's CPU over 2 s stays under a fifth of a core, and status says the control
    /// socket is at its limit; once the clients are gone the control socket answers again.
    @Test func aFloodOfSlowClientsAtTheDescriptorLimitNeverSpinsTheLoop() async throws {
        let world = try await TestWorld.start([])
        defer { world.stop() }
        try replaceFile(world.household, try farAwayHousehold())
        try await world.startDaemon(notifier: "log")
        let pid = try #require(world.daemon?.pid)
        let limit = openDescriptors(pid) + 24
        let prlimit = try findExecutable("prlimit", package: "util-linux")
        let lowered = try await world.run(prlimit, ["--pid", String(pid), "--nofile=\(limit):\(limit)"])
        #expect(lowered.status == 0, "\(lowered)")

        let flood = SlowClients(path: world.runtimeDirectory + "/control")
        defer { flood.closeAll() }
        _ = try await poll("the daemon to reach its descriptor limit (\(limit))", timeout: 10, interval: 0.02) {
            flood.refill()
            return openDescriptors(pid) >= limit - 1 ? true : nil
        }
        let ticks = sysconf(Int32(_SC_CLK_TCK))
        let before = cpuTicks(pid)
        let start = monotonicSeconds()
        while monotonicSeconds() - start < 2 {
            flood.refill()
            await pause(0.02)
        }
        let share = Double(cpuTicks(pid) - before) / Double(ticks) / (monotonicSeconds() - start)
        print(
            "[TabletEdgeFaultTests] \(flood.connected) slow clients against a limit of \(limit) descriptors: "
                + "the daemon used \(Int(share * 100)) % of a core over 2 s")
        #expect(share < 0.2, "the daemon used \(Int(share * 100)) % of a core at its descriptor limit")
        // The status says it, though every descriptor the daemon may have is taken.
        let text = try? await poll("status to say the control socket is at its limit", timeout: 3, interval: 0.02) {
            flood.refill()
            let text = try await world.ctl(["status"] + world.daemonPaths)
            return text.stdout.contains("Control socket: at the descriptor limit") ? text : nil
        }
        #expect(text != nil, "status never said the control socket was at its descriptor limit")
        #expect(try await world.status().daemon?.controlSocketAtLimit == true)

        flood.closeAll()
        let answered = try? await poll("the control socket to answer again", timeout: 10, interval: 0.1) {
            (try? world.pingDaemon()) != nil ? true : nil
        }
        #expect(answered == true, "the control socket did not answer once the clients were gone")
        let status = try await world.ctl(["status"] + world.daemonPaths)
        #expect(status.status == 0 && status.stdout.contains("daysomed: running"), "\(status)")
        // Once the limit was not met for 2 s (a flood's backlog empties for a moment between clients).
        let cleared = try? await poll("status to stop saying the limit", timeout: 5, interval: 0.1) {
            try await world.status().daemon?.controlSocketAtLimit == false ? true : nil
        }
        #expect(cleared == true, "status still says the control socket is at its descriptor limit")
    }
}

extension TabletEdgeFaultTests {
    /// A flood of slow clients never takes the descriptors the daemon needs to read her return
    /// (rule 1): the control socket serves 64 at once, and the rest wait in its backlog. The limit
    /// is what the daemon holds plus 100, so without the cap the flood took every descriptor and
    /// the display file could not be read (EMFILE: the daemon kept "away", the calls over the day).
    @Test func herReturnDuringAFloodOfSlowClientsIsReadAtOnce() async throws {
        let world = try await TestWorld.start([])
        defer { world.stop() }
        try replaceFile(world.household, try farAwayHousehold())
        try await world.signal("away")
        try await world.startDaemon(notifier: "log")
        let pid = try #require(world.daemon?.pid)
        let limit = openDescriptors(pid) + 100
        let prlimit = try findExecutable("prlimit", package: "util-linux")
        let lowered = try await world.run(prlimit, ["--pid", String(pid), "--nofile=\(limit):\(limit)"])
        #expect(lowered.status == 0, "\(lowered)")
        #expect(try await world.pending().starts.isEmpty == false, "nothing laid before the flood")

        let flood = SlowClients(path: world.runtimeDirectory + "/control")
        defer { flood.closeAll() }
        let start = monotonicSeconds()
        while monotonicSeconds() - start < 1 {
            flood.refill()
            await pause(0.02)
        }
        let held = openDescriptors(pid)
        try await world.signal("foreground")
        let returned = monotonicSeconds()
        let seen = try? await poll("her return to be read during the flood", timeout: 3, interval: 0.02) {
            flood.refill()
            let status = try await world.status()
            return status.display?.rawValue == "foreground" && status.daemon?.pending == 0 ? true : nil
        }
        print(
            "[TabletEdgeFaultTests] \(flood.connected) slow clients, \(held) of \(limit) descriptors held: her return "
                + (seen == nil ? "never read" : "read \(Int((monotonicSeconds() - returned) * 1_000)) ms later"))
        #expect(seen == true, "her return was not read during the flood: \(world.daemonStderr.suffix(600))")
        #expect(held < limit - 8, "the flood took the daemon's descriptors: \(held) of \(limit)")
    }
}

/// Clients of the daemon's control socket that connect and send nothing, kept until closed.
final class SlowClients {
    let path: String
    private(set) var fds: [Int32] = []
    /// How many connections were made in all.
    private(set) var connected = 0

    init(path: String) {
        self.path = path
    }

    /// Closes the clients the daemon hung up on, and connects new ones until the listener's
    /// backlog is full (a non-blocking connect then fails with EAGAIN).
    func refill() {
        self.fds.removeAll { fd in
            var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 0) == 1 else { return false }
            close(fd)
            return true
        }
        while self.fds.count < 4_096 {
            let fd = socket(
                AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            guard fd >= 0 else { return }
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                for (index, byte) in self.path.utf8.enumerated() where index < raw.count - 1 { raw[index] = byte }
            }
            let result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            guard result == 0 else {
                close(fd)
                return
            }
            self.fds.append(fd)
            self.connected += 1
        }
    }

    func closeAll() {
        for fd in self.fds { close(fd) }
        self.fds.removeAll()
    }
}

/// How many descriptors `pid` holds open.
func openDescriptors(_ pid: pid_t) -> Int {
    guard let directory = opendir("/proc/\(pid)/fd") else { return 0 }
    defer { closedir(directory) }
    var count = 0
    while let entry = readdir(directory) {
        let dot = withUnsafeBytes(of: entry.pointee.d_name) { $0.first == UInt8(ascii: ".") }
        if !dot { count += 1 }
    }
    return count
}

/// The CPU time `pid` has used, user and system, in clock ticks (/proc/PID/stat's utime + stime).
func cpuTicks(_ pid: pid_t) -> Int {
    let stat = readFile("/proc/\(pid)/stat")
    guard let close = stat.lastIndex(of: ")") else { return 0 }
    let fields = stat[stat.index(after: close)...].split(separator: " ")
    guard fields.count > 12 else { return 0 }
    return (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0)
}

/// The state letter of `pid` in /proc/PID/stat (`R`, `S`, `T`…), nil once it is gone.
func processState(_ pid: pid_t) -> String? {
    let stat = readFile("/proc/\(pid)/stat")
    guard let close = stat.lastIndex(of: ")") else { return nil }
    return stat[stat.index(after: close)...].split(separator: " ").first.map(String.init)
}
