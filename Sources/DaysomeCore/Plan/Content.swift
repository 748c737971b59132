// The words of a call: heading, title, body and clock times. Rule 4: the only words the
// daemon adds are weekday and day-part names, "and", list punctuation and clock times, in
// English unless the household's `words` give the family's own; the family's labels, details
// and words pass through untouched, whatever they say.

/// Composes the text of a start.
public enum Content {
    /// `Friday afternoon`: the weekday of the local date and the part of the day, in the
    /// household's words (`Samstagnachmittag`, `土曜日の午後`).
    public static func heading(
        date: LocalDate, time: ClockTime, dayParts: DayParts, words: Words = .english
    ) -> String {
        self.heading(weekday: date.weekday, part: dayParts.part(at: time), words: words)
    }

    /// The heading of a weekday's part of the day.
    static func heading(weekday: Weekday, part: DayPart, words: Words) -> String {
        Words.fill(words.heading, ["weekday": words.name(of: weekday), "dayPart": words.name(of: part)])
    }

    /// Labels joined as the household's lists are; in English `Lunch`, `Lunch and Tablets`,
    /// `Lunch, Tablets and Drink`.
    public static func title(_ labels: [String], words: Words = .english) -> String {
        words.list(labels)
    }

    /// The details joined with ` · `, or the clock time when no item has one.
    public static func body(
        details: [String?], time: ClockTime, clock: ClockStyle, words: Words = .english
    ) -> String {
        let present = details.compactMap { $0 }
        return present.isEmpty ? self.clock(time, style: clock, words: words) : present.joined(separator: " · ")
    }

    /// A clock time in the household's style: `1:00 pm`, `12:30 am` (or the household's
    /// `clock12` pattern and markers: `午後1:00`); or `13:00`, `09:05`.
    public static func clock(_ time: ClockTime, style: ClockStyle, words: Words = .english) -> String {
        switch style {
        case .twentyFourHour:
            return time.description
        case .twelveHour:
            let hour = time.hour % 12 == 0 ? 12 : time.hour % 12
            return Words.fill(
                words.clock12,
                ["h": String(hour), "mm": twoDigits(Int64(time.minute)), "ampm": time.hour < 12 ? words.am : words.pm])
        }
    }

    /// Rule 4: words the daemon's own text never contains, as a whole word in any case.
    public static let forbiddenWords: Set<String> = [
        "missed", "overdue", "late", "reminder", "pill", "pills", "dose", "medication", "medicine",
    ]

    /// The forbidden words that appear in a text as whole words (letters delimit words).
    public static func forbiddenWords(in text: String) -> [String] {
        var found: [String] = []
        var word = ""
        for character in text.lowercased() + " " {
            if character.isLetter {
                word.append(character)
            } else {
                if Self.forbiddenWords.contains(word) && !found.contains(word) { found.append(word) }
                word = ""
            }
        }
        return found
    }

    /// `&`, `<`, `>` escaped for a notification server that reads body markup.
    public static func markupEscaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            default: out.append(character)
            }
        }
        return out
    }
}
