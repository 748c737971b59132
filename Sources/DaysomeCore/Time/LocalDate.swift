// A date on the proleptic Gregorian calendar, with no zone attached, and a clock time of day.
// Conversion uses Howard Hinnant's days-from-civil algorithms: exact for every year we meet.

/// A calendar date (`2026-10-25`), with no zone attached.
public struct LocalDate: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let year: Int
    public let month: Int
    public let day: Int

    /// Creates a date if the fields name a real day of the Gregorian calendar.
    public init?(year: Int, month: Int, day: Int) {
        guard (1...12).contains(month), day >= 1, day <= LocalDate.daysIn(month: month, year: year) else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    /// The date `days` days after 1970-01-01.
    public init(daysSinceEpoch days: Int64) {
        let z = days + 719_468
        let era = floorDiv(z, 146_097)
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        self.year = Int(yoe + era * 400 + (m <= 2 ? 1 : 0))
        self.month = Int(m)
        self.day = Int(d)
    }

    /// Days since 1970-01-01 (negative before it).
    public var daysSinceEpoch: Int64 {
        let y = Int64(self.month <= 2 ? self.year - 1 : self.year)
        let era = floorDiv(y, 400)
        let yoe = y - era * 400
        let mp = Int64(self.month > 2 ? self.month - 3 : self.month + 9)
        let doy = (153 * mp + 2) / 5 + Int64(self.day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The date `n` days later (or earlier, for negative `n`).
    public func adding(days n: Int64) -> LocalDate { LocalDate(daysSinceEpoch: self.daysSinceEpoch + n) }

    /// The day of the week.
    public var weekday: Weekday {
        // 1970-01-01 was a Thursday.
        let shifted = self.daysSinceEpoch + 3
        return Weekday.allCases[Int(shifted - floorDiv(shifted, 7) * 7)]
    }

    /// `YYYY-MM-DD`.
    public var isoString: String {
        let y = self.year
        let yearText = y >= 0 && y < 10_000 ? String(repeating: "0", count: 4 - String(y).count) + String(y) : String(y)
        return yearText + "-" + twoDigits(Int64(self.month)) + "-" + twoDigits(Int64(self.day))
    }

    public var description: String { self.isoString }

    /// Parses exactly `YYYY-MM-DD` naming a real date.
    public init?(iso text: some StringProtocol) {
        let bytes = Array(text.utf8)
        guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            let y = parseDigits(bytes[0..<4]), let m = parseDigits(bytes[5..<7]), let d = parseDigits(bytes[8..<10])
        else { return nil }
        self.init(year: y, month: m, day: d)
    }

    public static func < (lhs: LocalDate, rhs: LocalDate) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}

/// A day of the week, Monday first as the household file lists them.
public enum Weekday: String, CaseIterable, Sendable {
    case mon, tue, wed, thu, fri, sat, sun

    /// The English name, as the display's top line shows it where the household gives no `words`.
    public var englishName: String {
        switch self {
        case .mon: return "Monday"
        case .tue: return "Tuesday"
        case .wed: return "Wednesday"
        case .thu: return "Thursday"
        case .fri: return "Friday"
        case .sat: return "Saturday"
        case .sun: return "Sunday"
        }
    }
}

/// A clock time of day to the minute (`13:00`), with no date or zone attached.
public struct ClockTime: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let hour: Int
    public let minute: Int

    /// Creates a clock time if 0 ≤ hour ≤ 23 and 0 ≤ minute ≤ 59.
    public init?(hour: Int, minute: Int) {
        guard (0...23).contains(hour), (0...59).contains(minute) else { return nil }
        self.hour = hour
        self.minute = minute
    }

    /// Parses exactly `HH:MM`, 24-hour, two digits each.
    public init?(hhmm text: some StringProtocol) {
        let bytes = Array(text.utf8)
        guard bytes.count == 5, bytes[2] == UInt8(ascii: ":"), let h = parseDigits(bytes[0..<2]),
            let m = parseDigits(bytes[3..<5])
        else { return nil }
        self.init(hour: h, minute: m)
    }

    /// Seconds since the start of the day.
    public var secondOfDay: Int64 { Int64(self.hour * 3600 + self.minute * 60) }

    /// `09:05`: five ASCII bytes at once (a dense week's bodies are 10,080 clock times).
    public var description: String {
        String(unsafeUninitializedCapacity: 5) { buffer in
            buffer[0] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: self.hour / 10)
            buffer[1] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: self.hour % 10)
            buffer[2] = UInt8(ascii: ":")
            buffer[3] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: self.minute / 10)
            buffer[4] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: self.minute % 10)
            return 5
        }
    }

    public static func < (lhs: ClockTime, rhs: ClockTime) -> Bool { lhs.secondOfDay < rhs.secondOfDay }
}

/// Decimal digits only (no sign, no spaces) as an Int.
func parseDigits(_ bytes: ArraySlice<UInt8>) -> Int? {
    guard !bytes.isEmpty else { return nil }
    var value = 0
    for byte in bytes {
        guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
        value = value * 10 + Int(byte - UInt8(ascii: "0"))
    }
    return value
}
