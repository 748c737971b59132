/// A POSIX TZ string such as "GMT0BST,M3.5.0/1,M10.5.0", with the RFC 8536 extensions.
struct PosixTZ: Equatable, Sendable {
    /// Standard time.
    let standard: LocalTimeType
    /// Daylight saving time and when it applies; `nil` when the zone has no DST.
    let daylight: Daylight?

    struct Daylight: Equatable, Sendable {
        let type: LocalTimeType
        /// When DST starts, in local standard time.
        let start: Rule
        /// When DST ends, in local daylight time.
        let end: Rule
    }

    struct Rule: Equatable, Sendable {
        enum Day: Equatable, Sendable {
            /// `Jn`: 1...365, February 29 is never counted.
            case julian(Int64)
            /// `n`: 0...365, February 29 is counted.
            case zeroBased(Int64)
            /// `Mm.w.d`: weekday `d` (0 = Sunday) of week `w` (5 = last) of month `m`.
            case monthWeekDay(month: Int64, week: Int64, weekday: Int64)
        }

        let day: Day
        /// Seconds after local midnight; the RFC 8536 extension allows -167...167 hours.
        let time: Int64
    }

    /// What one year of the rule contributes to the timeline.
    private enum Year {
        /// DST starts at `start` and ends at `end` (UTC instants; `end < start` in the southern hemisphere).
        case changes(start: Int64, end: Int64)
        /// DST starts at `start` and lasts past the end of the year: DST all year.
        case allDaylight(start: Int64)
        /// Start and end coincide: nothing happens.
        case none
    }

    /// Seconds in 400 Gregorian years. Every rule repeats with this period because the calendar,
    /// leap years and weekdays all do, so instants can be moved into a small, overflow-free range.
    private static let cycleSeconds: Int64 = 146_097 * 86_400

    func localTimeType(at instant: Int64) -> LocalTimeType {
        guard let daylight else { return standard }
        let remainder = instant % Self.cycleSeconds
        let reduced = remainder < 0 ? remainder + Self.cycleSeconds : remainder
        return isDaylight(at: reduced, daylight) ? daylight.type : standard
    }

    /// `instant` lies within one 400-year cycle from 1970, so neighbouring years never overflow.
    private func isDaylight(at instant: Int64, _ daylight: Daylight) -> Bool {
        let year = civilYear(ofUnixSeconds: instant)
        // The latest change at or before `instant` decides. Changes of the neighbouring years are
        // considered too, because a rule time beyond 24 h (or negative) or a southern-hemisphere
        // zone puts the deciding change in another UTC year. On a tie the later year wins, which
        // makes an end coinciding with the next start (DST all year) stay in DST.
        var latest: (instant: Int64, isDaylight: Bool)?
        func consider(_ change: Int64, _ isDaylight: Bool) {
            if change <= instant, latest.map({ change >= $0.instant }) ?? true {
                latest = (change, isDaylight)
            }
        }
        for candidate in (year - 1)...(year + 1) {
            switch yearChanges(candidate, daylight) {
            case .changes(let start, let end) where start < end:
                consider(start, true)
                consider(end, false)
            case .changes(let start, let end):
                consider(end, false)
                consider(start, true)
            case .allDaylight(let start):
                consider(start, true)
            case .none:
                break
            }
        }
        // No change at or before `instant` in three years only happens for degenerate rules whose
        // start and end coincide: treat them as having no DST.
        return latest?.isDaylight ?? false
    }

