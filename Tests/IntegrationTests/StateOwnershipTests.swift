// Who owns a state directory, with the real daysomed: one daemon per state directory (two would
// each resume the same lay and call every start), and a state directory lost and made again
// keeps the last good household (rule 9 across a restart on a broken file).

import DaysomeCore
import DaysomeFiles
import DaysomeTestSupport
import Glibc
import Testing

@Suite("Who owns a state directory")
struct StateOwnershipTests {
    @Test func aSecondDaemonOnTheSameStateDirectoryIsRefusedNamingTheDaemonThatHasIt() async throws {
        let session = try await TestWorld.start([.sessionBus, .notificationServer])
        defer { session.stop() }
        try replaceFile(session.household, try farAwayHousehold())
        let first = try await session.startDaemon()
        let lay = try #require(try await session.pending().lay)
        // Another runtime directory, so the runtime lock cannot be what refuses it.
        let other = [
            "--household", session.household, "--state-dir", session.stateDirectory,
            "--runtime-dir", session.directory.path + "/second/run",
            "--display-state", session.directory.path + "/second/display", "--notifier", "log",
        ]
        let refused = try await session.run(session.daysomed, other, environment: session.environment, timeout: 15)
        print("[StateOwnershipTests] the second daemon said: \(refused.stderr)")
        #expect(refused.status == 1, "\(refused)")
        #expect(refused.stderr.contains("already uses the state directory '\(session.stateDirectory)'"), "\(refused)")
        #expect(refused.stderr.contains("pid \(first.pid)"), "the refusal does not name the first daemon: \(refused)")
        #expect(refused.stderr.filter { $0 == "\n" }.count == 1, "\(refused)")
        #expect(!first.process.poll(), "the first daemon stopped: \(session.daemonStderr)")
        #expect(try await session.pending().lay == lay, "the refused daemon touched the first one's lay")
        #expect(try layNumber(in: session.stateDirectory) == lay)

        // Once the first is gone, the state directory is free for the other.
        try await session.killDaemon()
        let second = try SpawnedProcess(
            session.daysomed, other, environment: session.environment,
            stderrPath: session.directory.path + "/second.log")
        session.adopt(second)
        _ = try await poll("the second daemon to run once the first is gone", timeout: 15) { () -> Bool? in
            if second.poll() { throw HarnessError("it exited: \(readFile(session.directory.path + "/second.log"))") }
            return FileIO.exists(session.directory.path + "/second/run/status.json") ? true : nil
        }
    }

    @Test func aStateDirectoryLostAndMadeAgainKeepsTheLastGoodHouseholdSoABrokenFileAndARestartStillLay()
        async throws
    {
        let session = try await TestWorld.start([.sessionBus, .notificationServer])
        defer { session.stop() }
        try replaceFile(session.household, try farAwayHousehold())
        try await session.startDaemon()
        let before = try await session.pending()
        let kept = session.stateDirectory + "/household.last-good.json"
        _ = try await poll("the last good household kept", timeout: 5) { FileIO.exists(kept) ? true : nil }

        // Someone removes the state directory and makes it again, empty; the daemon's next write
        // finds the new directory.
        #expect(try await session.run("/bin/rm", ["-rf", session.stateDirectory]).status == 0)
        #expect(mkdir(session.stateDirectory, 0o700) == 0)
        let flipped = monotonicSeconds()
        try await session.signal("foreground", awaitSeen: true)
        try await session.signal("away", awaitSeen: true)
        let madeAgain = try await poll("the last good household kept again", timeout: 5, interval: 0.05) {
            FileIO.exists(kept) ? monotonicSeconds() - flipped : nil
        }
        // And removed outright: the daemon makes the directory itself on its retry.
        #expect(try await session.run("/bin/rm", ["-rf", session.stateDirectory]).status == 0)
        try await session.signal("foreground", awaitSeen: true)
        try await session.signal("away", awaitSeen: true)
        let retried = monotonicSeconds()
        _ = try await poll("the daemon to make the directory and keep the household in it", timeout: 10) {
            FileIO.exists(kept) ? true : nil
        }
        print(
            "[StateOwnershipTests] last good household kept again \(Int(madeAgain * 1_000)) ms after the flips "
                + "into a directory made anew; \(Int((monotonicSeconds() - retried) * 1_000)) ms after the flips into none "
                + "(the daemon made the directory at its next write)")
        let lay = try #require(try await session.pending().lay)

        // A broken file and a restart: the kept copy is laid, under the same lay.
        try await session.killDaemon()
        try replaceFile(session.household, #"{ "version": 1, "timeZone": "UTC", "items": "#)
        try await session.startDaemon()
        let after = try await session.pending()
        #expect(after.lay == lay, "a restart on a broken file must resume the lay made from the kept copy")
        #expect(after.starts.map(\.at) == before.starts.map(\.at), "the kept copy's starts are not laid")
        let text = try await session.ctl(["status"] + session.daemonPaths)
        #expect(text.stdout.contains("In force: the last good household"), "\(text)")
        #expect(!text.stdout.contains("no earlier household is kept"), "\(text)")
    }
}
