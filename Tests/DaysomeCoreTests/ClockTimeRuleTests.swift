// Rule 8, clock times are clock times, as a table in the manner of systemd's
// test-calendarspec.c: each row a zone, a local date and time, and the instant it must be.
// Expected instants were computed independently with Python's zoneinfo (PEP 495, fold=0:
// first occurrence of a repeated time, pre-gap offset inside a gap), and agree with RFC 5545.

import DaysomeCore
import Testing

struct ClockTimeRow: Sendable, CustomTestStringConvertible {
    let zone: String
    let date: String
    let time: String
    let expected: String
    let dst: DSTDecision?
    let why: String
    var testDescription: String { "\(zone) \(date) \(time): \(why)" }
}

let clockTimeRows: [ClockTimeRow] = [
    // Lunch on both London change days is at 13:00 local, never "midnight plus thirteen hours".
    .init(
        zone: "Europe/London", date: "2026-03-29", time: "13:00", expected: "2026-03-29T12:00:00Z", dst: nil,
        why: "spring change day lunch at 13:00 BST"),
    .init(
        zone: "Europe/London", date: "2026-10-25", time: "13:00", expected: "2026-10-25T13:00:00Z", dst: nil,
        why: "autumn change day lunch at 13:00 GMT"),
    // 01:30 does not exist on the spring day: read with GMT, so it fires at 02:30 BST.
    .init(
        zone: "Europe/London", date: "2026-03-29", time: "01:30", expected: "2026-03-29T01:30:00Z", dst: .gap,
        why: "spring gap read with the pre-gap offset"),
    // 01:30 happens twice in autumn: the first, still BST.
    .init(
        zone: "Europe/London", date: "2026-10-25", time: "01:30", expected: "2026-10-25T00:30:00Z", dst: .repeat,
        why: "autumn repeat takes the first occurrence"),
    // Lord Howe moves by 30 minutes.
    .init(
        zone: "Australia/Lord_Howe", date: "2026-10-04", time: "02:15", expected: "2026-10-03T15:45:00Z", dst: .gap,
        why: "30-minute gap"),
    .init(
        zone: "Australia/Lord_Howe", date: "2026-04-05", time: "01:45", expected: "2026-04-04T14:45:00Z", dst: .repeat,
        why: "30-minute repeat"),
    // Havana changes at midnight: the day starts at 01:00.
    .init(
        zone: "America/Havana", date: "2026-03-08", time: "00:00", expected: "2026-03-08T05:00:00Z", dst: .gap,
        why: "midnight does not exist; the day starts at 01:00"),
    .init(
        zone: "America/Havana", date: "2026-03-08", time: "00:30", expected: "2026-03-08T05:30:00Z", dst: .gap,
        why: "gap at midnight"),
    .init(
        zone: "America/Havana", date: "2026-11-01", time: "00:30", expected: "2026-11-01T04:30:00Z", dst: .repeat,
        why: "repeat just after midnight"),
    .init(
        zone: "America/Santiago", date: "2026-09-06", time: "00:30", expected: "2026-09-06T04:30:00Z", dst: .gap,
        why: "southern spring gap at midnight"),
    .init(
        zone: "America/Santiago", date: "2026-04-04", time: "23:30", expected: "2026-04-05T02:30:00Z", dst: .repeat,
        why: "southern autumn repeat before midnight"),
    // Half-hour offsets.
    .init(
        zone: "America/St_Johns", date: "2026-03-08", time: "02:30", expected: "2026-03-08T06:00:00Z", dst: .gap,
        why: "half-hour offset zone, gap"),
    .init(
        zone: "America/St_Johns", date: "2026-01-15", time: "13:00", expected: "2026-01-15T16:30:00Z", dst: nil,
        why: "half-hour offset zone, plain day"),
    .init(
        zone: "America/St_Johns", date: "2026-11-01", time: "01:30", expected: "2026-11-01T04:00:00Z", dst: .repeat,
        why: "half-hour offset zone, repeat"),
    // Dublin's tzdata uses a negative DST in winter: offsets are what matter.
    .init(
        zone: "Europe/Dublin", date: "2026-10-25", time: "01:30", expected: "2026-10-25T00:30:00Z", dst: .repeat,
        why: "Dublin autumn repeat"),
    .init(
        zone: "Europe/Dublin", date: "2026-03-29", time: "01:30", expected: "2026-03-29T01:30:00Z", dst: .gap,
        why: "Dublin spring gap"),
    // No DST at all.
    .init(
        zone: "Asia/Kolkata", date: "2026-06-01", time: "13:00", expected: "2026-06-01T07:30:00Z", dst: nil,
        why: "no DST, +05:30"),
    // A whole date that does not exist lands on the next date's instants.
    .init(
        zone: "Pacific/Apia", date: "2011-12-30", time: "13:00", expected: "2011-12-30T23:00:00Z", dst: .gap,
        why: "the skipped date lands on 31 December"),
    .init(
        zone: "Pacific/Apia", date: "2011-12-29", time: "13:00", expected: "2011-12-29T23:00:00Z", dst: nil,
        why: "the day before the skip"),
    // Southern hemisphere.
    .init(
        zone: "Pacific/Auckland", date: "2026-09-27", time: "02:30", expected: "2026-09-26T14:30:00Z", dst: .gap,
        why: "Auckland spring gap"),
    .init(
        zone: "Pacific/Auckland", date: "2026-04-05", time: "02:30", expected: "2026-04-04T13:30:00Z", dst: .repeat,
        why: "Auckland autumn repeat"),
    // A two-hour change.
    .init(
        zone: "Antarctica/Troll", date: "2026-03-29", time: "01:30", expected: "2026-03-29T01:30:00Z", dst: .gap,
        why: "two-hour gap"),
    .init(
        zone: "Antarctica/Troll", date: "2026-10-25", time: "02:30", expected: "2026-10-25T00:30:00Z", dst: .repeat,
        why: "two-hour repeat"),
    .init(
        zone: "America/New_York", date: "2026-03-08", time: "02:30", expected: "2026-03-08T07:30:00Z", dst: .gap,
        why: "New York gap"),
    .init(
        zone: "America/New_York", date: "2026-11-01", time: "01:30", expected: "2026-11-01T05:30:00Z", dst: .repeat,
        why: "New York repeat"),
]

