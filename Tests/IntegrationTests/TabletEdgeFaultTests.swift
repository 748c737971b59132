// At the edges of a tablet's life, on the real daemon (the log notifier, no bus): what the kernel
// does when it runs short (an inotify queue that overflows while the loop is stopped). Each test
// times the daemon from outside on the wall clock, as the issue measured it: no virtual clock has
// a kernel queue to fill. The suite's name puts it in scripts/test's faults phase, where no
// parallel test competes for the two cores it measures on.

import DaysomeCore
import DaysomeFiles
import DaysomeTestSupport
import Glibc
import Testing

@Suite("At a tablet's edges: the kernel's limits", .timeLimit(.minutes(2)))
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
}

/// The state letter of `pid` in /proc/PID/stat (`R`, `S`, `T`…), nil once it is gone.
func processState(_ pid: pid_t) -> String? {
    let stat = readFile("/proc/\(pid)/stat")
    guard let close = stat.lastIndex(of: ")") else { return nil }
    return stat[stat.index(after: close)...].split(separator: " ").first.map(String.init)
}
