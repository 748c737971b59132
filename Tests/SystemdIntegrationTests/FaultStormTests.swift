// The fault storm (DaysomeTestSupport/FaultStorm.swift), written once and run against each
// backend in a real user manager's session with dunst: flips while the server hangs, dies and the
// bus restarts; with the systemd backend the user manager also re-executes, and is then killed
// under a lay and started again.

import DaysomeTestSupport
import Glibc
import Testing

@Suite("A fault storm underneath each backend", .timeLimit(.minutes(5)))
struct FaultStormTests {
    @Test(arguments: [DaemonOptions.Backend.wheel, .systemd])
    func flipsWhileTheServerHangsDiesAndTheBusRestartsNeverShowACallOverTheDisplayTwiceOrSilently(
        backend: DaemonOptions.Backend
    ) async throws {
        let systemd = backend == .systemd
        let seed = SeededRandom.seed(default: systemd ? 20_261_221 : 20_261_220)
        let world = try await TestWorld.start(
            [.userManager, .notificationServer], daemon: systemd ? .systemdBackend : DaemonOptions())
        defer { world.stop() }
        let report = try await world.runFaultStorm(seed: seed, reexecManager: systemd)
        print("[FaultStormTests] \(backend), seed \(seed): \(report)")
        #expect(report.problems.isEmpty, "\(report.problems); daysomed said: \(world.daemonStderr.suffix(800))")
        guard systemd else { return }

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
