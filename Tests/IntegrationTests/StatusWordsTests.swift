// Rule 4 for what `status` shows, read at the process boundary from the real daysomed: every text
// the daemon composes for its status (the reasons, the parts' explanations, the tool's own
// lines) holds none of the forbidden words, in each state a carer may find it in.

import DaysomeCore
import DaysomeTestSupport
import Testing

@Suite("Only the family's words in what status shows")
struct StatusWordsTests {
    @Test func onlyTheFamilysWordsNothingStatusComposesHoldsAForbiddenWordInAnyState() async throws {
        let session = try await TestWorld.start([.sessionBus, .notificationServer])
        defer { session.stop() }
        let neutral = try farAwayHousehold(label: "Soup")
        try replaceFile(session.household, neutral)
        try await session.startDaemon()
        var seen = 0
        func check(_ state: String) async throws {
            let text = try await session.ctl(["status"] + session.daemonPaths)
            let json = try await session.ctl(["status", "--json"] + session.daemonPaths)
            #expect(text.status == 0 && json.status == 0, "\(state): \(text) \(json)")
            // Paths are the test's, not composed: left out.
            for output in [text.stdout, json.stdout] {
                let composed = output.replacing(session.directory.path, with: "/test")
                #expect(Content.forbiddenWords(in: composed).isEmpty, "\(state): \(composed)")
                seen += composed.count
            }
        }
        try await check("away, laid")
        try await session.signal("foreground", awaitSeen: true)
        try await check("the display in front")
        try await session.signal("away", awaitSeen: true)
        try replaceFile(session.household, neutral.replacing("\"notifyInOtherApps\": true", with: "false"))
        _ = try await poll("the household error to show", timeout: 5) { () -> Bool? in
            try await session.householdErrors().isEmpty ? nil : true
        }
        try await check("a broken household, the last good one in force")
        try replaceFile(
            session.household,
            neutral.replacing("\"notifyInOtherApps\": true", with: "\"notifyInOtherApps\": false"))
        _ = try await poll("notifications off to show", timeout: 5) { () -> Bool? in
            try await session.status()["notLaidReason"]?.stringValue == nil ? nil : true
        }
        try await check("notifications in other apps off")
        #expect(seen > 0)
    }
}
