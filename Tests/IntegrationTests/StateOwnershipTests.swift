// Who owns a state directory, with the real daysomed: one daemon per state directory (two would
// each resume the same lay and call every start). A state directory lost and made again is on the
// embedded daemon: EmbeddedTests.StateDirectoryLostTests.

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
}
