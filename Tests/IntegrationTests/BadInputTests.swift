// Bad input against a running daysomed (wheel backend, private bus, Xvfb and dunst), where only
// real processes show it: a household replaced under the daemon's read a thousand times, and a
// named pipe as the display state file. The rest of rule 9's bad input (whole-file and item-level
// faults, garbage display lines, a dead pid, a planted symlink, secrets on the error paths) runs
// on the embedded daemon: EmbeddedTests.BadInputTests.

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

    @Test func aHouseholdReplacedWhileTheDaemonReadsItKeepsItsLayWhenItsContentsAreTheSame() async throws {
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
    }

    // MARK: The display state file

    // real-process twin of EmbeddedTests.BadInputTests.aSymlinkPlantedAsTheDisplayStateIsRefusedNotFollowed
    @Test func aNamedPipeAsTheDisplayStateDoesNotBlockTheDaemon() async throws {
        let session = try await TestWorld.start([.sessionBus, .notificationServer])
        defer { session.stop() }
        try replaceFile(session.household, try goodHousehold())
        let driver = try StormDriver(displayState: session.displayState, state: "away")
        let daemon = try await session.startDaemon().process
        try await session.waitUntilQueueHoldsThePlan(within: 3)

        mkfifo(session.displayState + ".fifo", 0o600)
        rename(session.displayState + ".fifo", session.displayState)
        await pause(0.5)
        // Still answering: a return is seen at once.
        try driver.write("foreground")
        try await session.waitUntilNothing(within: 2)
        #expect(!daemon.poll())
    }

    // MARK: Rule 10 on the error paths

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
