// A real call in a non-Latin script: the real daysomed, on a private session bus, posts to dunst
// under Xvfb, and the summary and body dunst received (read back from dunst's own history, not
// from our log) are exactly the text composed with the household's words: Japanese without
// spaces, Arabic right to left, each with its 12-hour clock in the household's style.

import DaysomeCore
import DaysomeTestSupport
import Testing

/// A language's words, three labels in it, and how the test itself (not the daemon) says a call.
struct FamilyLanguage: CustomTestStringConvertible, Sendable {
    let name: String
    /// The household's `words` object.
    let words: String
    let labels: [String]
    /// The expected title of the three labels together.
    let title: String
    let weekdays: [String]
    /// morning, afternoon, evening, night.
    let dayParts: [String]
    let heading: @Sendable (_ weekday: String, _ dayPart: String) -> String
    let clock: @Sendable (_ hour: Int, _ minute: String, _ pm: Bool) -> String

    var testDescription: String { self.name }
}

private let japanese = FamilyLanguage(
    name: "Japanese",
    words: """
        { "weekdays": ["月曜日", "火曜日", "水曜日", "木曜日", "金曜日", "土曜日", "日曜日"],
          "dayParts": { "morning": "朝", "afternoon": "午後", "evening": "夕方", "night": "夜" },
          "heading": "{weekday}の{dayPart}", "list": { "pair": "{0}と{1}", "middle": "{0}、{1}", "end": "{0}、{1}" },
          "am": "午前", "pm": "午後", "clock12": "{ampm}{h}:{mm}" }
        """,
    labels: ["昼ご飯", "お薬", "お茶"], title: "昼ご飯、お薬、お茶",
    weekdays: ["月曜日", "火曜日", "水曜日", "木曜日", "金曜日", "土曜日", "日曜日"], dayParts: ["朝", "午後", "夕方", "夜"],
    heading: { $0 + "の" + $1 }, clock: { ($2 ? "午後" : "午前") + "\($0):" + $1 })

private let arabic = FamilyLanguage(
    name: "Arabic",
    words: """
        { "weekdays": ["الاثنين", "الثلاثاء", "الأربعاء", "الخميس", "الجمعة", "السبت", "الأحد"],
          "dayParts": { "morning": "صباحًا", "afternoon": "بعد الظهر", "evening": "مساءً", "night": "ليلًا" },
          "list": { "pair": "{0} و{1}", "middle": "{0}، {1}", "end": "{0} و{1}" }, "am": "ص", "pm": "م" }
        """,
    labels: ["الغداء", "الدواء", "شاي"], title: "الغداء، الدواء وشاي",
    weekdays: ["الاثنين", "الثلاثاء", "الأربعاء", "الخميس", "الجمعة", "السبت", "الأحد"],
    dayParts: ["صباحًا", "بعد الظهر", "مساءً", "ليلًا"],
    heading: { $0 + " " + $1 }, clock: { "\($0):" + $1 + ($2 ? " م" : " ص") })

/// A UTC household on a 12-hour clock with the three labels (no details) at `minute`.
private func household(_ language: FamilyLanguage, at minute: Int64) throws -> String {
    let time = try clockTime(minute, zone: "UTC")
    let items = language.labels.enumerated().map { index, label in
        #"{ "id": "item-\#(index)", "label": \#(jsonQuoted(label)), "kind": "meal", "time": "\#(time)", "repeat": "daily" }"#
    }
    return """
        { "version": 1, "timeZone": "UTC", "clock": "12h", "settings": { "notifyInOtherApps": true },
          "words": \(language.words),
          "items": [ \(items.joined(separator: ", ")) ] }

        """
}

@Suite("A call in the family's own language, on a real notification server", .timeLimit(.minutes(4)))
struct FamilyWordsIntegrationTests {
    // real-process twin of EmbeddedTests.StatusWordsTests.onlyTheFamilysWordsNothingStatusComposesHoldsAForbiddenWordInAnyState (rule 4)
    @Test(
        "The notification server receives exactly the summary and body composed in the family's words",
        arguments: [japanese, arabic])
    func theServerReceivesTheFamilysWords(_ language: FamilyLanguage) async throws {
        let session = try await TestWorld.start([.sessionBus, .notificationServer])
        defer { session.stop() }
        let minute = nextMinute(leaving: 5)
        try replaceFile(session.household, try household(language, at: minute))
        try await session.startDaemon()
        try await session.expectQueued(at: minute)

        // What the test expects, worked out here from the minute (UTC; 1970-01-01 was a Thursday).
        let weekday = language.weekdays[Int((minute / 86_400 + 3) % 7)]
        let hour = Int(minute % 86_400 / 3_600)
        let minutes = Int(minute % 3_600 / 60)
        let part = hour >= 21 || hour < 5 ? 3 : hour >= 17 ? 2 : hour >= 12 ? 1 : 0
        let heading = language.heading(weekday, language.dayParts[part])
        let clock = language.clock(
            hour % 12 == 0 ? 12 : hour % 12, minutes < 10 ? "0\(minutes)" : "\(minutes)", hour >= 12)
        let planned = try await session.plannedStart(at: minute)
        #expect(planned.title == language.title)
        #expect(planned.heading == heading)
        #expect(planned.body == clock)

        _ = try #require(
            try await session.firstShown(after: minute),
            "nothing shown by \(rfc3339(minute)) + 10 s: \(session.daemonStderr)")
        #expect(try await session.dunstctl(["close-all"]).status == 0)
        let shown = try await poll("dunst's history to hold the call", timeout: 3) {
            try await session.shownHistory().first { $0.appName == "Daysome" }
        }
        #expect(shown.summary == language.title)
        #expect(shown.body == heading + "\n" + clock)
        #expect(shown.visibleText == language.title + "\n" + heading + "\n" + clock)
        print("[IntegrationTests] \(language.name): dunst received \(shown)")
    }
}
