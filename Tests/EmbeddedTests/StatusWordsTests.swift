// Rule 4 for what `status` shows, on the embedded daemon: every text the daemon composes for its
// status (the reasons, the parts' explanations, the tool's own lines, rendered as daysomectl
// renders them) holds none of the forbidden words, in each state a carer may find it in.

import DaysomeCore
import DaysomeDaemon
import Testing

@Suite("Only the family's words in what status shows, on the embedded daemon")
struct StatusWordsTests {
    @Test func onlyTheFamilysWordsNothingStatusComposesHoldsAForbiddenWordInAnyState() throws {
        let neutral = household([
            Item(id: "lunch", label: "Soup", time: "13:00"),
            Item(id: "tea", label: "Tea", time: "15:00", kind: "drink"),
        ])
        let tablet = try tablet("status-words", at: "2026-06-01T10:00:00Z", household: neutral)
        defer { tablet.remove() }
        var seen = 0
        func check(_ state: String) throws {
            // Paths are the test's, not composed: left out.
            for output in [try tablet.statusText(), tablet.text(tablet.paths.statusFile)] {
                let composed = output.replacing(tablet.root, with: "/test")
                #expect(Content.forbiddenWords(in: composed).isEmpty, "\(state): \(composed)")
                seen += composed.count
            }
        }
        try check("away, laid")
        try tablet.writeDisplay("foreground")
        try check("the display in front")
        try tablet.writeDisplay("away")
        try tablet.writeHousehold(neutral.replacing("\"notifyInOtherApps\": true", with: "false"))
        #expect(try tablet.status().household.errors.isEmpty == false)
        try check("a broken household, the last good one in force")
        try tablet.writeHousehold(
            neutral.replacing("\"notifyInOtherApps\": true", with: "\"notifyInOtherApps\": false"))
        #expect(try tablet.status().daemon?.notLaidReason != nil)
        try check("notifications in other apps off")
        try tablet.writeHousehold(neutral)
        tablet.server.stop()
        tablet.advance(to: at("2026-06-01T13:00:30Z"))
        #expect(try tablet.status().notificationServer.waiting != nil)
        try check("a call waits for a server")
        #expect(seen > 0)
    }
}
