// The fault storm (DaysomeTestSupport/FaultStorm.swift) against the systemd backend: flips while
// the server hangs and dies, the session bus restarts and the user manager re-executes; then the
// manager is killed under a lay and started again.

import DaysomeTestSupport
import Glibc
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

        // Last, the manager is killed under a lay: the daemon lives on, and once a manager is
        // back it holds the same lay again (a manager's crash is not a new lay).
        try await world.signal("away")
        let before = try await world.waitUntilManagerHoldsThePlan(within: 10).found
        try await world.crashManager()
        let gone = monotonicSeconds()
        await pause(2.5)
        try await world.startUserManager()
        let (after, took) = try await world.waitUntilManagerHoldsThePlan(within: 35, since: gone)
        print("[FaultStormTests] systemd: the manager killed; the plan held again \(Int(took * 1_000)) ms after")
        #expect(after.lay == before.lay, "a manager's crash made a new lay")
        #expect(world.daemon != nil, "daysomed died with the manager: \(world.daemonStderr.suffix(800))")
    }
}
