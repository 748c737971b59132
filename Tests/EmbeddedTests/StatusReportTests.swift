// What a carer and a tester read in status, on the embedded daemon: an unusable display line
// named until a good one comes, and thousands of invalid items listed by their first few and
// counted, in status.json, in `daysomectl status`'s text (rendered as daysomectl renders it) and
// in the journal.

import DaysomeCore
import DaysomeDaemon
import DaysomeFiles
import Testing

@Suite("What a carer reads in status, on the embedded daemon")
struct StatusReportTests {
    @Test func statusNamesAnUnreadableDisplayLineInTextAndJSONUntilAGoodLineIsWritten() throws {
        let tablet = try tablet("display-line", at: "2026-06-01T10:00:00Z")
        defer { tablet.remove() }
        try tablet.writeDisplay("Fore\u{1B}[2Jground " + String(repeating: "x", count: 200))
        let problem = try #require(try tablet.status().daemon?.displayFileProblem)
        #expect(problem.keeping == .away, "\(problem)")
        let line = try #require(problem.line)
        #expect(line.hasPrefix("Fore\u{1B}[2Jground xx"), "\(problem)")
        #expect(line.count == DisplayFileProblem.shownCharacters + 1 && line.hasSuffix("…"), "not capped: \(line)")
        let text = try tablet.statusText()
        let shown = text.split(separator: "\n").first { $0.hasPrefix("Display file: ") } ?? ""
        #expect(shown.hasPrefix("Display file: unreadable line 'Fore\\u{1b}[2Jground xx"), "\(text)")
        #expect(shown.hasSuffix("…' (keeping away)"), "\(text)")
        #expect(!text.contains("\u{1B}"), "the escape reached the terminal: \(text)")
        let lock = text.split(separator: "\n").first { $0.hasPrefix("Lock: ") } ?? ""
        #expect(lock.contains("the file is unreadable (keeping away)"), "\(lock)")
        #expect(!lock.contains("the file says"), "\(lock)")

        // A good line clears it, in both.
        try tablet.writeDisplay("foreground")
        #expect(try tablet.status().daemon?.displayFileProblem == nil)
        let raw = try JSONParser.parse(FileIO.read(tablet.paths.statusFile, limit: 1 << 20))
        #expect(raw.objectValue?["displayFileProblem"]?.isNull == true, "written as null when none")
        let cleared = try tablet.statusText()
        #expect(!cleared.contains("Display file:"), "\(cleared)")
        #expect(cleared.contains("the file says foreground"), "\(cleared)")
    }

    @Test func aGoodLineOfTheSameWordClearsTheUnreadableLineNoteAtOnce() throws {
        let tablet = try tablet("display-same-word", at: "2026-06-01T10:00:00Z")
        defer { tablet.remove() }
        try tablet.writeDisplay("sideways")
        #expect(try tablet.status().daemon?.displayFileProblem?.keeping == .away)
        // "away" again: the daemon's state does not change, and the note must still go.
        try tablet.writeDisplay("away")
        #expect(try tablet.status().daemon?.displayFileProblem == nil, "a stale unreadable-line note")
        #expect(!(try tablet.statusText()).contains("Display file:"))
    }

    @Test func whileLockedStatusShowsTheFilesWordAsSoonAsItIsWritten() throws {
        let tablet = try tablet("locked-file-word", at: "2026-06-01T10:00:00Z")
        defer { tablet.remove() }
        tablet.lock(.gnomeScreenSaver, true)
        #expect(try tablet.status().daemon?.lock.fileSays == .away)
        // The display app says foreground while Phosh's lock is up: she is still away.
        try tablet.writeDisplay("foreground")
        #expect(try tablet.status().display == .away)
        #expect(try tablet.status().daemon?.lock.fileSays == .foreground, "status kept the file's old word")
        #expect(try tablet.statusText().contains("the file says foreground"))
        try tablet.writeDisplay("away")
        #expect(try tablet.status().daemon?.lock.fileSays == .away)
    }

    @Test func fiveThousandInvalidItemsAreListedByTheirFirstFiftyAndCountedInStatusAndTheJournal() throws {
        let count = 5_000
        // Each invalid by its time (25:00 does not exist); one good item keeps the household usable.
        var items = (0..<count).map { Item(id: "bad-\($0)", label: "Bad \($0)", time: "25:00") }
        items.append(Item(id: "lunch", label: "Lunch", time: "13:00"))
        let tablet = try tablet("five-thousand", at: "2026-06-01T10:00:00Z", household: household(items))
        defer { tablet.remove() }
        let household = try tablet.status().household
        #expect(household.errors.count == ProblemCap.status, "\(household.errors.count) errors listed")
        #expect(household.errorCount == count)
        #expect(household.items == 1)
        let size = tablet.text(tablet.paths.statusFile).utf8.count
        #expect(size < 64 * 1_024, "status.json is \(size) bytes")
        let text = try tablet.statusText()
        #expect(text.contains("  ... and \(count - ProblemCap.status) more (\(count) in all)"), "\(text.suffix(400))")
        let itemLines = tablet.logged("item 'bad-")
        #expect(itemLines.count == ProblemCap.journal, "\(itemLines.count) journal lines name an item")
        #expect(tablet.logged("... and \(count - ProblemCap.journal) more problems").count == 1)
    }
}
