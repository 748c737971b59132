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
    @Test func statusNamesAnUnreadableDisplayLineInTextAndJSONUntilAGoodLineIsWritten() async throws {
        let session = try await TestWorld.start([])
        defer { session.stop() }
        try replaceFile(session.household, try farAwayHousehold())
        try await session.signal("away")
        try await session.startDaemon(notifier: "log")
        let garbage = "Fore\u{1B}[2Jground " + String(repeating: "x", count: 200) + "\n"
        try replaceFile(session.displayState, garbage)
        let problem = try await poll("status to name the unreadable line", timeout: 5) {
            () -> DisplayFileProblem? in
            try await session.status().snapshot.daemon?.displayFileProblem
        }
        #expect(problem.keeping == .away, "\(problem)")
        let line = try #require(problem.line)
        #expect(line.hasPrefix("Fore\u{1B}[2Jground xx"), "\(problem)")
        #expect(line.count == DisplayFileProblem.shownCharacters + 1 && line.hasSuffix("…"), "not capped: \(line)")
        let text = try await session.ctl(["status"] + session.daemonPaths).stdout
        let shown = text.split(separator: "\n").first { $0.hasPrefix("Display file: ") } ?? ""
        print("[CarerStatusTests] status says: \(shown)")
        #expect(shown.hasPrefix("Display file: unreadable line 'Fore\\u{1b}[2Jground xx"), "\(text)")
        #expect(shown.hasSuffix("…' (keeping away)"), "\(text)")
        #expect(!text.contains("\u{1B}"), "the escape reached the terminal: \(text)")
        let lock = text.split(separator: "\n").first { $0.hasPrefix("Lock: ") } ?? ""
        #expect(lock.contains("the file is unreadable (keeping away)"), "\(lock)")
        #expect(!lock.contains("the file says"), "\(lock)")

        // A good line clears it, in both.
        try await session.signal("foreground", awaitSeen: true)
        #expect(try await session.status().snapshot.daemon?.displayFileProblem == nil)
        #expect(try await session.status()["displayFileProblem"]?.isNull == true, "written as null when none")
        let cleared = try await session.ctl(["status"] + session.daemonPaths).stdout
        #expect(!cleared.contains("Display file:"), "\(cleared)")
        #expect(cleared.contains("the file says foreground"), "\(cleared)")
    }

    @Test func fiveThousandInvalidItemsAreListedByTheirFirstFiftyAndCountedInStatusAndTheJournal() async throws {
        let session = try await TestWorld.start([])
        defer { session.stop() }
        let count = 5_000
        // Each invalid by its time (25:00 does not exist); one good item keeps the household usable.
        var items = (0..<count).map { TestItem(id: "bad-\($0)", label: "Bad \($0)", time: "25:00") }
        items.append(TestItem(id: "lunch", label: "Lunch", time: "13:00"))
        try replaceFile(session.household, householdText(items: items))
        try await session.startDaemon(notifier: "log")
        let status = try await session.status()
        let household = try #require(status["household"]?.objectValue)
        let errors = household["errors"]?.arrayValue ?? []
        #expect(errors.count == ProblemCap.status, "\(errors.count) errors listed")
        #expect(household["errorCount"]?.int == count, "\(household["errorCount"] ?? .null)")
        #expect(household["items"]?.int == 1)
        let size = readFile(session.runtimeDirectory + "/status.json").utf8.count
        let text = try await session.ctl(["status"] + session.daemonPaths).stdout
        #expect(text.contains("  ... and \(count - ProblemCap.status) more (\(count) in all)"), "\(text.suffix(400))")
        let logged = session.daemonStderr.split(separator: "\n")
        let itemLines = logged.filter { $0.contains("item 'bad-") }
        let summary = logged.filter { $0.contains("... and \(count - ProblemCap.journal) more problems") }
        print(
            "[CarerStatusTests] \(count) invalid items: status.json \(size) bytes, \(errors.count) listed, "
                + "\(itemLines.count) journal lines and \(summary.count) summary")
        #expect(size < 64 * 1_024, "status.json is \(size) bytes")
        #expect(itemLines.count == ProblemCap.journal, "\(itemLines.count) journal lines name an item")
        #expect(summary.count == 1, "\(summary)")
    }

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