    /// Instants in `(from, through]` at which the rule may change the offset, ascending.
    func changeInstants(after from: Int64, through: Int64) -> [Int64] {
        guard let daylight, from < through else { return [] }
        var instants: [Int64] = []
        var year = civilYear(ofUnixSeconds: from) - 1
        let lastYear = civilYear(ofUnixSeconds: through) + 1
        while year <= lastYear {
            // Compute in the 400-year cycle starting at 2000 and shift back, skipping what overflows.
            let cycles = floorDivide(year - 2000, 400)
            let shift = cycles.multipliedReportingOverflow(by: Self.cycleSeconds)
            var changes: [Int64] = []
            switch yearChanges(year - 400 * cycles, daylight) {
            case .changes(let start, let end): changes = [start, end]
            case .allDaylight(let start): changes = [start]
            case .none: break
            }
            // isDaylight decides from a UTC year and its neighbours: where a year's start and end meet,
            // the offset can also change as a UTC year begins.
            changes.append(daysFromCivil(year: year - 400 * cycles, month: 1, day: 1) * 86_400)
            for change in changes where !shift.overflow {
                let shifted = change.addingReportingOverflow(shift.partialValue)
                if !shifted.overflow, shifted.partialValue > from, shifted.partialValue <= through {
                    instants.append(shifted.partialValue)
                }
            }
            year += 1
        }
        instants.sort()
        var unique: [Int64] = []
        for instant in instants where unique.last != instant {
            unique.append(instant)
        }
        return unique
    }

    private func yearChanges(_ year: Int64, _ daylight: Daylight) -> Year {
        let start = daylight.start.localSeconds(inYear: year) - Int64(standard.offset)
        let end = daylight.end.localSeconds(inYear: year) - Int64(daylight.type.offset)
        // The zic convention: DST starting January 1 00:00 and ending December 31 24:00 plus the
        // DST amount (e.g. "EST5EDT,0/0,J365/25") covers the whole year, so it never ends. (glibc
        // evaluates only the UTC year and wrongly shows standard time for the first hours of each year.)
        if end - start >= daysInYear(year) * 86_400 {
            return .allDaylight(start: start)
        }
        return start == end ? .none : .changes(start: start, end: end)
    }
}

extension PosixTZ.Rule {
    /// The rule's moment in `year` as seconds since 1970-01-01 00:00 local (wall clock) time.
    func localSeconds(inYear year: Int64) -> Int64 {
        let dayNumber: Int64
        switch day {
        case .julian(let day):
            let leapDay: Int64 = isLeapYear(year) && day >= 60 ? 1 : 0
            dayNumber = daysFromCivil(year: year, month: 1, day: 1) + day - 1 + leapDay
        case .zeroBased(let day):
            dayNumber = daysFromCivil(year: year, month: 1, day: 1) + day
        case .monthWeekDay(let month, let week, let weekday):
            let first = daysFromCivil(year: year, month: month, day: 1)
            var candidate = first + (weekday - weekdayFromDays(first) + 7) % 7 + (week - 1) * 7
            // Week 5 means the last such weekday, which may be the fourth.
            while candidate >= first + daysInMonth(year: year, month: month) {
                candidate -= 7
            }
            dayNumber = candidate
        }
        return dayNumber * 86_400 + time
    }
}

extension PosixTZ {
    /// Parses `std offset [dst [offset] [,start[/time],end[/time]]]`; `nil` when malformed.
    init?(parsing text: [UInt8]) {
        var parser = Parser(text: text)
        guard let standardName = parser.name(), let standardWest = parser.offset(maxHours: 167) else { return nil }
        let standard = LocalTimeType(offset: Int32(-standardWest), isDST: false, abbreviation: standardName)
        if parser.atEnd {
            self.init(standard: standard, daylight: nil)
            return
        }
        guard let daylightName = parser.name() else { return nil }
        var daylightWest = standardWest - 3600
        if let next = parser.peek, next == UInt8(ascii: "+") || next == UInt8(ascii: "-") || isDigit(next) {
            guard let west = parser.offset(maxHours: 167) else { return nil }
            daylightWest = west
        }
        let type = LocalTimeType(offset: Int32(-daylightWest), isDST: true, abbreviation: daylightName)
        if parser.atEnd {
            // POSIX leaves the rules implementation-defined; like tzcode, default to the US rules.
            parser = Parser(text: Array(",M3.2.0,M11.1.0".utf8))
        }
        guard parser.skip(","), let start = parser.rule(), parser.skip(","), let end = parser.rule(), parser.atEnd
        else { return nil }
        self.init(standard: standard, daylight: Daylight(type: type, start: start, end: end))
    }

    private struct Parser {
        let text: [UInt8]
        var index = 0

        init(text: [UInt8]) {
            self.text = text
        }

