// Reads each field of a household file, recording a problem for every value it cannot use.
// Required item fields (id, label, kind, time, repeat) skip the item; optional ones (end,
// detail, sound) and household-level settings fall back to their default: a cosmetic mistake
// never silences a call.

/// Collects problems while reading fields.
struct FieldReader {
    let file: String
    private(set) var problems: [HouseholdProblem] = []

    init(file: String) {
        self.file = file
    }

    mutating func report(_ itemId: String?, _ field: String?, _ message: String) {
        self.problems.append(HouseholdProblem(file: self.file, itemId: itemId, field: field, message: message))
    }

    // MARK: Household-level fields

    mutating func clockStyle(_ value: JSONValue?) -> ClockStyle {
        guard let value, !value.isNull else { return .twelveHour }
        if let text = value.stringValue, let style = ClockStyle(rawValue: text) { return style }
        self.report(nil, "clock", "\(describe(value)) is not \"12h\" or \"24h\"; using 12h")
        return .twelveHour
    }

    mutating func settings(_ value: JSONValue?) -> Settings {
        var settings = Settings()
        guard let value, !value.isNull else { return settings }
        guard let object = value.objectValue else {
            self.report(nil, "settings", "is \(article(value)), not an object; using the defaults")
            return settings
        }
        settings.notifyInOtherApps = self.flag(object["notifyInOtherApps"], "settings.notifyInOtherApps", false)
        settings.bringDayBack = self.flag(object["bringDayBack"], "settings.bringDayBack", false)
        settings.exactAlarms = self.flag(object["exactAlarms"], "settings.exactAlarms", true)
        if let respect = object["respectDoNotDisturb"], !respect.isNull {
            settings.respectDoNotDisturb = self.flag(respect, "settings.respectDoNotDisturb", false)
        }
        if let chime = object["chime"], !chime.isNull {
            if let text = chime.stringValue, let parsed = Chime(rawValue: text) {
                settings.chime = parsed
            } else {
                self.report(nil, "settings.chime", "\(describe(chime)) is not \"bell\" or \"off\"; using bell")
            }
        }
        return settings
    }

    private mutating func flag(_ value: JSONValue?, _ field: String, _ fallback: Bool) -> Bool {
        guard let value, !value.isNull else { return fallback }
        if let flag = value.boolValue { return flag }
        self.report(nil, field, "is \(article(value)), not true or false; using \(fallback)")
        return fallback
    }

    mutating func dayParts(_ value: JSONValue?) -> DayParts {
        var parts = DayParts()
        guard let value, !value.isNull else { return parts }
        guard let object = value.objectValue else {
            self.report(nil, "dayParts", "is \(article(value)), not an object; using the defaults")
            return parts
        }
        func read(_ key: String, _ current: ClockTime, into reader: inout FieldReader) -> ClockTime {
            guard let value = object[key], !value.isNull else { return current }
            if let text = value.stringValue, let time = ClockTime(hhmm: text) { return time }
            reader.report(nil, "dayParts.\(key)", "\(describe(value)) is not a 24-hour HH:MM time; using \(current)")
            return current
        }
        let candidate = (
            read("morning", parts.morning, into: &self), read("afternoon", parts.afternoon, into: &self),
            read("evening", parts.evening, into: &self), read("night", parts.night, into: &self)
        )
        guard candidate.0 < candidate.1, candidate.1 < candidate.2, candidate.2 < candidate.3 else {
            self.report(
                nil, "dayParts", "the parts are not in order morning < afternoon < evening < night; using the defaults")
            return parts
        }
        (parts.morning, parts.afternoon, parts.evening, parts.night) = candidate
        return parts
    }

    mutating func mealChoices(_ value: JSONValue?) -> [LocalDate: [String: String]] {
        guard let value, !value.isNull else { return [:] }
        guard let object = value.objectValue else {
            self.report(nil, "mealChoices", "is \(article(value)), not an object; ignored")
            return [:]
        }
        var choices: [LocalDate: [String: String]] = [:]
        for (key, dayValue) in object.members {
            guard let date = LocalDate(iso: key) else {
                self.report(nil, "mealChoices", "\(quoted(key)) is not a YYYY-MM-DD date; ignored")
                continue
            }
            guard let day = dayValue.objectValue else {
                self.report(nil, "mealChoices.\(key)", "is \(article(dayValue)), not an object; ignored")
                continue
            }
            for (itemId, choice) in day.members {
                if let text = choice.stringValue, !text.isEmpty, text.count <= 200 {
                    choices[date, default: [:]][itemId] = text
                } else if !choice.isNull {
                    self.report(itemId, "mealChoices.\(key)", "is not text of 1 to 200 characters; ignored")
                }
            }
        }
        return choices
    }

    // MARK: Items

