// The family's words: a call speaks the display's language (weekday, day part, list, clock),
// each malformed `words` field falls back to English alone (rule 9), placeholders are filled in
// one pass, and the family's words are never censored (rule 4).

import DaysomeCore
import Testing

/// Parses a household text in UTC that must be usable.
private func parseWordsHousehold(_ text: String) throws -> HouseholdLoad {
    let result = HouseholdParser.parse(
        Array(text.utf8), file: "household.json", zones: { $0 == "UTC" ? .utc : nil }, systemZoneName: "UTC")
    return try result.get()
}

/// A UTC household with lunch and tablets at 13:00 and a drink at 16:00 (no details), and `words`.
private func household(words: String, clock: String = "12h") -> String {
    """
    { "version": 1, "timeZone": "UTC", "clock": "\(clock)", "settings": { "notifyInOtherApps": true },
      "words": \(words),
      "items": [
        { "id": "lunch", "label": "Lunch", "kind": "meal", "time": "13:00", "repeat": "daily" },
        { "id": "tablets", "label": "Tablets", "kind": "other", "time": "13:00", "repeat": "daily" },
        { "id": "tea", "label": "Tea", "kind": "drink", "time": "13:00", "repeat": { "weekdays": ["sun"] } },
        { "id": "drink", "label": "A drink", "kind": "drink", "time": "08:05", "repeat": "daily" }
      ] }
    """
}

/// The first starts of a lay made on Saturday 2026-10-24 at 12:00 UTC: Saturday 13:00 (lunch and
/// tablets), Sunday 08:05 (a drink), Sunday 13:00 (lunch, tablets and tea).
private func firstStarts(_ load: HouseholdLoad) -> [Start] {
    Array(Planner.plan(load.household, from: instant("2026-10-24T12:00:00Z"), days: 2).starts.prefix(3))
}

private let german = """
    { "weekdays": ["Montag", "Dienstag", "Mittwoch", "Donnerstag", "Freitag", "Samstag", "Sonntag"],
      "dayParts": { "morning": "morgen", "afternoon": "nachmittag", "evening": "abend", "night": "nacht" },
      "heading": "{weekday}{dayPart}", "list": { "pair": "{0} und {1}", "middle": "{0}, {1}", "end": "{0} und {1}" },
      "am": "vorm.", "pm": "nachm.", "clock12": "{h}.{mm} Uhr {ampm}" }
    """

