// The idle daemon's resident memory (issue 44): a real process, since what is measured is what the
// kernel keeps mapped for it (/proc/PID/smaps_rollup), which no embedded world has.

import DaysomeTestSupport
import Glibc
import Testing

@Suite("The idle daemon's memory")
struct IdleMemoryTests {
    /// Resident and anonymous kB of a process.
    func memory(_ pid: pid_t) -> (resident: Int, anonymous: Int) {
        var resident = -1
        var anonymous = -1
        for line in readFile("/proc/\(pid)/smaps_rollup").split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 2, let kB = Int(fields[1]) else { continue }
            if fields[0] == "Rss:" { resident = kB }
            if fields[0] == "Anonymous:" { anonymous = kB }
        }
        return (resident, anonymous)
    }

    /// A week laid, then nothing to do: the code the daemon ran once (its start-up, the lay, the
    /// publish) is not kept mapped; what stays resident is what it touches while idle. Without the
    /// release the same debug daemon held about 15 MB, with it about 4.5 MB (the package: 9.3 MB
    /// against 2.7 MB). The wait is on the wall clock: the release runs at most 100 ms after the
    /// daemon's last work, on its own loop, which no virtual clock drives in a real process.
    @Test
    func anIdleDaemonKeepsResidentWhatItTouchesWhileIdleNotTheCodeItRanOnce() async throws {
        let session = try await TestWorld.start([])
        defer { session.stop() }
        try replaceFile(session.household, try farAwayHousehold())
        let daemon = try await session.startDaemon(notifier: "log").process
        #expect(try await session.pending().starts.count > 0)
        let idle = try? await poll("the idle daemon's resident memory to fall to 8 MB", timeout: 5) {
            () -> (resident: Int, anonymous: Int)? in
            let now = self.memory(daemon.pid)
            return now.resident > 0 && now.resident <= 8 * 1024 ? now : nil
        }
        let last = idle ?? self.memory(daemon.pid)
        print("[IntegrationTests] idle daemon: \(last.resident) kB resident, \(last.anonymous) kB anonymous")
        #expect(idle != nil, "the idle daemon keeps \(last.resident) kB resident (at most 8192)")
        #expect(last.anonymous <= 2 * 1024, "the idle daemon keeps \(last.anonymous) kB anonymous")
        #expect(!daemon.poll(), "daysomed exited: \(session.daemonStderr)")
    }
}
