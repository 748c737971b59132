// Labels the bus cannot carry as written: U+FFFF and U+FDD0 (noncharacters, which sd-bus refuses
// in a string) and U+0000 (where a C string ends). The real daysomed posts them to dunst on a
// private session bus; dunst's own history shows every other word of the family's text, each
// such scalar as U+FFFD, and history says delivered once and nothing dropped. `plan` keeps the
// family's words as written.

import DaysomeCore
import DaysomeTestSupport
import Testing

/// U+FDD0 and U+FFFE, which Swift's lexer refuses as literals.
private let fdd0 = String(Character(Unicode.Scalar(0xFDD0)!))
private let fffe = String(Character(Unicode.Scalar(0xFFFE)!))

@Suite("Text the bus cannot carry, on a real notification server", .timeLimit(.minutes(4)))
struct UnsendableTextTests {
    @Test("A label with a noncharacter or U+0000 is delivered whole: the rest of the family's words arrive, once")
    func aLabelWithANoncharacterIsDeliveredWhole() async throws {
        let session = try await TestWorld.start([.sessionBus, .notificationServer])
        defer { session.stop() }
        let minute = nextMinute(leaving: 5)
        let time = try clockTime(minute, zone: "UTC")
        let labels = ["Lun\u{0}ch", "Tea\u{FFFF}", "Walk" + fdd0]
        let items = labels.enumerated().map { index, label in
            let detail = index == 0 ? #", "detail": \#(jsonQuoted("Soup" + fffe + " and a roll"))"# : ""
            return
                #"{ "id": "item-\#(index)", "label": \#(jsonQuoted(label))\#(detail), "kind": "meal", "time": "\#(time)", "repeat": "daily" }"#
        }
        try replaceFile(
            session.household,
            """
            { "version": 1, "timeZone": "UTC", "clock": "24h", "settings": { "notifyInOtherApps": true },
              "items": [ \(items.joined(separator: ", ")) ] }

            """)
        try await session.startDaemon()
        try await session.expectQueued(at: minute)
        // The plan tells what the family wrote: the stand-in is only for the bus.
        let planned = try await session.plannedStart(at: minute)
        #expect(planned.title == "Lun\u{0}ch, Tea\u{FFFF} and Walk" + fdd0)
        #expect(planned.body == "Soup" + fffe + " and a roll")

        _ = try #require(
            try await session.firstShown(after: minute),
            "nothing shown by \(rfc3339(minute)) + 10 s: \(session.daemonStderr)")
        #expect(try await session.dunstctl(["close-all"]).status == 0)
        let shown = try await poll("dunst's history to hold the call", timeout: 3) {
            try await session.shownHistory().first { $0.appName == "Daysome" }
        }
        #expect(shown.summary == "Lun\u{FFFD}ch, Tea\u{FFFD} and Walk\u{FFFD}")
        #expect(shown.body == planned.heading + "\nSoup\u{FFFD} and a roll")
        let history = try await session.history().filter { $0.at == rfc3339(minute) }
        #expect(history.filter { $0.event == "delivered" }.count == 1, "\(history)")
        #expect(!history.contains { $0.event == "dropped" }, "\(history)")
        #expect(try await session.status().notificationServer.lastRefusal == nil)
        print("[IntegrationTests] unsendable text: dunst received \(shown); history \(history)")
    }
}
