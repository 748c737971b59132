// A lay's starts as few systemd OnCalendar expressions instead of one per start. The manager
// parses every entry of a transient timer and computes a next elapse for each, so 10,080 entries
// (a start every minute for a week) cost it ~70 ms; the same week is three expressions
// (`2026-12-01..06 00..23:00..59:00 UTC`). An expression is the product of its components'
// value sets, so the starts are grouped where they share a product: seconds by minute,
// (minute, second) pairs by hour, and each such time part by the days of one month having it.
// Every expression is in UTC: the planner already applied the zone's rules, DST nights included.
// Only the forms below are ever written; `instants(of:)` reads them back, as the manager
// normalises them (systemd 252 keeps the lists and ranges as written).

/// OnCalendar expressions for UTC instants, and the instants such an expression names.
public enum CalendarSpec {
    /// The fewest expressions this grouping finds whose elapses are exactly `instants`, each once
    /// (a start listed twice is one elapse), in the order of their first instant.
    public static func specs(covering instants: some Sequence<Instant>) -> [String] {
        // Day → second of the day → present.
        var days: [Int64: Set<Int>] = [:]
        for instant in instants {
            let day = floorDiv(instant.seconds, 86_400)
            days[day, default: []].insert(Int(instant.seconds - day * 86_400))
        }
        // (year, month, one time part) → the days of that month having it. A day's parts name
        // disjoint seconds, so each instant is in exactly one (days × part) product.
        var months: [MonthKey: [Int]] = [:]
        for (day, seconds) in days {
            let date = LocalDate(daysSinceEpoch: day)
            for part in timeParts(seconds) {
                months[MonthKey(year: date.year, month: date.month, time: part), default: []].append(date.day)
            }
        }
        var out: [(first: Int64, spec: String)] = []
        for (key, monthDays) in months {
            let sorted = monthDays.sorted()
            guard let firstDay = LocalDate(year: key.year, month: key.month, day: sorted[0]) else { continue }
            let date = yearText(key.year) + "-" + twoDigits(Int64(key.month)) + "-" + list(sorted)
            out.append((firstDay.daysSinceEpoch * 86_400 + key.time.first, date + " " + key.time.text + " UTC"))
        }
        return out.sorted { ($0.first, $0.spec) < ($1.first, $1.spec) }.map(\.spec)
    }

    /// The instants an expression of the form `specs(covering:)` writes names, in order; nil for
    /// anything else: a weekday, a zone other than UTC, `*` or a repetition in the date, a value
    /// out of its component's range, a fraction of a second, a malformed list. A date that does
    /// not exist (`2026-11-31`) is accepted and names nothing, as the manager never elapses it.
    public static func instants(of spec: String) -> [Instant]? {
        let words = spec.split(separator: " ", omittingEmptySubsequences: false)
        guard words.count == 3, words[2] == "UTC" else { return nil }
        let date = words[0].split(separator: "-", omittingEmptySubsequences: false)
        let time = words[1].split(separator: ":", omittingEmptySubsequences: false)
        guard date.count == 3, time.count == 3, date[0].utf8.count == 4,
            let years = values(date[0], in: 1970...2199, wildcard: false),
            let monthsSet = values(date[1], in: 1...12, wildcard: false),
            let daysSet = values(date[2], in: 1...31, wildcard: false),
            let hours = values(time[0], in: 0...23, wildcard: true),
            let minutes = values(time[1], in: 0...59, wildcard: true),
            let seconds = values(time[2], in: 0...59, wildcard: true)
        else { return nil }
        var out: [Instant] = []
        for year in years {
            for month in monthsSet {
                for day in daysSet {
                    guard let date = LocalDate(year: year, month: month, day: day) else { continue }
                    let base = date.daysSinceEpoch * 86_400
                    for hour in hours {
                        for minute in minutes {
                            for second in seconds {
                                out.append(Instant(seconds: base + Int64(hour * 3600 + minute * 60 + second)))
                            }
                        }
                    }
                }
            }
        }
        return out
    }

    // MARK: Writing

