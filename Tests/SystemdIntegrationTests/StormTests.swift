// A storm of foreground/away flips, written once and run against each backend: the real daysomed
// with dunst, and a dbus-monitor recording what the server was sent and when. The wheel runs on a
// private session bus; the systemd backend lays transient timers in a real `systemd --user`, with
// dunst on the manager's own bus, and what is pending is what the manager holds. Seeded
// (DAYSOME_SEED) and sized by DAYSOME_STORM_FLIPS (default 300 on the wheel, 150 through systemd).

import DaysomeCore
import DaysomeTestSupport
import Glibc
import Testing

/// What differs between the backends' storms: the seed, the size, where the flips resume after
/// the minute (systemd's fire comes through timer, service and `daysomectl fire`), and how long a
/// settled check may take.
private struct StormBackend: Sendable, CustomStringConvertible {
    let backend: DaemonOptions.Backend
    let seed: UInt64
    let flips: Int
    let resumeAfterMinute: ClosedRange<Int>
    let checkDuration: Double
    let lead: Double

    var systemd: Bool { self.backend == .systemd }
    var description: String { self.backend.rawValue }

    static let all = [
        StormBackend(
            backend: .wheel, seed: 20_261_130, flips: 300, resumeAfterMinute: 0...60, checkDuration: 0.5, lead: 24),
        StormBackend(
            backend: .systemd, seed: 20_261_131, flips: 150, resumeAfterMinute: 200...900, checkDuration: 1.2,
            lead: 22),
    ]
}

@Suite("StormTests: hundreds of flips never leave a timer or a call over the display", .timeLimit(.minutes(4)))
struct StormTests {
    @Test(arguments: StormBackend.all)
    fileprivate func randomFlipsLeaveNothingOverTheDisplayAndExactlyThePlanWhileAway(
        _ storm: StormBackend
    )
        async throws
    {
        let seed = SeededRandom.seed(default: storm.seed)
        let plan = StormPlan(
            seed: seed, flips: stormFlips(default: storm.flips), resumeAfterMinute: storm.resumeAfterMinute)
        // The seed household and two calls of our own: one at the minute the storm straddles
        // (delivered in the middle of the flips) and one the minute after (pending throughout).
        // The session starts shortly before, so that few sessions of the target run at once.
        let minute = nextMinute(leaving: storm.lead)
        await pause(untilWall: Double(minute) - (storm.lead - 2))
        let session =
            storm.systemd
            ? try await TestWorld.start([.userManager, .notificationServer], daemon: .systemdBackend)
            : try await TestWorld.start([.sessionBus, .notificationServer])
        defer { session.stop() }
        // The wheel's storm keeps the seed's Europe/London; the systemd one lays in UTC.
        let zone = storm.systemd ? "UTC" : "Europe/London"
        let calls = """
            "items": [
                { "id": "storm-first", "label": "Storm soup", "detail": "In the middle of it", "kind": "meal",
                  "time": "\(try clockTime(minute, zone: zone))", "repeat": "daily" },
                { "id": "storm-second", "label": "Storm tea", "kind": "drink",
                  "time": "\(try clockTime(minute + 60, zone: zone))", "repeat": "daily" },
            """
        var household = try fixtureText("seed.json")
        if storm.systemd { household = try replacingOnce(household, "\"Europe/London\"", with: "\"UTC\"") }
        household = try replacingOnce(household, "\"items\": [", with: calls)
        try replaceFile(session.household, household)
        let bus = storm.systemd ? "unix:path=\(session.userRuntime)/bus" : try #require(session.busAddress)
        let recorder = try await BusRecorder.start(address: bus, log: session.directory.path + "/bus-monitor.log")
        defer { recorder.stop() }
        let driver = try StormDriver(displayState: session.displayState, state: "foreground")
        try await session.startDaemon(notifier: "freedesktop")
        if storm.systemd {
            _ = try await session.waitUntilManagerHoldsNothing(within: 2)
        } else {
            #expect(try await session.foregroundMismatch() == nil)
        }

        var planCache: [String: [PlannedStart]] = [:]
        var managerCache: [String: [String]] = [:]
        var failures: [String] = []
        // Start up to ten seconds before the minute, so that it falls in the storm's first half.
        await pause(untilWall: Double(minute) - plan.lead(check: storm.systemd ? 0.8 : 0.3))
        let report = try await driver.run(
            plan, minute: minute, checkDuration: storm.checkDuration,
            checkForeground: {
                if let why = try await Self.foregroundMismatch(session, storm) {
                    failures.append("settled foreground at \(clockText(wallSeconds())): \(why)")
                }
            },
            checkAway: {
                var why = ""
                if storm.systemd {
                    if try await session.holdsExactlyThePlan(
                        layRecord: session.layRecord(), planCache: &managerCache, why: &why) != nil
                    {
                        return
                    }
                } else {
                    guard let mismatch = try await session.queueMismatch(cache: &planCache) else { return }
                    why = mismatch
                }
                failures.append("settled away at \(clockText(wallSeconds())): \(why)")
            })
        recorder.stop()

        let end = wallSeconds()
        let notifications = recorder.notifications().filter { $0.appName == "Daysome" }
        let breaches = driver.log.breaches(of: notifications, window: 1.0, until: end)
        let history = try await session.history()
        let story = layStory(history)
        let delivered = history.filter { $0.event == "delivered" }
        print(
            "[StormTests] \(storm), seed \(seed) (DAYSOME_SEED), \(plan.flips) flips (DAYSOME_STORM_FLIPS): \(report); "
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
        #expect(try await Self.foregroundMismatch(session, storm) == nil)
        #expect(
            session.daemon?.poll() == false, "daysomed exited during the storm: \(session.daemonStderr.suffix(800))")
    }

    /// One look in the foreground: the wheel's queue holds nothing and dunst shows nothing; through
    /// systemd, the manager holds no `daysome-` timer and dunst shows nothing. Nil when so.
    private static func foregroundMismatch(_ session: TestWorld, _ storm: StormBackend) async throws -> String? {
        guard storm.systemd else { return try await session.foregroundMismatch() }
        let timers = try await session.daysomeUnits("daysome-*.timer")
        let shown = try await session.displayedCount()
        guard !timers.isEmpty || shown != 0 else { return nil }
        return "the manager holds \(timers.map(\.name)), dunst shows \(shown)"
    }
}
