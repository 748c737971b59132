// Bad input against a running daysomed (wheel backend, private bus, Xvfb and dunst), where only
// real processes show it: a household replaced under the daemon's read a thousand times (a named
// pipe as the display state file is SecurityTests', beside the daemon's other files). The rest of
// rule 9's bad input (whole-file and item-level faults, garbage display lines, a dead pid, a
// planted symlink, secrets on the error paths) runs on the embedded daemon:
// EmbeddedTests.BadInputTests.

import DaysomeCore
import DaysomeTestSupport
import Glibc
import Testing

/// Three good daily items, hours from now: the last good household.
private func goodHousehold() throws -> String {
    let now = Int64(wallSeconds())
    return householdText(items: [
        TestItem(id: "lunch", label: "Lunch", detail: "Soup", time: try clockTime(now + 3 * 3_600, zone: "UTC")),
        TestItem(id: "tea", label: "Tea", kind: "drink", time: try clockTime(now + 5 * 3_600, zone: "UTC")),
        TestItem(id: "supper", label: "Supper", time: try clockTime(now + 7 * 3_600, zone: "UTC")),
    ])
}

@Suite(
    "BadInputTests: a bad file never silences lunch and never stops the daemon (rule 9)", .serialized,
    .timeLimit(.minutes(4)))
struct BadInputTests {
    // MARK: The household read while it is replaced

    /// The household's life under a running daemon: replaced with the same bytes a thousand times
    /// while it reads (one lay), edited (a new lay, the family's new words), then broken while the
    /// tablet was off (the restart lays the last good household).
    // real-process twin of EmbeddedTests.HouseholdEditTests.householdEditWhileAwayReLays
    // real-process twin of EmbeddedTests.KeptHouseholdTests.aRestartWithABrokenHouseholdKeepsLayingTheLastGoodOne
    // and of EmbeddedTests.BadInputTests.aHouseholdFileThatCannotBeUsedKeepsTheLastGoodLayAndNamesTheFile
    @Test
    func aHouseholdReplacedWithTheSameContentsKeepsItsLayAnEditReLaysAndARestartOnABrokenFileLaysTheLastGood()
        async throws
    {
        let session = try await TestWorld.start([.sessionBus, .notificationServer])
        defer { session.stop() }
        let (daemon, good) = try await session.startDaemonOnTheGoodHousehold()
        let lay = try #require(try await session.pending().lay)
        // The file is gone for a moment and back with the same bytes, 1,000 times: whatever the
        // daemon reads, it reads one version whole, so the household never changes.
        let seed = SeededRandom.seed(default: 20_261_214)
        var random = SeededRandom(seed: seed)
        for _ in 0..<1_000 {
            unlink(session.household)
            let back = monotonicSeconds() + Double(draw(0...400, &random)) / 1_000_000
            while monotonicSeconds() < back {}
            try replaceFile(session.household, good)
            await pause(Double(draw(0...2_000, &random)) / 1_000_000)
        }
        await pause(1)
        let queue = try await session.pending()
        let laid = try await session.history().filter { $0.event == "laid" }.compactMap(\.lay)
        print("[BadInputTests] 1,000 remove-and-replace races (seed \(seed)): lays \(laid)")
        #expect(queue.lay == lay && laid == [lay], "the same household was laid again: lays \(laid)")
        #expect(try await session.householdErrors().isEmpty)
        #expect(!daemon.poll())

        // An edit while away lays again under the next number: the new words in, the old out.
        try replaceFile(session.household, try replacingOnce(good, "\"Lunch\"", with: "\"Lunch with Sue\""))
        let edited = try await poll("a new lay after the edit", timeout: 3) { () -> Queue? in
            let queue = try await session.pending()
            return (queue.lay ?? 0) > lay ? queue : nil
        }
        #expect(edited.display == "away")
        #expect(edited.starts.count == queue.starts.count)
        #expect(edited.starts.contains { $0.title == "Lunch with Sue" }, "\(edited.starts)")
        #expect(!edited.starts.contains { $0.title == "Lunch" }, "\(edited.starts)")
        #expect(edited.starts.allSatisfy { $0.lay == edited.lay })
        let editedLay = try #require(edited.lay)
        let laidAfterTheEdit = try await session.history().filter { $0.event == "laid" }.compactMap(\.lay)
        #expect(laidAfterTheEdit == [lay, editedLay], "laid: \(laidAfterTheEdit)")

        // The app broke the file while the tablet was off: the restart resumes the lay made from
        // the kept copy, and says which household is in force and what is wrong with the file.
        daemon.stop()
        try replaceFile(session.household, #"{ "version": 1, "timeZone": "UTC", "items": "#)
        try await session.startDaemon()
        let after = try await session.pending()
        #expect(after.lay == editedLay, "a restart on a broken file must resume the lay made from the kept copy")
        #expect(after.starts == edited.starts)
        let status = try await session.status()
        #expect(status.canDeliver == true, "\(status)")
        let inForce = try #require(status.household.inForce, "\(status.household)")
        #expect(inForce.source == .keptCopy)
        #expect(inForce.path == session.stateDirectory + "/household.last-good.json")
        let errors = try await session.householdErrors()
        #expect(errors.first?.file == session.household, "\(errors)")
        #expect(errors.first?.message.contains("not valid JSON") == true, "\(errors)")
        let text = try await session.ctl(["status"] + session.daemonPaths)
        #expect(text.stdout.contains("In force: the last good household"), "\(text)")
        #expect(!text.stdout.contains("Nothing is laid"), "\(text)")
    }
}

extension TestWorld {
    /// Writes the good household, starts the daemon on it and waits until its plan is queued.
    func startDaemonOnTheGoodHousehold() async throws -> (daemon: SpawnedProcess, good: String) {
        let good = try goodHousehold()
        try replaceFile(self.household, good)
        let daemon = try await self.startDaemon().process
        try await self.waitUntilQueueHoldsThePlan(within: 3)
        return (daemon, good)
    }
}