@Test("Clock times are clock times: a local time resolves by RFC 5545 in every kind of zone", arguments: clockTimeRows)
func clockTimesAreClockTimes(row: ClockTimeRow) {
    let resolved = zone(row.zone).resolve(date(row.date), time(row.time))
    #expect(resolved.instant == instant(row.expected))
    #expect(resolved.dst == row.dst)
}

@Test("A local time that does not occur keeps its minute in the new offset: 01:30 fires at 02:30 BST")
func gapTimeShowsShiftedByTheChange() {
    let london = zone("Europe/London")
    let resolved = london.resolve(date("2026-03-29"), time("01:30"))
    #expect(london.local(resolved.instant).rfc3339 == "2026-03-29T02:30:00+01:00")
}

@Test("Every minute of a year in London resolves back to itself unless it is in the gap")
func everyMinuteRoundTrips() {
    let london = zone("Europe/London")
    var gaps = 0
    var repeats = 0
    var day = date("2026-01-01")
    while day.year == 2026 {
        for minute in stride(from: Int64(0), to: 86_400, by: 60) {
            let resolved = london.resolve(day, secondOfDay: minute)
            let back = london.local(resolved.instant)
            switch resolved.dst {
            case .gap?: gaps += 1
            case .repeat?:
                repeats += 1
                #expect(back.date == day && back.secondOfDay == minute)
                // The first occurrence: an hour earlier the same wall time did not yet occur twice.
                #expect(london.local(resolved.instant.adding(seconds: 3600)).secondOfDay == minute)
            case nil: #expect(back.date == day && back.secondOfDay == minute)
            }
        }
        day = day.adding(days: 1)
    }
    #expect(gaps == 60)
    #expect(repeats == 60)
}

@Test("Local output always writes the offset as ±HH:MM, never Z or +0530")
func localOffsetFormat() {
    #expect(zone("Europe/London").local(instant("2026-01-10T12:00:00Z")).rfc3339 == "2026-01-10T12:00:00+00:00")
    #expect(zone("Asia/Kolkata").local(instant("2026-01-10T12:00:00Z")).rfc3339 == "2026-01-10T17:30:00+05:30")
    #expect(zone("America/St_Johns").local(instant("2026-01-10T12:00:00Z")).rfc3339 == "2026-01-10T08:30:00-03:30")
}

@Test("Civil dates round-trip through days since the epoch and know their weekday")
func civilDates() {
    for days in stride(from: Int64(-800_000), through: 800_000, by: 97) {
        let d = LocalDate(daysSinceEpoch: days)
        #expect(d.daysSinceEpoch == days)
        #expect(LocalDate(iso: d.isoString) == d || d.year < 0 || d.year > 9999)
    }
    #expect(date("1970-01-01").weekday == .thu)
    #expect(date("2026-10-25").weekday == .sun)
    #expect(date("2000-02-29").weekday == .tue)
    #expect(LocalDate(iso: "2026-02-29") == nil)
    #expect(LocalDate(iso: "2026-13-01") == nil)
}
