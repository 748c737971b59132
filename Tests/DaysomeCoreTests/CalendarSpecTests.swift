// CalendarSpec: a lay's starts as few OnCalendar expressions, read back to exactly the same
// instants (none lost, none added, none named twice), across month and year ends and the nights
// a zone changes its offset (the expressions are UTC: a DST night is only an uneven spacing).
// That systemd elapses the same instants is shown against a real manager
// (SystemdIntegrationTests.theDenseWeekIsAFewCalendarExpressions…).

import DaysomeCore
import Testing

@Suite("OnCalendar expressions for a lay's starts")
struct CalendarSpecTests {
    /// Every instant named by the expressions, in order, and whether any was named twice.
    func expanded(_ specs: [String]) -> (instants: [Instant], twice: Bool) {
        var all: [Instant] = []
        for spec in specs {
            guard let instants = CalendarSpec.instants(of: spec) else {
                Issue.record("the reader refuses what the writer wrote: \(spec)")
                continue
            }
            all += instants
        }
        return (all.sorted(), Set(all).count != all.count)
    }

    func expectRoundTrip(_ instants: [Instant], _ comment: Comment? = nil) {
        let specs = CalendarSpec.specs(covering: instants)
        let back = self.expanded(specs)
        #expect(!back.twice, "an instant named twice by \(specs)")
        #expect(back.instants == Set(instants).sorted(), comment)
    }

    @Test func theDenseWeekIsThreeExpressionsNamingExactlyItsTenThousandAndEightyStarts() {
        let from = instant("2026-11-30T13:00:00Z")
        let starts = (0..<10_080).map { from.adding(seconds: Int64($0) * 60) }
        let specs = CalendarSpec.specs(covering: starts)
        #expect(
            specs == [
                "2026-11-30 13..23:00..59:00 UTC", "2026-12-01..06 00..23:00..59:00 UTC",
                "2026-12-07 00..12:00..59:00 UTC",
            ])
        self.expectRoundTrip(starts)
    }

    @Test func oneStartIsOneExpressionNamingIt() {
        #expect(CalendarSpec.specs(covering: [instant("2026-11-30T13:00:00Z")]) == ["2026-11-30 13:00:00 UTC"])
        #expect(CalendarSpec.instants(of: "2026-11-30 13:00:00 UTC") == [instant("2026-11-30T13:00:00Z")])
        #expect(CalendarSpec.specs(covering: []) == [])
    }

    @Test func startsAcrossMonthAndYearEndsAndLeapDaysRoundTripExactly() {
        for first in ["2026-12-29T20:00:00Z", "2028-02-27T22:30:00Z", "2027-02-27T22:30:00Z", "2026-04-29T23:59:00Z"] {
            // Every 7 minutes and 13 seconds for four days: uneven seconds and minutes in every hour.
            let from = instant(first)
            self.expectRoundTrip((0..<800).map { from.adding(seconds: Int64($0) * 433) }, "from \(first)")
        }
    }

    @Test func aHouseholdsWeekAcrossBothDSTNightsRoundTripsExactly() {
        // Meals at fixed local times in London and Sydney: the UTC instants shift by an hour across each night.
        for (zoneName, first) in [
            ("Europe/London", "2026-03-26"), ("Europe/London", "2026-10-22"), ("Australia/Sydney", "2026-04-02"),
            ("America/New_York", "2026-11-28"),
        ] {
            let local = zone(zoneName)
            var starts: [Instant] = []
            for day in 0..<7 {
                for clock in ["01:30", "02:30", "08:00", "12:15", "18:45", "23:59"] {
                    let when = date(first).adding(days: Int64(day))
                    starts.append(local.resolve(when, time(clock)).instant)
                }
            }
            #expect(starts.count >= 40)
            self.expectRoundTrip(starts, "\(zoneName) from \(first)")
        }
    }

    @Test func randomStartsRoundTripExactlyAndDuplicatesAreNamedOnce() {
        var random = SplitMix64(seed: 44)
        for round in 0..<200 {
            let base = instant("2026-12-20T00:00:00Z").adding(seconds: Int64(random.next() % (40 * 86_400)))
            let count = Int(random.next() % 300) + 1
            let spread = Int64(random.next() % (9 * 86_400)) + 1
            var starts = (0..<count).map { _ in base.adding(seconds: Int64(random.next() % UInt64(spread))) }
            starts += starts.prefix(3)
            self.expectRoundTrip(starts, "round \(round)")
        }
    }

    @Test func theReaderRefusesWhatTheManagerRefusesOrTheWriterNeverWrites() {
        for spec in [
            "2026-12-01 24:00:00 UTC", "2026-12-01 10:60:00 UTC", "2026-12-01 10:00:60 UTC", "2026-13-01 10:00:00 UTC",
            "2026-12-00 10:00:00 UTC", "2026-12-01 10:00:00", "2026-12-01 10:00:00 Europe/London",
            "Mon 2026-12-01 10:00:00 UTC", "2026-12-01 10:00:00.5 UTC", "2026-*-01 10:00:00 UTC",
            "2026-12-01/2 10:00:00 UTC", "2026-12-05..01 10:00:00 UTC", "2026-12-01 10:00 UTC", "", "2026-12-01  UTC",
            "2026-12-01 10,,11:00:00 UTC", "2026-12-01 -1:00:00 UTC", "26-12-01 10:00:00 UTC",
            "2026-12-31 23:*/20:00 UTC",
        ] {
            #expect(CalendarSpec.instants(of: spec) == nil, "\(spec)")
        }
        // The manager accepts a day the month lacks and never elapses it.
        #expect(CalendarSpec.instants(of: "2026-11-31 10:00:00 UTC") == [])
        #expect(
            CalendarSpec.instants(of: "2026-12-31 23:00/20:00 UTC")
                == ["2026-12-31T23:00:00Z", "2026-12-31T23:20:00Z", "2026-12-31T23:40:00Z"].map(instant))
    }
}
