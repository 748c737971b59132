// What a carer and a tester read in `status` and `history`, with the real daysomed and daysomectl
// (the log notifier, no bus): an unusable display line named in status until a good one comes,
// thousands of invalid items listed by their first few and counted, and history naming the state
// directory it read and saying when it fell back.

import DaysomeCore
import DaysomeFiles
import DaysomeTestSupport
import Glibc
import Testing

@Suite("What a carer reads in status and history")
struct CarerStatusTests {

    @Test func historyNamesTheStateDirectoryItReadAndSaysWhenItFellBack() async throws {
        let session = try await TestWorld.start([])
        defer { session.stop() }
        // Another daemon's history in the default state directory: never to be passed off as this one's.
        let other = session.home + "/.local/state/daysome"
        try FileIO.makeDirectories(other, mode: 0o700)
        let foreign = HistoryRecord(time: Instant(seconds: 1_700_000_000), event: .laid, lay: 999)
        try writeFile(other + "/history.jsonl", foreign.json.serialized() + "\n")
        try replaceFile(session.household, try farAwayHousehold())
        try await session.startDaemon(notifier: "log")
        let runtime = ["--runtime-dir", session.runtimeDirectory]
        let state = session.stateDirectory

        let live = try await session.ctl(["history", "--json"] + runtime)
        #expect(live.status == 0 && live.stderr.isEmpty, "\(live)")
        let liveJSON = try HistorySnapshot(json: JSONParser.parse(live.stdout))
        #expect(liveJSON.stateDirectory == state && !liveJSON.fellBack, "\(live)")
        let liveText = try await session.ctl(["history"] + runtime)
        #expect(
            liveText.stdout.hasSuffix(
                "State directory: \(state) (of the daemon running for '\(session.runtimeDirectory)')\n"),
            "\(liveText)")

        // The daemon is gone: its last published state directory is read, and stderr says so.
        try await session.killDaemon()
        let gone = try await session.ctl(["history", "--json"] + runtime)
        #expect(gone.status == 0, "\(gone)")
        #expect(gone.stderr.contains("no daemon runs for '\(session.runtimeDirectory)'"), "\(gone)")
        let goneJSON = try HistorySnapshot(json: JSONParser.parse(gone.stdout))
        #expect(goneJSON.stateDirectory == state && goneJSON.fellBack, "\(gone)")
        #expect(!goneJSON.history.contains { $0.lay == 999 }, "another daemon's history: \(gone)")

        // A runtime directory no daemon ever published in: no history is passed off as its own.
        let wrong = try session.directory.makeDirectory("wrong-runtime")
        let refused = try await session.ctl(["history", "--runtime-dir", wrong])
        print("[CarerStatusTests] history --runtime-dir <none>: exit \(refused.status ?? -1): \(refused.stderr)")
        #expect(refused.status == 1, "\(refused)")
        #expect(refused.stdout.isEmpty, "\(refused)")
        #expect(
            refused.stderr
                == "daysomectl: no daemon has published a state directory in '\(wrong)': "
                + "give --state-dir DIR to read a history there\n", "\(refused)")

        // The default runtime directory, nothing published: the default is read, and stderr says so.
        let byDefault = try await session.ctl(["history", "--json"])
        #expect(byDefault.status == 0, "\(byDefault)")
        #expect(byDefault.stderr.contains("reading the default, '\(other)'"), "\(byDefault)")
        let defaultJSON = try HistorySnapshot(json: JSONParser.parse(byDefault.stdout))
        #expect(defaultJSON.stateDirectory == other && defaultJSON.fellBack, "\(byDefault)")
        #expect(defaultJSON.history == [foreign])
    }
}
