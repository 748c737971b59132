// The dense week (a start every minute, 10,080 starts) on a real `systemd --user`: the lay is a
// few OnCalendar expressions, not one entry per start, and the manager elapses them at exactly the
// planned instants: its own next elapses, and `systemd-analyze calendar`'s iterations of each
// expression, are the plan, nothing more and nothing less. Part of the serialized suite (one
// user manager at a time).

import DaysomeCore
import DaysomeTestSupport
import Glibc
import Testing

/// A UTC household with a daily meal at every minute of the day: 1,440 items, 10,080 starts a week.
func everyMinuteHousehold() -> String {
    var items: [String] = []
    for hour in 0..<24 {
        for minute in 0..<60 {
            let hhmm = (hour < 10 ? "0" : "") + "\(hour):" + (minute < 10 ? "0" : "") + "\(minute)"
            items.append(
                "{\"id\": \"m\(hour * 60 + minute)\", \"label\": \"Meal \(hhmm)\", \"kind\": \"meal\", "
                    + "\"time\": \"\(hhmm)\", \"repeat\": \"daily\"}")
        }
    }
    return """
        {"version": 1, "timeZone": "UTC", "clock": "24h",
         "settings": {"notifyInOtherApps": true, "chime": "off"},
         "items": [\(items.joined(separator: ",\n"))]}

        """
}

extension SystemdIntegrationTests {
    @Test
    func theDenseWeekIsAFewCalendarExpressionsThatTheManagerElapsesAtExactlyThePlannedStarts() async throws {
        let session = try await TestWorld.start(.userManager, daemon: .systemdBackend)
        defer { session.stop() }
        try replaceFile(session.household, everyMinuteHousehold())
        try await session.startDaemon()

        let (found, took) = try await session.waitUntilManagerHoldsThePlan(within: 20)
        print("[SystemdIntegrationTests] the dense lay \(found.lay) held \(milliseconds(took)) ms after start-up")
        let timer = try #require(found.timers.first)
        #expect(found.timers.count == 1, "\(found.timers)")
        // A week from any minute is at most one partial day, whole days of one or two months, and
        // one partial day: a handful of expressions, each spanning many starts.
        #expect(timer.specs.count <= 6, "\(timer.specs)")
        #expect(found.instants.count >= 10_000, "\(found.instants.count) instants")
        #expect(Set(found.instants).count == found.instants.count, "two expressions name one instant")

        // What systemd itself makes of each expression: its iterations from now (TZ=UTC so that it
        // prints the instants in UTC) are the planned starts still ahead, each once.
        let planned = try await session.plannedInstants(from: found.from)
        let now = Int64(wallSeconds())
        let ahead = Set(planned.compactMap { seconds(of: $0) }.filter { $0 > now + 2 })
        var elapses: [Int64] = []
        var environment = session.environment
        environment["TZ"] = "UTC"
        let analyze = try findExecutable("systemd-analyze", package: "systemd")
        for spec in timer.specs {
            let result = try await session.run(
                analyze, ["calendar", "--iterations=20000", spec], environment: environment)
            #expect(result.status == 0, "\(result)")
            elapses += result.stdout.split(separator: "\n").compactMap { line -> Int64? in
                guard line.contains("Next elapse:") || line.contains("Iter. #") else { return nil }
                // `    Iter. #2: Tue 2026-12-08 13:01:00 UTC`
                let words = line.split(separator: " ")
                guard words.count >= 3, words.last == "UTC" else { return nil }
                return seconds(of: "\(words[words.count - 3])T\(words[words.count - 2])Z")
            }
        }
        #expect(elapses.count == Set(elapses).count, "systemd elapses an instant twice")
        let analyzed = Set(elapses.filter { $0 > now + 2 })
        #expect(
            analyzed == ahead,
            "missing \(ahead.subtracting(analyzed).sorted().prefix(3)), extra \(analyzed.subtracting(ahead).sorted().prefix(3))"
        )

        // The manager's own next elapse of each expression is its first planned start ahead.
        for (spec, next) in zip(timer.specs, timer.nextElapses) {
            #expect(
                isTheNextElapse(next, of: spec, readBetween: found.readBetween.0, and: found.readBetween.1),
                "\(spec) elapses at \(next)")
        }

        // `pending` lists one entry per start, each naming the timer.
        let pending = try await session.ctlJSON(["pending", "--json"] + session.daemonPaths)
        let queued = (pending["pending"]?.arrayValue ?? []).compactMap { $0.objectValue }
        let queuedAt = queued.compactMap { $0["at"]?.stringValue }.compactMap { seconds(of: $0) }
        #expect(queuedAt.count == Set(queuedAt).count, "a start listed twice")
        #expect(Set(queuedAt.filter { $0 > now + 2 }) == ahead)
        #expect(Set(queued.compactMap { $0["handle"]?.stringValue }) == [timer.name])
        #expect(queued.allSatisfy { $0["title"]?.stringValue?.hasPrefix("Meal ") == true }, "\(queued.prefix(2))")

        // A return stops it.
        try await session.signal("foreground")
        _ = try await session.waitUntilManagerHoldsNothing(within: 5)
    }
}
