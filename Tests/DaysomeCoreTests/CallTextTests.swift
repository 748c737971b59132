// What the bus cannot carry is made sendable where the call is composed: every noncharacter and
// U+0000 becomes U+FFFD in the Notify's summary and body, everything else the family wrote goes
// as written, and the plan keeps the family's own words.

import DaysomeCore
import Testing

/// Every noncharacter: U+FDD0..U+FDEF and the last two code points of each of the 17 planes.
private let noncharacters: [Unicode.Scalar] =
    (0xFDD0...0xFDEF).compactMap(Unicode.Scalar.init)
    + (0...16).flatMap { plane in [plane << 16 | 0xFFFE, plane << 16 | 0xFFFF].compactMap(Unicode.Scalar.init) }

/// U+FDD0, which Swift's lexer refuses as a literal.
private let fdd0 = String(Character(Unicode.Scalar(0xFDD0)!))

@Suite("The text of a call, as the bus carries it")
struct CallTextTests {
    @Test("Every noncharacter, in every plane, is replaced by U+FFFD and the words around it arrive")
    func everyNoncharacterIsReplaced() {
        #expect(noncharacters.count == 66)
        for scalar in noncharacters {
            #expect(!Content.busCarries(scalar), "U+\(String(scalar.value, radix: 16, uppercase: true))")
            var text = "Lun"
            text.unicodeScalars.append(scalar)
            text += "ch"
            #expect(Content.busSendable(text) == "Lun\u{FFFD}ch")
        }
    }

    @Test("U+0000 is replaced, so a label is never cut short at it")
    func nulIsReplaced() {
        #expect(Content.busSendable("Lun\u{0}ch") == "Lun\u{FFFD}ch")
        #expect(Content.busSendable("\u{0}\u{0}") == "\u{FFFD}\u{FFFD}")
    }

    @Test("Text the bus carries, emoji, right-to-left marks and the neighbours of noncharacters, is untouched")
    func carriedTextIsUntouched() {
        for text in [
            "Lunch", "", "Fish & chips <b>", "🎂 Tea 👩‍👩‍👧", "\u{200F}الغداء\u{200E} و شاي", "e\u{301}", "\u{1}\u{1F}\u{7F}",
            "\u{FDCF}\u{FDF0}\u{FFFD}\u{FFFC}\u{FFEF}", "\u{1FFFD}\u{10FFFD}\u{E0001}",
        ] {
            #expect(Content.busSendable(text) == text, "\(Array(text.unicodeScalars))")
            #expect(text.unicodeScalars.allSatisfy(Content.busCarries))
        }
    }

    @Test("The Notify's summary and body are made sendable, after markup escaping, and the heading is kept")
    func theNotificationIsSendable() {
        let theirs = household(
            "UTC",
            [
                item("lunch", "13:00", label: "Lun\u{0}ch", detail: "Soup\(fdd0) & <roll>"),
                item("tea", "13:00", label: "Tea\u{FFFF}"),
            ])
        guard let start = Planner.plan(theirs, from: instant("2026-06-01T00:00:00Z"), days: 1).starts.first else {
            Issue.record("nothing planned")
            return
        }
        let plain = Content.notification(start, markup: false)
        #expect(plain.summary == "Lun\u{FFFD}ch and Tea\u{FFFD}")
        #expect(plain.body == "Monday afternoon\nSoup\u{FFFD} & <roll>")
        let markup = Content.notification(start, markup: true)
        #expect(markup.summary == "Lun\u{FFFD}ch and Tea\u{FFFD}")
        #expect(markup.body == "Monday afternoon\nSoup\u{FFFD} &amp; &lt;roll&gt;")
    }

    @Test("The plan keeps the labels and details as the family wrote them, noncharacters and U+0000 included")
    func thePlanKeepsTheFamilysWords() {
        let theirs = household(
            "UTC",
            [
                item("lunch", "13:00", label: "Lun\u{0}ch", detail: "Soup\(fdd0)"),
                item("tea", "13:00", label: "Tea\u{10FFFF}"),
            ])
        let start = Planner.plan(theirs, from: instant("2026-06-01T00:00:00Z"), days: 1).starts.first
        #expect(start?.title == "Lun\u{0}ch and Tea\u{10FFFF}")
        #expect(start?.body == "Soup\(fdd0)")
    }
}
