// The fixed-width path that formats instants and local times (TimeText.swift) writes what the
// contract says at every edge: four-digit years, midnight and the last second, offsets east and
// west, an LMT offset's seconds dropped; a year of five digits takes the general path.

import Testing

@testable import DaysomeCore

@Suite("Instants and local times are written as the contract says")
struct TimeTextTests {
    @Test(
        "An instant is written YYYY-MM-DDTHH:MM:SSZ at every edge of the day and of the four-digit years",
        arguments: [
            (Int64(0), "1970-01-01T00:00:00Z"), (86_399, "1970-01-01T23:59:59Z"), (-1, "1969-12-31T23:59:59Z"),
            (1_792_839_600, "2026-10-24T11:00:00Z"), (-62_135_596_800, "0001-01-01T00:00:00Z"),
            (253_402_300_799, "9999-12-31T23:59:59Z"), (253_402_300_800, "10000-01-01T00:00:00Z"),
        ])
    func instants(seconds: Int64, text: String) {
        #expect(Instant(seconds: seconds).rfc3339 == text)
    }

    @Test("A local time is written with its offset as ±HH:MM, never Z, an LMT offset's seconds dropped")
    func localTimes() throws {
        let date = try #require(LocalDate(year: 2026, month: 1, day: 10))
        let cases: [(Int64, Int32, String)] = [
            (43_200, 0, "2026-01-10T12:00:00+00:00"), (63_000, 19_800, "2026-01-10T17:30:00+05:30"),
            (30_600, -12_600, "2026-01-10T08:30:00-03:30"), (0, 50_400, "2026-01-10T00:00:00+14:00"),
            (86_399, -75, "2026-01-10T23:59:59-00:01"), (3_600, -36_000, "2026-01-10T01:00:00-10:00"),
        ]
        for (secondOfDay, offset, text) in cases {
            #expect(LocalDateTime(date: date, secondOfDay: secondOfDay, offset: offset).rfc3339 == text)
        }
    }

    @Test("Every minute of a year comes out the same on the fixed-width path as on the general one")
    func sameAsTheGeneralPath() {
        var seconds: Int64 = 1_767_225_600  // 2026-01-01
        while seconds < 1_798_761_600 {
            let instant = Instant(seconds: seconds)
            let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
            let general =
                "\(LocalDate(daysSinceEpoch: days).isoString)T\(formatClock(secondOfDay: seconds - days * 86_400, seconds: true))Z"
            if instant.rfc3339 != general {
                Issue.record("\(seconds): \(instant.rfc3339) != \(general)")
                return
            }
            seconds += 59
        }
    }
}
