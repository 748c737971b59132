// Rule 9 for `words`: a malformed field is reported with the file, the field and why, and falls
// back to English for that field alone; the other words stand and every item is still laid.

import DaysomeCore
import Testing

/// The German words of the fallback cases, field by field, as the file writes them.
private let germanFields: [(key: String, json: String)] = [
    ("weekdays", #"["Montag", "Dienstag", "Mittwoch", "Donnerstag", "Freitag", "Samstag", "Sonntag"]"#),
    ("dayParts", #"{ "morning": "morgen", "afternoon": "nachmittag", "evening": "abend", "night": "nacht" }"#),
    ("heading", #""{weekday}{dayPart}""#),
    ("list", #"{ "pair": "{0} und {1}", "middle": "{0}; {1}", "end": "{0} sowie {1}" }"#),
    ("am", #""vorm.""#),
    ("pm", #""nachm.""#),
    ("clock12", #""{h}.{mm} {ampm}""#),
]

/// The same words as parsed.
private let germanWords = Words(
    weekdays: ["Montag", "Dienstag", "Mittwoch", "Donnerstag", "Freitag", "Samstag", "Sonntag"],
    dayParts: [.morning: "morgen", .afternoon: "nachmittag", .evening: "abend", .night: "nacht"],
    heading: "{weekday}{dayPart}", listPair: "{0} und {1}", listMiddle: "{0}; {1}", listEnd: "{0} sowie {1}",
    am: "vorm.", pm: "nachm.", clock12: "{h}.{mm} {ampm}")

/// One malformed field: what the file says instead, the field reported, and the words expected.
private struct Case: CustomTestStringConvertible, Sendable {
    let key: String
    let json: String
    let field: String
    let fallback: @Sendable (inout Words) -> Void
    var testDescription: String { "\(self.field) = \(self.json)" }
}

private let english = Words.english

private let cases: [Case] = [
    Case(key: "weekdays", json: #"["Mo", "Di", "Mi", "Do", "Fr", "Sa"]"#, field: "words.weekdays") {
        $0.weekdays = english.weekdays
    },
    Case(key: "weekdays", json: #"["Mo", "Di", "Mi", "Do", "Fr", "Sa", ""]"#, field: "words.weekdays") {
        $0.weekdays = english.weekdays
    },
    Case(key: "weekdays", json: #"["Mo", "Di", "Mi", "Do", "Fr", "Sa", 7]"#, field: "words.weekdays") {
        $0.weekdays = english.weekdays
    },
    Case(key: "weekdays", json: #""Montag""#, field: "words.weekdays") { $0.weekdays = english.weekdays },
    Case(key: "dayParts", json: #"["morgen"]"#, field: "words.dayParts") { $0.dayParts = english.dayParts },
    Case(
        key: "dayParts", json: #"{ "morning": "", "afternoon": "nachmittag", "evening": "abend", "night": "nacht" }"#,
        field: "words.dayParts.morning"
    ) { $0.dayParts[.morning] = "morning" },
    Case(
        key: "dayParts", json: #"{ "morning": "morgen", "afternoon": "nachmittag", "evening": "abend", "night": 9 }"#,
        field: "words.dayParts.night"
    ) { $0.dayParts[.night] = "night" },
    Case(key: "heading", json: #""{weekday}""#, field: "words.heading") { $0.heading = english.heading },
    Case(key: "heading", json: #""{dayPart} {Weekday}""#, field: "words.heading") { $0.heading = english.heading },
    Case(key: "heading", json: #"["{weekday}", "{dayPart}"]"#, field: "words.heading") {
        $0.heading = english.heading
    },
    Case(key: "list", json: #""und""#, field: "words.list") {
        ($0.listPair, $0.listMiddle, $0.listEnd) = (english.listPair, english.listMiddle, english.listEnd)
    },
    Case(
        key: "list", json: #"{ "pair": "{0} und", "middle": "{0}; {1}", "end": "{0} sowie {1}" }"#,
        field: "words.list.pair"
    ) { $0.listPair = english.listPair },
    Case(
        key: "list", json: #"{ "pair": "{0} und {1}", "middle": "{1}", "end": "{0} sowie {1}" }"#,
        field: "words.list.middle"
    ) { $0.listMiddle = english.listMiddle },
    Case(
        key: "list", json: #"{ "pair": "{0} und {1}", "middle": "{0}; {1}", "end": true }"#, field: "words.list.end"
    ) { $0.listEnd = english.listEnd },
    Case(key: "am", json: #""""#, field: "words.am") { $0.am = english.am },
    Case(key: "pm", json: "12", field: "words.pm") { $0.pm = english.pm },
    Case(key: "clock12", json: #""{h} Uhr {ampm}""#, field: "words.clock12") { $0.clock12 = english.clock12 },
    Case(key: "clock12", json: #""{mm} nach {ampm}""#, field: "words.clock12") { $0.clock12 = english.clock12 },
]

/// A household with one lunch and the German words, `key` written as `json` instead.
private func household(replacing key: String, with json: String) -> String {
    let fields = germanFields.map { "\"\($0.key)\": \($0.key == key ? json : $0.json)" }
    return """
        { "version": 1, "timeZone": "UTC", "settings": { "notifyInOtherApps": true },
          "words": { \(fields.joined(separator: ", ")) },
          "items": [ { "id": "lunch", "label": "Lunch", "kind": "meal", "time": "13:00", "repeat": "daily" } ] }
        """
}

private func parseGerman(_ text: String) throws -> HouseholdLoad {
    try HouseholdParser.parse(
        Array(text.utf8), file: "/home/anna/household.json", zones: { $0 == "UTC" ? .utc : nil },
        systemZoneName: "UTC"
    ).get()
}

@Suite("Rule 9 for the family's words")
struct WordsFallbackTests {
    @Test("The German words of the fallback cases read as written, with no problem")
    func theWordsReadAsWritten() throws {
        let load = try parseGerman(household(replacing: "", with: ""))
        #expect(load.problems.isEmpty)
        #expect(load.household.words == germanWords)
    }

    @Test(
        "Each malformed words field is reported and falls back to English alone; the items are laid", arguments: cases)
    private func eachMalformedFieldFallsBackAlone(_ bad: Case) throws {
        let load = try parseGerman(household(replacing: bad.key, with: bad.json))
        var expected = germanWords
        bad.fallback(&expected)
        #expect(load.household.words == expected)
        #expect(load.problems.count == 1, "\(load.problems)")
        let problem = try #require(load.problems.first)
        #expect(problem.file == "/home/anna/household.json")
        #expect(problem.itemId == nil)
        #expect(problem.field == bad.field)
        #expect(problem.message.contains("using English"), "\(problem.message)")
        #expect(problem.description.hasPrefix("/home/anna/household.json: field '\(bad.field)': "))
        // Lunch is still laid, in the words that stood.
        let plan = Planner.plan(load.household, from: instant("2026-10-24T12:00:00Z"), days: 1)
        #expect(plan.starts.map(\.itemIds) == [["lunch"]])
    }

    @Test("A words value that is not an object is reported and the whole of words is English")
    func wordsNotAnObject() throws {
        for json in [#""Deutsch""#, "[]", "7"] {
            let text = """
                { "version": 1, "timeZone": "UTC", "words": \(json),
                  "items": [ { "id": "lunch", "label": "Lunch", "kind": "meal", "time": "13:00", "repeat": "daily" } ] }
                """
            let load = try parseGerman(text)
            #expect(load.household.words == .english)
            #expect(load.problems.map(\.field) == ["words"])
            #expect(load.household.items.count == 1)
        }
    }

    @Test("A malformed words field never makes the household unusable, even with every field wrong")
    func everyFieldWrongStillLays() throws {
        let text = """
            { "version": 1, "timeZone": "UTC", "settings": { "notifyInOtherApps": true },
              "words": { "weekdays": [], "dayParts": { "morning": 1, "afternoon": 2, "evening": 3, "night": 4 },
                         "heading": "", "list": { "pair": "", "middle": "", "end": "" }, "am": null, "pm": "",
                         "clock12": "{ampm}" },
              "items": [ { "id": "lunch", "label": "Lunch", "kind": "meal", "time": "13:00", "repeat": "daily" } ] }
            """
        let load = try parseGerman(text)
        #expect(load.household.words == .english)
        #expect(
            load.problems.map(\.field) == [
                "words.weekdays", "words.dayParts.morning", "words.dayParts.afternoon", "words.dayParts.evening",
                "words.dayParts.night", "words.heading", "words.list.pair", "words.list.middle", "words.list.end",
                "words.pm", "words.clock12",
            ])
        let start = try #require(
            Planner.plan(load.household, from: instant("2026-10-24T12:00:00Z"), days: 1).starts.first)
        #expect(start.heading == "Saturday afternoon" && start.title == "Lunch" && start.body == "1:00 pm")
    }
}
