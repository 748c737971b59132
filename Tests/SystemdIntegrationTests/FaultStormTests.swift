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
        #expect(report.problems.isEmpty, "\(report.problems); daysomed said: \(world.daemonStderr.suffix(800))")
    }
}
