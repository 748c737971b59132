// Reads the household's `words` (rule 9): each field stands or falls alone. A malformed field is
// reported with the file, the field and why, and falls back to English for that field only; the
// items are laid whatever `words` says. English, not the last good household's words: a word is
// cosmetic and never silences a call (unlike `notifyInOtherApps`, see LastGoodSettings.swift),
// and `daysomectl plan` on the file alone must say what the daemon says.

extension FieldReader {
    /// Reads `words`; English for every field absent, `null` or malformed.
    mutating func words(_ value: JSONValue?) -> Words {
        var words = Words.english
        guard let value, !value.isNull else { return words }
        guard let object = value.objectValue else {
            self.report(nil, "words", "is \(article(value)), not an object; using English")
            return words
        }
        if let weekdays = self.weekdayNames(object["weekdays"]) { words.weekdays = weekdays }
        for (part, name) in self.dayPartNames(object["dayParts"]) { words.dayParts[part] = name }
        if let heading = self.pattern(object["heading"], "words.heading", ["weekday", "dayPart"], words.heading) {
            words.heading = heading
        }
        if let list = object["list"], !list.isNull {
            if let patterns = list.objectValue {
                let pair = self.pattern(patterns["pair"], "words.list.pair", ["0", "1"], words.listPair)
                let middle = self.pattern(patterns["middle"], "words.list.middle", ["0", "1"], words.listMiddle)
                let end = self.pattern(patterns["end"], "words.list.end", ["0", "1"], words.listEnd)
                words.listPair = pair ?? words.listPair
                words.listMiddle = middle ?? words.listMiddle
                words.listEnd = end ?? words.listEnd
            } else {
                self.report(nil, "words.list", "is \(article(list)), not an object; using English")
            }
        }
        words.am = self.name(object["am"], "words.am", words.am) ?? words.am
        words.pm = self.name(object["pm"], "words.pm", words.pm) ?? words.pm
        words.clock12 = self.pattern(object["clock12"], "words.clock12", ["h", "mm"], words.clock12) ?? words.clock12
        return words
    }

    /// Seven non-empty names, Monday first, or nil (reported unless absent).
    private mutating func weekdayNames(_ value: JSONValue?) -> [String]? {
        guard let value, !value.isNull else { return nil }
        let field = "words.weekdays"
        guard let list = value.arrayValue else {
            self.report(nil, field, "is \(article(value)), not a list of seven names; using English")
            return nil
        }
        guard list.count == 7 else {
            self.report(nil, field, "has \(list.count) names, not seven (Monday first); using English")
            return nil
        }
        var names: [String] = []
        for (index, entry) in list.enumerated() {
            guard let name = entry.stringValue, !name.isEmpty else {
                let which = Weekday.allCases[index].englishName
                self.report(nil, field, "\(which)'s name, \(describe(entry)), is not a non-empty string; using English")
                return nil
            }
            names.append(name)
        }
        return names
    }

    /// Each usable name inside `words.dayParts`; a bad one is reported and left out.
    private mutating func dayPartNames(_ value: JSONValue?) -> [(DayPart, String)] {
        guard let value, !value.isNull else { return [] }
        guard let object = value.objectValue else {
            self.report(nil, "words.dayParts", "is \(article(value)), not an object; using English")
            return []
        }
        return DayPart.allCases.compactMap { part in
            self.name(object[part.rawValue], "words.dayParts.\(part.rawValue)", part.rawValue).map { (part, $0) }
        }
    }

    /// A non-empty string, or nil (reported unless absent).
    private mutating func name(_ value: JSONValue?, _ field: String, _ english: String) -> String? {
        guard let value, !value.isNull else { return nil }
        if let text = value.stringValue, !text.isEmpty { return text }
        self.report(nil, field, "\(describe(value)) is not a non-empty string; using English (\(quoted(english)))")
        return nil
    }

    /// A pattern holding each of `placeholders`, or nil (reported unless absent).
    private mutating func pattern(
        _ value: JSONValue?, _ field: String, _ placeholders: [String], _ english: String
    ) -> String? {
        guard let value, !value.isNull else { return nil }
        guard let text = value.stringValue else {
            self.report(nil, field, "is \(article(value)), not a pattern; using English (\(quoted(english)))")
            return nil
        }
        let missing = placeholders.filter { !Words.holds(text, [$0]) }.map { "{\($0)}" }
        guard missing.isEmpty else {
            self.report(
                nil, field,
                "\(quoted(text)) lacks \(missing.joined(separator: " and ")); using English (\(quoted(english)))")
            return nil
        }
        return text
    }
}