@Suite("The family's words")
struct WordsTests {
    @Test("The family's words for weekday and day part make the heading, in the family's order")
    func familysWordsForWeekdayAndDayPart() throws {
        let starts = firstStarts(try parseWordsHousehold(household(words: german)))
        #expect(starts.map(\.heading) == ["Samstagnachmittag", "Sonntagmorgen", "Sonntagnachmittag"])

        let french = try parseWordsHousehold(
            household(
                words: """
                    { "weekdays": ["lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi", "dimanche"],
                      "dayParts": { "afternoon": "l'après-midi" }, "heading": "{dayPart} du {weekday}" }
                    """))
        // Only the afternoon is named: the morning falls back to English on its own.
        #expect(
            firstStarts(french).map(\.heading) == [
                "l'après-midi du samedi", "morning du dimanche", "l'après-midi du dimanche",
            ])
        #expect(french.problems.isEmpty)
    }

    @Test("The family's words for the list join the labels as CLDR list patterns do")
    func familysWordsForTheList() throws {
        let starts = firstStarts(try parseWordsHousehold(household(words: german)))
        #expect(starts.map(\.title) == ["Lunch und Tablets", "A drink", "Lunch, Tablets und Tea"])

        var words = Words.english
        (words.listPair, words.listMiddle, words.listEnd) = ("{0}と{1}", "{0}、{1}", "{0}、{1}")
        #expect(Content.title(["昼ご飯", "薬"], words: words) == "昼ご飯と薬")
        #expect(Content.title(["晩ご飯", "薬", "お茶", "水"], words: words) == "晩ご飯、薬、お茶、水")
        (words.listPair, words.listMiddle, words.listEnd) = ("{0} i {1}", "{0}, {1}", "{0} i {1}")
        #expect(Content.title(["Obiad", "tabletki", "herbata"], words: words) == "Obiad, tabletki i herbata")
        #expect(Content.title(["Obiad"], words: words) == "Obiad")
        // Four labels: the end pattern joins the last two, the middle pattern adds each earlier one.
        (words.listMiddle, words.listEnd) = ("{0} / {1}", "{0} + {1}")
        #expect(Content.title(["A", "B", "C", "D"], words: words) == "A / B / C + D")
    }

    @Test("The family's words for the clock: markers and their place in a 12-hour time")
    func familysWordsForTheClock() throws {
        let starts = firstStarts(try parseWordsHousehold(household(words: german)))
        #expect(starts.map(\.body) == ["1.00 Uhr nachm.", "8.05 Uhr vorm.", "1.00 Uhr nachm."])

        var words = Words.english
        (words.am, words.pm, words.clock12) = ("午前", "午後", "{ampm}{h}:{mm}")
        #expect(Content.clock(time("00:30"), style: .twelveHour, words: words) == "午前12:30")
        #expect(Content.clock(time("12:00"), style: .twelveHour, words: words) == "午後12:00")
        #expect(Content.clock(time("21:30"), style: .twelveHour, words: words) == "午後9:30")
        // A 24-hour household writes 13:00 whatever its 12-hour words say.
        #expect(Content.clock(time("13:00"), style: .twentyFourHour, words: words) == "13:00")
        let twentyFour = firstStarts(try parseWordsHousehold(household(words: german, clock: "24h")))
        #expect(twentyFour.map(\.body) == ["13:00", "08:05", "13:00"])
    }

    @Test("The English words give exactly the English text, and a file without words is English")
    func englishWordsAreTheDefault() throws {
        let load = try parseWordsHousehold(household(words: "null"))
        #expect(load.household.words == .english)
        let starts = firstStarts(load)
        #expect(starts.map(\.heading) == ["Saturday afternoon", "Sunday morning", "Sunday afternoon"])
        #expect(starts.map(\.title) == ["Lunch and Tablets", "A drink", "Lunch, Tablets and Tea"])
        #expect(starts.map(\.body) == ["1:00 pm", "8:05 am", "1:00 pm"])
        let empty = try parseWordsHousehold(household(words: "{}"))
        #expect(empty.household.words == .english && empty.problems.isEmpty)
    }

    @Test("Placeholders are filled in one pass: a label or word holding {0} stays as written")
    func placeholdersAreFilledInOnePass() throws {
        var words = Words.english
        (words.listPair, words.listMiddle, words.listEnd) = ("{0} und {1}", "{0}, {1}", "{0} und {1}")
        #expect(Content.title(["{1}", "{0}"], words: words) == "{1} und {0}")
        #expect(Content.title(["{0}", "{1}", "{weekday}"], words: words) == "{0}, {1} und {weekday}")
        words.weekdays[5] = "{dayPart}"
        words.dayParts[.afternoon] = "{weekday}"
        #expect(
            Content.heading(date: date("2026-10-24"), time: time("13:00"), dayParts: DayParts(), words: words)
                == "{dayPart} {weekday}")
        (words.am, words.pm) = ("{h}", "{mm}")
        #expect(Content.clock(time("13:05"), style: .twelveHour, words: words) == "1:05 {mm}")
        // A brace that opens no placeholder is the family's text too.
        #expect(Words.fill("{{0}} {x} {1", ["0": "A", "1": "B"]) == "{A} {x} {1")
    }

    @Test("Only the family's words: their words are never censored, English composed text stays clean")
    func theFamilysWordsAreNeverCensored() throws {
        let load = try parseWordsHousehold(
            household(
                words: """
                    { "dayParts": { "afternoon": "late afternoon" }, "list": { "pair": "{0}, then the pills: {1}" },
                      "pm": "medication time" }
                    """))
        #expect(load.problems.isEmpty)
        let first = try #require(firstStarts(load).first)
        #expect(first.heading == "Saturday late afternoon")
        #expect(first.title == "Lunch, then the pills: Tablets")
        #expect(first.body == "1:00 medication time")
        // What the daemon composes in English alone never holds a forbidden word.
        for start in firstStarts(try parseWordsHousehold(household(words: "null"))) {
            for text in [start.heading, start.title, start.body] { #expect(Content.forbiddenWords(in: text).isEmpty) }
        }
    }
}