    /// Reads one item, or nil (with a problem recorded) when a required field is bad.
    mutating func item(_ value: JSONValue, index: Int, seen: Set<String>) -> Item? {
        let position = "items[\(index)]"
        guard let object = value.objectValue else {
            self.report(nil, position, "is \(article(value)), not an object; item skipped")
            return nil
        }
        guard let idValue = object["id"], let id = idValue.stringValue, isValidItemId(id) else {
            let what = object["id"].map(describe) ?? "missing"
            self.report(nil, "\(position).id", "\(what) is not 1-64 of a-z, 0-9 and '-'; item skipped")
            return nil
        }
        guard !seen.contains(id) else {
            self.report(id, "id", "a second item has the same id (\(position)); item skipped")
            return nil
        }
        guard let labelValue = object["label"], let label = labelValue.stringValue, (1...200).contains(label.count)
        else {
            let what =
                object["label"].map {
                    $0.stringValue == nil ? describe($0) : "a label of \($0.stringValue!.count) characters"
                } ?? "missing"
            self.report(id, "label", "\(what) is not text of 1 to 200 characters; item skipped")
            return nil
        }
        guard let kindValue = object["kind"], let kindText = kindValue.stringValue,
            let kind = ItemKind(rawValue: kindText)
        else {
            let what = object["kind"].map(describe) ?? "missing"
            self.report(id, "kind", "\(what) is not meal, drink, visitor, other or dayShape; item skipped")
            return nil
        }
        guard let timeValue = object["time"], let timeText = timeValue.stringValue,
            let time = ClockTime(hhmm: timeText)
        else {
            let what = object["time"].map(describe) ?? "missing"
            self.report(id, "time", "\(what) is not a 24-hour HH:MM time; item skipped")
            return nil
        }
        guard let repeats = self.repeats(object["repeat"], id: id) else { return nil }

        var end: ClockTime?
        if let endValue = object["end"], !endValue.isNull {
            if let text = endValue.stringValue, let parsed = ClockTime(hhmm: text) {
                // Whether the end is after the start is decided per date, between instants (rule 8):
                // on a date whose clock goes forward, an end earlier on the clock can land after it.
                if parsed <= time {
                    self.report(
                        id, "end",
                        "\(parsed) is not after its time \(time); the card ends at the next item, except on a date whose clock change puts \(parsed) after \(time)"
                    )
                }
                end = parsed
            } else {
                self.report(id, "end", "\(describe(endValue)) is not a 24-hour HH:MM time; ignored")
            }
        }
        var detail: String?
        if let detailValue = object["detail"], !detailValue.isNull {
            if let text = detailValue.stringValue, text.count <= 200 {
                detail = text.isEmpty ? nil : text
            } else {
                self.report(id, "detail", "is not text of up to 200 characters; ignored")
            }
        }
        var sound: Bool?
        if let soundValue = object["sound"], !soundValue.isNull {
            if let flag = soundValue.boolValue {
                sound = flag
            } else {
                self.report(
                    id, "sound", "is \(article(soundValue)), not true or false; using the default for \(kind.rawValue)")
            }
        }
        return Item(
            id: id, label: label, detail: detail, kind: kind, time: time, end: end, sound: sound, repeats: repeats)
    }

    private mutating func repeats(_ value: JSONValue?, id: String) -> Repeat? {
        func fail(_ message: String, into reader: inout FieldReader) -> Repeat? {
            reader.report(id, "repeat", message + "; item skipped")
            return nil
        }
        guard let value, !value.isNull else { return fail("is missing", into: &self) }
        if let text = value.stringValue {
            return text == "daily"
                ? .daily
                : fail("\(quoted(text)) is not \"daily\", {\"weekdays\": […]} or {\"dates\": […]}", into: &self)
        }
        guard let object = value.objectValue else {
            return fail("is \(article(value)), not \"daily\" or an object", into: &self)
        }
        if let weekdays = object["weekdays"] {
            guard let list = weekdays.arrayValue, !list.isEmpty else {
                return fail("'weekdays' must be a non-empty list of mon..sun", into: &self)
            }
            var days: Set<Weekday> = []
            for entry in list {
                guard let text = entry.stringValue, let day = Weekday(rawValue: text) else {
                    return fail(
                        "'weekdays' has \(describe(entry)), not one of mon, tue, wed, thu, fri, sat, sun", into: &self)
                }
                days.insert(day)
            }
            return .weekdays(days)
        }
        if let datesValue = object["dates"] {
            guard let list = datesValue.arrayValue, !list.isEmpty else {
                return fail("'dates' must be a non-empty list of YYYY-MM-DD dates", into: &self)
            }
            var dates: Set<LocalDate> = []
            for entry in list {
                guard let text = entry.stringValue, let date = LocalDate(iso: text) else {
                    return fail("'dates' has \(describe(entry)), not a YYYY-MM-DD date", into: &self)
                }
                dates.insert(date)
            }
            return .dates(dates)
        }
        return fail("has neither 'weekdays' nor 'dates'", into: &self)
    }
}

/// 1-64 of `a-z 0-9 -`.
public func isValidItemId(_ id: String) -> Bool {
    let bytes = id.utf8
    guard (1...64).contains(bytes.count) else { return false }
    return bytes.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D }
}

/// A known field's value for an error line: strings quoted and shortened, other types named.
func describe(_ value: JSONValue) -> String {
    if let text = value.stringValue { return quoted(text) }
    return article(value)
}
