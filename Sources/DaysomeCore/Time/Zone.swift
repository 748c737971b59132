// A named zone and rule 8: turning a local date and clock time into one instant.
// RFC 5545 section 3.3.5: a repeated local time means its first occurrence; a local time in
// a gap is read with the UTC offset in force before the gap (01:30 on London's spring day is
// 02:30 BST). Never "midnight plus a duration": that puts lunch at noon on a 25-hour day.

/// What rule 8 had to decide for one local time.
public enum DSTDecision: String, Sendable, Equatable {
    /// The local time did not exist that date; it was read with the offset before the gap.
    case gap
    /// The local time occurred twice that date; its first occurrence was taken.
    case `repeat`

    /// `gap` wins over `repeat` when a start combines both.
    public static func combine(_ a: DSTDecision?, _ b: DSTDecision?) -> DSTDecision? {
        if a == .gap || b == .gap { return .gap }
        return a ?? b
    }
}

/// A local date and time read by rule 8.
public struct ResolvedTime: Equatable, Sendable {
    /// The instant the local time stands for.
    public let instant: Instant
    /// Set only where rule 8 had to decide.
    public let dst: DSTDecision?
}

/// A local wall time with its offset, as an instant shows in a zone.
public struct LocalDateTime: Equatable, Sendable {
    public let date: LocalDate
    /// Seconds since local midnight of `date`.
    public let secondOfDay: Int64
    /// The UTC offset in force, in seconds east of UTC.
    public let offset: Int32

    /// `2026-10-24T13:00:00+01:00`: offset always `±HH:MM`, never `Z`.
    public var rfc3339: String {
        if let text = TimeText.dateTime(self.date, secondOfDay: self.secondOfDay, offset: self.offset) { return text }
        return
            "\(self.date.isoString)T\(formatClock(secondOfDay: self.secondOfDay, seconds: true))\(formatOffset(self.offset))"
    }

    /// The clock time to the minute.
    public var clockTime: ClockTime {
        ClockTime(hour: Int(self.secondOfDay / 3600), minute: Int((self.secondOfDay / 60) % 60))!
    }
}

/// A household's zone: the name as the file gave it, and its rules.
public struct Zone: Sendable, Equatable {
    /// The IANA name, echoed exactly as given.
    public let name: String
    /// The offsets and transitions of that zone.
    public let rules: ZoneRules

    /// Creates a zone from a name and its rules.
    public init(name: String, rules: ZoneRules) {
        self.name = name
        self.rules = rules
    }

    /// The local wall time at an instant.
    public func local(_ instant: Instant) -> LocalDateTime {
        let offset = self.rules.offset(at: instant.seconds)
        let wall = instant.seconds + Int64(offset)
        let days = floorDiv(wall, 86_400)
        return LocalDateTime(date: LocalDate(daysSinceEpoch: days), secondOfDay: wall - days * 86_400, offset: offset)
    }

    /// The local date of an instant.
    public func date(of instant: Instant) -> LocalDate { self.local(instant).date }

    /// Rule 8: the instant of a local clock time on a local date.
    public func resolve(_ date: LocalDate, _ time: ClockTime) -> ResolvedTime {
        self.resolve(date, secondOfDay: time.secondOfDay)
    }

    /// Rule 8 to the second: the instant of a local date and second of the day.
    public func resolve(_ date: LocalDate, secondOfDay: Int64) -> ResolvedTime {
        let wall = date.daysSinceEpoch * 86_400 + secondOfDay
        // Every offset that could be in force near this wall time: the one two days before it and
        // each one a transition in the window brings. No zone's offset exceeds ±26 hours.
        let window: Int64 = 2 * 86_400
        let transitions = self.rules.transitions(after: wall - window, through: wall + window)
        // No transition near it (every day of a zone without DST, and most days of one with it):
        // one offset holds over the whole window, so the one instant is the wall time less it.
        if transitions.isEmpty {
            return ResolvedTime(instant: Instant(seconds: wall - Int64(self.rules.offset(at: wall - window))), dst: nil)
        }
        var offsets = [self.rules.offset(at: wall - window)]
        for transition in transitions where !offsets.contains(transition.offsetAfter) {
            offsets.append(transition.offsetAfter)
        }
        // An instant t stands for this wall time when t + offset(t) == wall.
        var solutions: [Int64] = []
        for offset in offsets {
            let candidate = wall - Int64(offset)
            if self.rules.offset(at: candidate) == offset && !solutions.contains(candidate) {
                solutions.append(candidate)
            }
        }
        if let first = solutions.min() {
            return ResolvedTime(instant: Instant(seconds: first), dst: solutions.count > 1 ? .repeat : nil)
        }
        // No instant shows this wall time: it lies in a gap. Read it with the offset before the gap.
        for transition in transitions
        where transition.offsetAfter > transition.offsetBefore
            && transition.at + Int64(transition.offsetBefore) <= wall
            && wall < transition.at + Int64(transition.offsetAfter)
        {
            return ResolvedTime(instant: Instant(seconds: wall - Int64(transition.offsetBefore)), dst: .gap)
        }
        // Unreachable with consistent rules; keep a defined answer rather than trap on odd data.
        return ResolvedTime(instant: Instant(seconds: wall - Int64(self.rules.offset(at: wall))), dst: .gap)
    }

    /// The first instant of a local date (its midnight by rule 8: the day may start at 01:00).
    public func startOfDay(_ date: LocalDate) -> Instant {
        self.resolve(date, secondOfDay: 0).instant
    }
}