        var atEnd: Bool { index == text.count }
        var peek: UInt8? { atEnd ? nil : text[index] }

        mutating func skip(_ character: Character) -> Bool {
            guard let peek, peek == character.asciiValue else { return false }
            index += 1
            return true
        }

        /// A designation: three or more letters, or `<...>` holding three or more of `[A-Za-z0-9+-]`.
        mutating func name() -> String? {
            let quoted = skip("<")
            let start = index
            while let peek, isLetter(peek) || (quoted && (isDigit(peek) || peek == 0x2B || peek == 0x2D)) {
                index += 1
            }
            let name = String(decoding: text[start..<index], as: UTF8.self)
            guard index - start >= 3, !quoted || skip(">") else { return nil }
            return name
        }

        /// `[+-]hh[:mm[:ss]]` in seconds; hours at most `maxHours`.
        mutating func offset(maxHours: Int64) -> Int64? {
            let negative = skip("-")
            if !negative {
                _ = skip("+")
            }
            guard let hours = number(maxDigits: 3), hours <= maxHours else { return nil }
            var seconds = hours * 3600
            for unit: Int64 in [60, 1] {
                guard skip(":") else { break }
                guard let value = number(maxDigits: 2), value <= 59 else { return nil }
                seconds += value * unit
            }
            return negative ? -seconds : seconds
        }

        /// `Jn`, `n` or `Mm.w.d`, optionally followed by `/time` (default 02:00).
        mutating func rule() -> Rule? {
            let day: Rule.Day
            if skip("J") {
                guard let number = number(maxDigits: 3), (1...365).contains(number) else { return nil }
                day = .julian(number)
            } else if skip("M") {
                guard let month = number(maxDigits: 2), (1...12).contains(month), skip("."),
                    let week = number(maxDigits: 1), (1...5).contains(week), skip("."),
                    let weekday = number(maxDigits: 1), weekday <= 6
                else { return nil }
                day = .monthWeekDay(month: month, week: week, weekday: weekday)
            } else {
                guard let number = number(maxDigits: 3), number <= 365 else { return nil }
                day = .zeroBased(number)
            }
            var time: Int64 = 2 * 3600
            if skip("/") {
                guard let seconds = offset(maxHours: 167) else { return nil }
                time = seconds
            }
            return Rule(day: day, time: time)
        }

        mutating func number(maxDigits: Int) -> Int64? {
            let start = index
            var value: Int64 = 0
            while let peek, isDigit(peek), index - start < maxDigits {
                value = value * 10 + Int64(peek - 0x30)
                index += 1
            }
            return index == start ? nil : value
        }
    }
}

private func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
private func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A }

// MARK: - Civil calendar (Howard Hinnant, "chrono-Compatible Low-Level Date Algorithms")

func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
    let quotient = value / divisor
    return value % divisor < 0 ? quotient - 1 : quotient
}

func isLeapYear(_ year: Int64) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

func daysInYear(_ year: Int64) -> Int64 { isLeapYear(year) ? 366 : 365 }

func daysInMonth(year: Int64, month: Int64) -> Int64 {
    switch month {
    case 2: isLeapYear(year) ? 29 : 28
    case 4, 6, 9, 11: 30
    default: 31
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date.
func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
    let shiftedYear = month <= 2 ? year - 1 : year
    let era = floorDivide(shiftedYear, 400)
    let yearOfEra = shiftedYear - era * 400
    let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
}

/// The proleptic Gregorian date of a day count since 1970-01-01.
func civilFromDays(_ days: Int64) -> (year: Int64, month: Int64, day: Int64) {
    let shifted = days + 719_468
    let era = floorDivide(shifted, 146_097)
    let dayOfEra = shifted - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let monthIndex = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
    let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
    return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
}

/// 0 = Sunday ... 6 = Saturday.
func weekdayFromDays(_ days: Int64) -> Int64 {
    // 1970-01-01 was a Thursday.
    let weekday = (days + 4) % 7
    return weekday < 0 ? weekday + 7 : weekday
}

func civilYear(ofUnixSeconds seconds: Int64) -> Int64 {
    civilFromDays(floorDivide(seconds, 86_400)).year
}
