// The fault storm (DaysomeTestSupport/FaultStorm.swift), written once and run against each
// backend in a real user manager's session with dunst: flips while the server hangs, dies and the
// bus restarts; with the systemd backend the user manager also re-executes, is then restarted
// gracefully under a lay, and last killed under a lay and started again.

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

        // Then the manager is restarted gracefully (SIGTERM) and started again under a lay: the
        // daemon lives on and lays the same lay again in the new manager.
        try await world.signal("away")
        let laid = try await world.waitUntilManagerHoldsThePlan(within: 10).found
        // The storm's re-executions said it before: only a new line is this restart's.
        func relaysSaid() -> Int {
            world.daemonStderr.split(separator: "\n").filter { $0.contains("laying them again") }.count
        }
        let relaysBefore = relaysSaid()
        let (exited, graceful) = try await world.terminateManager()
        let stopped = monotonicSeconds()
        try await world.startUserManager()
        let answered = monotonicSeconds() - stopped
        let (relaid, again) = try await world.waitUntilManagerHoldsThePlan(within: 35, since: stopped)
        print(
            "[FaultStormTests] systemd: manager restart: the old one exited \(Int(exited * 1_000)) ms after SIGTERM"
                + "\(graceful ? "" : " (SIGKILL needed)"); the new one answered after \(Int(answered * 1_000)) ms; "
                + "the plan was held again \(Int(again * 1_000)) ms after the old one was gone")
        #expect(graceful, "the user manager needed SIGKILL")
        #expect(world.daemon != nil, "daysomed exited with the manager: \(world.daemonStderr.suffix(800))")
        #expect(relaid.lay == laid.lay, "a manager restart is not a new lay")
        #expect(relaysSaid() > relaysBefore, "no relay said after the restart: \(world.daemonStderr.suffix(800))")

        // Last, the manager is killed under a lay: the daemon lives on, and once a manager is
        // back it holds the same lay again (a manager's crash is not a new lay).
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
