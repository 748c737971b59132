// An instant on the UTC time line, in whole seconds, and its RFC 3339 form.
// Sub-second precision is deliberately absent: every start, expiry and lay boundary of the
// contract is a whole second, and the daemon converts to microseconds only at sd-event.

/// A point in time: whole seconds since 1970-01-01T00:00:00Z.
public struct Instant: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Seconds since the Unix epoch.
    public var seconds: Int64

    /// Creates an instant from Unix seconds.
    public init(seconds: Int64) {
        self.seconds = seconds
    }

    public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.seconds < rhs.seconds }

    /// This instant moved by a number of seconds.
    public func adding(seconds delta: Int64) -> Instant { Instant(seconds: self.seconds + delta) }

    /// RFC 3339 in UTC with `Z` and whole seconds, e.g. `2026-10-24T12:00:00Z`.
    public var rfc3339: String {
        let days = floorDiv(self.seconds, 86_400)
        let secondOfDay = self.seconds - days * 86_400
        let date = LocalDate(daysSinceEpoch: days)
        if let text = TimeText.dateTime(date, secondOfDay: secondOfDay, offset: nil) { return text }
        return "\(LocalDate(daysSinceEpoch: days).isoString)T\(formatClock(secondOfDay: secondOfDay, seconds: true))Z"
    }

    public var description: String { self.rfc3339 }
}

/// Floor division: rounds towards negative infinity, unlike `/`.
@inlinable
func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
    let q = a / b
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q
}

/// `HH:MM` or `HH:MM:SS` for a second of the day (0..<86400), always two-digit fields.
func formatClock(secondOfDay: Int64, seconds: Bool) -> String {
    let h = secondOfDay / 3600
    let m = (secondOfDay / 60) % 60
    let s = secondOfDay % 60
    var text = twoDigits(h) + ":" + twoDigits(m)
    if seconds { text += ":" + twoDigits(s) }
    return text
}

/// A non-negative number below 100 as two digits.
func twoDigits(_ value: Int64) -> String {
    value < 10 ? "0\(value)" : "\(value)"
}

/// `+HH:MM` / `-HH:MM` for a UTC offset in seconds (seconds of an LMT offset are dropped).
public func formatOffset(_ offsetSeconds: Int32) -> String {
    let sign = offsetSeconds < 0 ? "-" : "+"
    let magnitude = Int64(abs(Int(offsetSeconds)))
    return sign + twoDigits(magnitude / 3600) + ":" + twoDigits((magnitude / 60) % 60)
}

/// The version both programs print.
public let daysomeVersion = "0.2.0"
