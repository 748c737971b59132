// A storm of foreground/away flips against the systemd backend: the real daysomed laying
// transient timers in a real `systemd --user`, dunst on the manager's own bus, and a
// dbus-monitor recording what the server was sent and when. Pending is what the manager holds.
// Seeded (DAYSOME_SEED) and sized by DAYSOME_STORM_FLIPS (default 150).

import DaysomeCore
import DaysomeTestSupport
import Glibc
import Testing

@Suite(
    "StormTests: hundreds of flips never leave a timer or a call over the display (systemd)", .timeLimit(.minutes(4)))
struct StormTests {
    @Test func randomFlipsLeaveNoTimerAndNothingShownInTheForegroundAndExactlyThePlanAway() async throws {
        let seed = SeededRandom.seed(default: 20_261_131)
        // The fire comes through the manager (timer, service, daysomectl fire): resume the flips
        // 200 to 900 ms after the minute to meet it anywhere on its way.
        let plan = StormPlan(seed: seed, flips: stormFlips(default: 150), resumeAfterMinute: 200...900)
        let minute = nextMinute(leaving: 22)
        await pause(untilWall: Double(minute) - 20)
        let session = try await TestWorld.start([.userManager, .notificationServer], daemon: .systemdBackend)
        defer { session.stop() }
        let calls = """
            "items": [
                { "id": "storm-first", "label": "Storm soup", "detail": "In the middle of it", "kind": "meal",
                  "time": "\(utcClockTime(minute))", "repeat": "daily" },
                { "id": "storm-second", "label": "Storm tea", "kind": "drink",
                  "time": "\(utcClockTime(minute + 60))", "repeat": "daily" },
            """
        var household = try replacingOnce(try fixtureText("seed.json"), "\"Europe/London\"", with: "\"UTC\"")
        household = try replacingOnce(household, "\"items\": [", with: calls)
        try replaceFile(session.household, household)
        let recorder = try await BusRecorder.start(
            address: "unix:path=\(session.userRuntime)/bus", log: session.directory.path + "/bus-monitor.log")
        defer { recorder.stop() }
        let driver = try StormDriver(displayState: session.displayState, state: "foreground")
        try await session.startDaemon(notifier: "freedesktop")
        _ = try await session.waitUntilManagerHoldsNothing(within: 2)

        var cache: [String: [String]] = [:]
        var failures: [String] = []
        await pause(untilWall: Double(minute) - plan.lead(check: 0.8))
        let report = try await driver.run(
            plan, minute: minute, checkDuration: 1.2,
            checkForeground: {
                let timers = try await session.daysomeUnits("daysome-*.timer")
                let shown = try await session.displayedCount()
                if !timers.isEmpty || shown != 0 {
                    failures.append(
                        "settled foreground at \(clockText(wallSeconds())): the manager holds \(timers.map(\.name)), "
                            + "dunst shows \(shown)")
                }
            },
            checkAway: {
                var why = ""
                if try await session.holdsExactlyThePlan(
                    layRecord: session.layRecord(), planCache: &cache, why: &why) == nil
                {
                    failures.append("settled away at \(clockText(wallSeconds())): \(why)")
                }
            })
        recorder.stop()

        let end = wallSeconds()
        let notifications = recorder.notifications().filter { $0.appName == "Daysome" }
        let breaches = driver.log.breaches(of: notifications, window: 1.0, until: end)
        let history = try await session.history()
        let laid = history.filter { $0.event == "laid" }.compactMap(\.lay)
        let delivered = history.filter { $0.event == "delivered" }
        print(
            "[StormTests] systemd, seed \(seed) (DAYSOME_SEED), \(plan.flips) flips (DAYSOME_STORM_FLIPS): \(report); "
                + "\(laid.count) lays, \(delivered.count) delivered, "
                + "\(history.filter { $0.event == "withdrawn" }.count) withdrawn; the server was sent "
                + "\(notifications.count) call(s): \(notifications)")

        #expect(failures.isEmpty, "\(failures.count) settled checks failed: \(failures.prefix(5))")
        #expect(breaches.isEmpty, "rule 1 as the server saw it, \(breaches.count) breaches: \(breaches.prefix(5))")
        #expect(zip(laid, laid.dropFirst()).allSatisfy { $0 < $1 }, "lay numbers must only grow: \(laid)")
        #expect(report.flips >= plan.flips)
        #expect(report.settledAway > 0 && report.settledForeground > 0, "\(report)")
        #expect(notifications.count == delivered.count, "\(notifications) vs \(delivered)")
        #expect(notifications.allSatisfy { $0.closedAt != nil }, "a call left open: \(notifications)")
        #expect(try await session.daysomeUnits("daysome-*.timer").isEmpty)
        #expect(try await session.displayedCount() == 0)
        #expect(
            session.daemon?.poll() == false, "daysomed exited during the storm: \(session.daemonStderr.suffix(800))")
    }
}