    private struct MonthKey: Hashable {
        let year: Int
        let month: Int
        let time: TimePart
    }

    /// `13..23:00..59:00`, and the first second of the day it names (for ordering).
    private struct TimePart: Hashable {
        let first: Int64
        let text: String
    }

    /// A day's seconds as `H:M:S` products: hours sharing the same (minute, second) pairs, and
    /// within those, minutes sharing the same seconds.
    private static func timeParts(_ secondsOfDay: Set<Int>) -> [TimePart] {
        var byHour: [Int: [Int]] = [:]
        for second in secondsOfDay { byHour[second / 3600, default: []].append(second % 3600) }
        var hoursByPairs: [[Int]: [Int]] = [:]
        for (hour, pairs) in byHour { hoursByPairs[pairs.sorted(), default: []].append(hour) }
        var parts: [TimePart] = []
        for (pairs, hours) in hoursByPairs {
            let sortedHours = hours.sorted()
            var secondsByMinute: [Int: [Int]] = [:]
            for pair in pairs { secondsByMinute[pair / 60, default: []].append(pair % 60) }
            var minutesBySeconds: [[Int]: [Int]] = [:]
            for (minute, seconds) in secondsByMinute { minutesBySeconds[seconds, default: []].append(minute) }
            for (seconds, minutes) in minutesBySeconds {
                let sortedMinutes = minutes.sorted()
                parts.append(
                    TimePart(
                        first: Int64(sortedHours[0] * 3600 + sortedMinutes[0] * 60 + seconds[0]),
                        text: list(sortedHours) + ":" + list(sortedMinutes) + ":" + list(seconds)))
            }
        }
        return parts.sorted { ($0.first, $0.text) < ($1.first, $1.text) }
    }

    /// Sorted distinct values as a component: runs of three or more as `a..b`, two digits each.
    private static func list(_ values: [Int]) -> String {
        var items: [String] = []
        var index = 0
        while index < values.count {
            var end = index
            while end + 1 < values.count && values[end + 1] == values[end] + 1 { end += 1 }
            if end - index >= 2 {
                items.append(twoDigits(Int64(values[index])) + ".." + twoDigits(Int64(values[end])))
            } else {
                for value in values[index...end] { items.append(twoDigits(Int64(value))) }
            }
            index = end + 1
        }
        return items.joined(separator: ",")
    }

    private static func yearText(_ year: Int) -> String {
        String(repeating: "0", count: max(0, 4 - String(year).count)) + String(year)
    }

    // MARK: Reading

    /// A component's values: `*` (where allowed) or a comma list of `N`, `N..M`, `N/R`, `N..M/R`
    /// (repetitions only in the time, where `*` is allowed; systemd 252 refuses `*/R`).
    private static func values(_ text: Substring, in range: ClosedRange<Int>, wildcard: Bool) -> [Int]? {
        if text == "*" { return wildcard ? Array(range) : nil }
        var set: Set<Int> = []
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let stepParts = item.split(separator: "/", omittingEmptySubsequences: false)
            guard stepParts.count <= 2 else { return nil }
            var step = 1
            if stepParts.count == 2 {
                // A repetition in the date would run on past what was laid: never written.
                guard wildcard, let value = number(stepParts[1]), value >= 1 else { return nil }
                step = value
            }
            let bounds = stepParts[0].split(separator: ".", omittingEmptySubsequences: false)
            let low: Int
            var high: Int
            switch bounds.count {
            case 1:
                guard let value = number(bounds[0]) else { return nil }
                low = value
                high = stepParts.count == 2 ? range.upperBound : value
            case 3 where bounds[1].isEmpty:
                guard let from = number(bounds[0]), let to = number(bounds[2]), from <= to else { return nil }
                low = from
                high = to
            default:
                return nil
            }
            guard range.contains(low), range.contains(high) else { return nil }
            high = min(high, range.upperBound)
            for value in stride(from: low, through: high, by: step) { set.insert(value) }
        }
        return set.sorted()
    }

    /// Decimal digits only (no sign, no fraction).
    private static func number(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.utf8.count <= 4, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            return nil
        }
        return Int(text)
    }
}
