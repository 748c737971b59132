// The plan as the contract prints it, and rule 4 on every string the core composes.

import DaysomeCore
import DaysomeFiles
import Testing

@Suite("Plan contract")
struct PlanContractTests {
    @Test("The design's example household gives the design's first two starts, to the character")
    func designExample() throws {
        let load = loadFixture("households/design-example.json")
        let plan = Planner.plan(load.household, from: instant("2026-10-24T11:00:00Z"))
        #expect(plan.from.rfc3339 == "2026-10-24T11:00:00Z")
        #expect(plan.until.rfc3339 == "2026-10-31T11:00:00Z")
        let first = try #require(plan.starts.first).json.serialized()
        #expect(
            first
                == #"{"at":"2026-10-24T12:00:00Z","local":"2026-10-24T13:00:00+01:00","itemIds":["lunch"],"heading":"Saturday afternoon","title":"Lunch","body":"Soup and a roll","expiresAt":"2026-10-24T12:45:00Z"}"#
        )
        let second = plan.starts[1].json.serialized()
        #expect(
            second
                == #"{"at":"2026-10-25T13:00:00Z","local":"2026-10-25T13:00:00+00:00","itemIds":["lunch"],"heading":"Sunday afternoon","title":"Lunch","body":"Soup and a roll","expiresAt":"2026-10-25T13:45:00Z"}"#
        )
        let json = plan.json().serialized()
        #expect(
            json.hasPrefix(
                #"{"timeZone":"Europe/London","from":"2026-10-24T11:00:00Z","until":"2026-10-31T11:00:00Z","starts":["#)
        )
        // The cleaner's Monday start has no detail: its body is its clock time.
        #expect(plan.starts.contains { $0.itemIds == ["cleaner"] && $0.body == "11:00 am" })
    }

    @Test("The seed household lays about sixty starts a week, none for the day shape")
    func seedWeek() {
        let load = loadFixture("households/seed.json")
        #expect(load.problems.isEmpty)
        let plan = Planner.plan(load.household, from: instant("2026-11-29T00:00:00Z"))
        #expect(plan.starts.count == 64)
        #expect(!plan.starts.contains { $0.itemIds.contains("wake") || $0.itemIds.contains("bedtime") })
        // Monday: the cleaner and the morning pills share 11:00.
        #expect(plan.starts.contains { $0.itemIds == ["pills-morning", "cleaner"] && $0.title == "Pills and Cleaner" })
    }

    @Test(
        "Only the family's words: text the daemon composes never contains a forbidden word, the family's pass through")
    func onlyTheFamilysWords() {
        // Neutral labels: every word in a title or body that is not the family's is composed.
        let neutral = household(
            "Europe/London",
            (0..<24).map { hour in item("i\(hour)", (hour < 10 ? "0" : "") + "\(hour):00", label: "X") }
                + [item("j", "13:00", label: "Y"), item("k", "13:00", label: "Z")],
            clock: .twelveHour)
        for style in [ClockStyle.twelveHour, .twentyFourHour] {
            var home = neutral
            home.clock = style
            for start in Planner.plan(home, from: instant("2026-10-20T00:00:00Z"), days: 10).starts {
                for text in [start.heading, start.title, start.body] {
                    #expect(Content.forbiddenWords(in: text).isEmpty, "\(text)")
                }
            }
        }
        // The family's own words are never censored.
        let theirs = household(
            "Europe/London", [item("pills", "13:00", label: "Pills", detail: "Medicine box, don't be late")])
        let start = Planner.plan(theirs, from: instant("2026-06-01T00:00:00Z"), days: 1).starts.first
        #expect(start?.title == "Pills")
        #expect(start?.body == "Medicine box, don't be late")
        #expect(Content.forbiddenWords(in: "Lunch: MISSED pill, a Reminder.") == ["missed", "pill", "reminder"])
        #expect(Content.forbiddenWords(in: "Chocolate pillow, latest dosette").isEmpty)
    }

    @Test("Body markup escaping turns &, < and > into entities and leaves everything else")
    func markupEscaping() {
        #expect(Content.markupEscaped("<b>Fish & chips</b> 🎂") == "&lt;b&gt;Fish &amp; chips&lt;/b&gt; 🎂")
    }

    @Test("--from reads local time by rule 8, or an RFC 3339 instant with Z or an offset")
    func fromParsing() {
        let london = zone("Europe/London")
        #expect(TimeParsing.instant("2026-10-24T12:00", zone: london) == instant("2026-10-24T11:00:00Z"))
        #expect(TimeParsing.instant("2026-10-25T01:30:00", zone: london) == instant("2026-10-25T00:30:00Z"))
        #expect(TimeParsing.instant("2026-03-29T01:30", zone: london) == instant("2026-03-29T01:30:00Z"))
        #expect(TimeParsing.instant("2026-10-24T12:00:00+01:00", zone: london) == instant("2026-10-24T11:00:00Z"))
        #expect(TimeParsing.instant("2026-10-24T12:00:00.750Z", zone: london) == instant("2026-10-24T12:00:00Z"))
        #expect(TimeParsing.instant("2026-10-24T12:00:00-03:30", zone: london) == instant("2026-10-24T15:30:00Z"))
        for bad in ["2026-10-24", "2026-10-24T25:00", "2026-10-24T12:00+0100", "yesterday", "2026-10-24T12:00:00Zjunk"]
        {
            #expect(TimeParsing.instant(bad, zone: london) == nil, "\(bad)")
        }
    }
}
