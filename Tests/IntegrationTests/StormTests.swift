// A storm of foreground/away flips against the wheel backend: the real daysomed, a private
// session bus, Xvfb and dunst, and a dbus-monitor recording what the server was sent and when.
// Seeded (DAYSOME_SEED) and sized by DAYSOME_STORM_FLIPS (default 300).

import DaysomeCore
import DaysomeTestSupport
import Glibc
import Testing

@Suite("StormTests: hundreds of flips never leave a call over the display (wheel)", .timeLimit(.minutes(4)))
struct StormTests {
    @Test func randomFlipsLeaveNothingOverTheDisplayAndExactlyThePlanWhileAway() async throws {
        let seed = SeededRandom.seed(default: 20_261_130)
        let plan = StormPlan(seed: seed, flips: stormFlips(default: 300), resumeAfterMinute: 0...60)
        // The seed household and two calls of our own: one at the minute the storm straddles
        // (delivered in the middle of the flips) and one the minute after (pending throughout).
        // The session starts shortly before, so that few sessions of the target run at once.
        let minute = nextMinute(leaving: 24)
        await pause(untilWall: Double(minute) - 22)
        let session = try await TestWorld.start([.sessionBus, .notificationServer])
        defer { session.stop() }
        let zone = "Europe/London"
        let calls = """
            "items": [
                { "id": "storm-first", "label": "Storm soup", "detail": "In the middle of it", "kind": "meal",
                  "time": "\(try clockTime(minute, zone: zone))", "repeat": "daily" },
                { "id": "storm-second", "label": "Storm tea", "kind": "drink",
                  "time": "\(try clockTime(minute + 60, zone: zone))", "repeat": "daily" },
            """
        try replaceFile(session.household, try replacingOnce(try fixtureText("seed.json"), "\"items\": [", with: calls))
        let recorder = try await BusRecorder.start(
            address: try #require(session.busAddress), log: session.directory.path + "/bus-monitor.log")
        defer { recorder.stop() }
        let driver = try StormDriver(displayState: session.displayState, state: "foreground")
        try await session.startDaemon()
        #expect(try await session.foregroundMismatch() == nil)

        var cache: [String: [PlannedStart]] = [:]
        var failures: [String] = []
        // Start up to ten seconds before the minute, so that it falls in the storm's first half.
        await pause(untilWall: Double(minute) - plan.lead(check: 0.3))
        let report = try await driver.run(
            plan, minute: minute, checkDuration: 0.5,
            checkForeground: {
                if let why = try await session.foregroundMismatch() {
                    failures.append("settled foreground at \(clockText(wallSeconds())): \(why)")
                }
            },
            checkAway: {
                if let why = try await session.queueMismatch(cache: &cache) {
                    failures.append("settled away at \(clockText(wallSeconds())): \(why)")
                }
            })
        recorder.stop()

        let end = wallSeconds()
        let notifications = recorder.notifications().filter { $0.appName == "Daysome" }
        let breaches = driver.log.breaches(of: notifications, window: 1.0, until: end)
        let history = try await session.history()
        let story = layStory(history)
        let delivered = history.filter { $0.event == "delivered" }
        print(
            "[StormTests] wheel, seed \(seed) (DAYSOME_SEED), \(plan.flips) flips (DAYSOME_STORM_FLIPS): \(report); "
                + "\(story.laid.count) lays, \(delivered.count) delivered, "
                + "\(history.filter { $0.event == "withdrawn" }.count) withdrawn; the server was sent "
                + "\(notifications.count) call(s): \(notifications)")

        #expect(failures.isEmpty, "\(failures.count) settled checks failed: \(failures.prefix(5))")
        #expect(breaches.isEmpty, "rule 1 as the server saw it, \(breaches.count) breaches: \(breaches.prefix(5))")
        #expect(story.problems.isEmpty, "\(story.problems)")
        #expect(report.flips >= plan.flips)
        #expect(report.settledAway > 0 && report.settledForeground > 0, "\(report)")
        // A call the server was sent is one the history says was delivered, never twice.
        #expect(notifications.count == delivered.count, "\(notifications) vs \(delivered)")
        #expect(Set(delivered.map { "\($0.lay ?? -1) \($0.at ?? "")" }).count == delivered.count, "\(delivered)")
        #expect(notifications.allSatisfy { $0.closedAt != nil }, "a call left open: \(notifications)")
        #expect(try await session.foregroundMismatch() == nil)
        #expect(
            session.daemon?.poll() == false, "daysomed exited during the storm: \(session.daemonStderr.suffix(800))")
    }
}
