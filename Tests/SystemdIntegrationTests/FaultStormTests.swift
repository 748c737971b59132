// The fault storm (DaysomeTestSupport/FaultStorm.swift) against the systemd backend: flips while
// the server hangs and dies, the session bus restarts and the user manager re-executes.

import DaysomeTestSupport
import Testing

@Suite("A fault storm underneath the systemd backend", .timeLimit(.minutes(5)))
struct FaultStormTests {
    @Test func flipsWhileTheServerHangsDiesTheBusRestartsAndTheManagerReexecutesNeverShowACallOverTheDisplay()
        async throws
    {
        let seed = SeededRandom.seed(default: 20_261_221)
        let world = try await TestWorld.start([.userManager, .notificationServer], daemon: .systemdBackend)
        defer { world.stop() }
        let report = try await world.runFaultStorm(seed: seed, reexecManager: true)
        print("[FaultStormTests] systemd, seed \(seed): \(report)")
        #expect(report.breaches.isEmpty, "\(report.breaches)")
        #expect(report.doubles.isEmpty, "\(report.doubles)")
        #expect(report.silentMisses.isEmpty, "\(report.silentMisses)")
        #expect(report.settleFailures.isEmpty, "\(report.settleFailures)")
        #expect(report.deaths == 0, "daysomed died: \(world.daemonStderr.suffix(800))")
        #expect(report.calls >= 2, "the storm's calls never reached the server")
        #expect(report.longestStallWhileHung < 0.15)
    }
}
