// The display's own words for the text the daemon composes: weekday and day-part names, the
// heading's order, how labels join into a list, and the 12-hour clock's markers. A call speaks the
// family's language because the daemon composes it with the words the display app wrote (rule 4:
// these are the family's words, never censored). English where the household says nothing, so a
// file without `words` plans exactly as before.

/// A part of the day, as `dayParts` names its boundaries.
public enum DayPart: String, Sendable, CaseIterable {
    case morning, afternoon, evening, night
}

/// The words the daemon composes a call with; every field defaults to English.
public struct Words: Sendable, Equatable {
    /// Seven names, Monday first.
    public var weekdays: [String]
    /// The name of each part of the day.
    public var dayParts: [DayPart: String]
    /// The display's top line: a pattern with `{weekday}` and `{dayPart}`.
    public var heading: String
    /// How two labels join: `{0} and {1}`.
    public var listPair: String
    /// How a label joins the rest of a longer list: `{0}, {1}`.
    public var listMiddle: String
    /// How the last two labels of a longer list join: `{0} and {1}`.
    public var listEnd: String
    /// The 12-hour clock's marker before noon.
    public var am: String
    /// The 12-hour clock's marker from noon.
    public var pm: String
    /// A 12-hour clock time: a pattern with `{h}`, `{mm}` and (usually) `{ampm}`.
    public var clock12: String

    /// The words the daemon has always used.
    public static let english = Words()

    public init(
        weekdays: [String] = Weekday.allCases.map(\.englishName),
        dayParts: [DayPart: String] = Dictionary(uniqueKeysWithValues: DayPart.allCases.map { ($0, $0.rawValue) }),
        heading: String = "{weekday} {dayPart}", listPair: String = "{0} and {1}", listMiddle: String = "{0}, {1}",
        listEnd: String = "{0} and {1}", am: String = "am", pm: String = "pm", clock12: String = "{h}:{mm} {ampm}"
    ) {
        self.weekdays = weekdays
        self.dayParts = dayParts
        self.heading = heading
        self.listPair = listPair
        self.listMiddle = listMiddle
        self.listEnd = listEnd
        self.am = am
        self.pm = pm
        self.clock12 = clock12
    }

    /// The family's name for a weekday.
    public func name(of weekday: Weekday) -> String {
        let index = Weekday.allCases.firstIndex(of: weekday)!
        return index < self.weekdays.count ? self.weekdays[index] : weekday.englishName
    }

    /// The family's name for a part of the day.
    public func name(of part: DayPart) -> String {
        self.dayParts[part] ?? part.rawValue
    }

    /// Labels joined as CLDR list patterns join them: the pair pattern for two; for more, the
    /// end pattern joins the last two and the middle pattern adds each earlier label in front.
    public func list(_ labels: [String]) -> String {
        switch labels.count {
        case 0: return ""
        case 1: return labels[0]
        case 2: return Self.fill(self.listPair, ["0": labels[0], "1": labels[1]])
        default:
            var text = Self.fill(self.listEnd, ["0": labels[labels.count - 2], "1": labels[labels.count - 1]])
            for label in labels.dropLast(2).reversed() {
                text = Self.fill(self.listMiddle, ["0": label, "1": text])
            }
            return text
        }
    }

    /// Fills a pattern's `{name}` placeholders in one pass: a value is inserted as written and never
    /// read again, so a label holding `{0}` or `{weekday}` stays as the family wrote it. A brace that
    /// opens no known placeholder is kept as it is.
    /// - Parameters:
    ///   - pattern: the family's pattern, e.g. `{weekday}nachmittag` or `{0} und {1}`.
    ///   - values: the value of each placeholder name.
    /// - Returns: the pattern with each known placeholder replaced by its value.
    public static func fill(_ pattern: String, _ values: [String: String]) -> String {
        var out = ""
        var rest = Substring(pattern)
        while let open = rest.firstIndex(of: "{") {
            out += rest[..<open]
            let afterOpen = rest.index(after: open)
            if let close = rest[afterOpen...].firstIndex(of: "}"), let value = values[String(rest[afterOpen..<close])] {
                out += value
                rest = rest[rest.index(after: close)...]
            } else {
                out += "{"
                rest = rest[afterOpen...]
            }
        }
        return out + rest
    }

    /// Whether a pattern holds each of the named placeholders.
    static func holds(_ pattern: String, _ names: [String]) -> Bool {
        names.allSatisfy { pattern.contains("{\($0)}") }
    }
}
