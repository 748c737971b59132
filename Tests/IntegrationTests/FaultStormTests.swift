// The fault storm (DaysomeTestSupport/FaultStorm.swift) against the wheel backend, in a real
// user manager's session with dunst: flips while the server hangs, dies and the bus restarts.

import DaysomeTestSupport
import Testing

@Suite("A fault storm underneath the wheel", .timeLimit(.minutes(5)))
struct FaultStormTests {
    @Test func flipsWhileTheServerHangsDiesAndTheBusRestartsNeverShowACallOverTheDisplayTwiceOrSilently()
        async throws
    {
        let seed = SeededRandom.seed(default: 20_261_220)
        let world = try await TestWorld.start([.userManager, .notificationServer])
        defer { world.stop() }
        let report = try await world.runFaultStorm(seed: seed, reexecManager: false)
        print("[FaultStormTests] wheel, seed \(seed): \(report)")
        #expect(report.problems.isEmpty, "\(report.problems); daysomed said: \(world.daemonStderr.suffix(800))")
    }
}
