// The words travel with the household through the daemon's machine: a file with new words is a
// changed household (a new lay, in those words); a file that cannot be used keeps the last good
// household's words with it (rule 9); a malformed words field in a usable file is English for
// that field, not the last good file's word (what `plan` on the file alone shows).

import DaysomeCore
import Testing

/// A London household with lunch at `time` and `words`, read as the daemon reads it.
private func lunch(at time: String, words: String) throws -> HouseholdLoad {
    try #require(
        success(
            parse(
                """
                { "version": 1, "timeZone": "Europe/London", "settings": { "notifyInOtherApps": true },
                  "words": \(words),
                  "items": [ { "id": "lunch", "label": "Obiad", "kind": "meal", "time": "\(time)", "repeat": "daily" } ] }
                """)))
}

private let polish = """
    { "weekdays": ["Poniedziałek", "Wtorek", "Środa", "Czwartek", "Piątek", "Sobota", "Niedziela"],
      "dayParts": { "afternoon": "po południu" }, "pm": "po poł." }
    """

@Suite("The family's words in the daemon's machine")
struct WordsMachineTests {
    @Test("New words are a changed household: a new lay whose calls speak them")
    func newWordsMakeANewLay() throws {
        var daemon = VirtualDaemon(lunchAndTea(), now: instant("2026-06-01T08:00:00Z"), display: .away)
        #expect(daemon.machine.pendingStarts.first?.start.heading == "Monday afternoon")
        let polishLunch = try lunch(at: "13:00", words: polish)
        daemon.send(.household(.success(LoadedHousehold(load: polishLunch, digest: 2, loadedAt: daemon.now))))
        #expect(daemon.machine.currentLay?.number == 2)
        let first = try #require(daemon.machine.pendingStarts.first?.start)
        #expect(first.heading == "Poniedziałek po południu")
        #expect(first.body == "1:00 po poł.")
    }

    @Test("A bad file never silences lunch: a file that cannot be used keeps the last good household's words")
    func anUnusableFileKeepsTheLastGoodWords() throws {
        var daemon = VirtualDaemon(lunchAndTea(), now: instant("2026-06-01T08:00:00Z"), display: .away)
        daemon.send(
            .household(
                .success(LoadedHousehold(load: try lunch(at: "13:00", words: polish), digest: 2, loadedAt: daemon.now)))
        )
        daemon.send(.household(.failure(HouseholdFileError(file: "household.json", reason: .badVersion))))
        #expect(daemon.machine.currentLay?.number == 2)
        #expect(daemon.machine.pendingStarts.first?.start.heading == "Poniedziałek po południu")
    }

    @Test("A malformed words field in a new file is English for that field, not the last good file's word")
    func aMalformedFieldIsEnglishNotTheLastGoodWord() throws {
        var daemon = VirtualDaemon(lunchAndTea(), now: instant("2026-06-01T08:00:00Z"), display: .away)
        daemon.send(
            .household(
                .success(LoadedHousehold(load: try lunch(at: "13:00", words: polish), digest: 2, loadedAt: daemon.now)))
        )
        // The weekdays lose Sunday; the day part and the marker stand.
        let broken = try lunch(
            at: "13:00",
            words: """
                { "weekdays": ["Poniedziałek", "Wtorek", "Środa", "Czwartek", "Piątek", "Sobota"],
                  "dayParts": { "afternoon": "po południu" }, "pm": "po poł." }
                """)
        #expect(broken.problems.map(\.field) == ["words.weekdays"])
        daemon.send(.household(.success(LoadedHousehold(load: broken, digest: 3, loadedAt: daemon.now))))
        #expect(daemon.machine.currentLay?.number == 3)
        let first = try #require(daemon.machine.pendingStarts.first?.start)
        #expect(first.heading == "Monday po południu")
        #expect(first.body == "1:00 po poł.")
        // Reported as the file said it, with no claim of keeping anything.
        let problems = daemon.machine.household?.load.problems.map(\.description) ?? []
        #expect(
            problems.count == 1 && problems[0].contains("field 'words.weekdays'")
                && problems[0].hasSuffix("using English"))
    }
}
