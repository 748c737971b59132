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

    /// The error line of a household that cannot be used names the file, the field and the
    /// reason once each, in status's text, its JSON and the journal.
    @Test func aWholeFileErrorLineNamesTheFileAndTheFieldOnceEach() throws {
        let tablet = try tablet("field-once", at: "2026-06-01T10:00:00Z")
        defer { tablet.remove() }
        try tablet.writeHousehold(lunchAndTea.replacing(#""version": 1"#, with: #""version": 2"#))
        let error = try #require(try tablet.status().household.errors.first)
        #expect(error.file == tablet.paths.household && error.itemId == nil && error.field == "version", "\(error)")
        #expect(error.message == "must be 1; keeping the last good household", "\(error)")
        let line = "  error: \(tablet.paths.household): field 'version': must be 1; keeping the last good household"
        let text = try tablet.statusText()
        #expect(text.split(separator: "\n").contains { $0 == line }, "\(text)")
        #expect(
            tablet.logged("Invalid household file: \(tablet.paths.household): field 'version': must be 1; ").count
                == 1, "\(tablet.log.map(\.message))")
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

    /// Every text the tools print shows what a terminal would act on escaped, as it shows ESC:
    /// a CSI (U+009B), a NEL (U+0085) and the line and paragraph separators in a label reach
    /// `plan`, `pending` and `status` as `\u{9b}`… and `--json` as JSON's own escapes.
    @Test func planPendingAndStatusShowC1ControlsAndLineSeparatorsOfALabelEscaped() throws {
        let label = "Lunch \u{9B}2J\u{85}a\u{2028}b\u{2029}c\u{1B}[5m"
        let escaped = "Lunch \\u{9b}2J\\u{85}a\\u{2028}b\\u{2029}c\\u{1b}[5m"
        // As the file holds it: C1 and the separators raw (JSON allows them), ESC escaped.
        let inFile = label.replacing("\u{1B}", with: "\\u001b")
        let tablet = try tablet(
            "terminal-controls", at: "2026-06-01T10:00:00Z",
            household: household([Item(id: "lunch", label: inFile, time: "12:00")]))
        defer { tablet.remove() }
        let raw: [Unicode.Scalar] = ["\u{9B}", "\u{85}", "\u{2028}", "\u{2029}", "\u{1B}"]
        for verb in [["plan", "--household", tablet.paths.household], ["pending"], ["status"]] {
            let output = tablet.ctl(verb, withPaths: verb.count == 1)
            #expect(output.status == .success, "\(verb): \(output)")
            #expect(output.stdout.contains(escaped), "\(verb): \(output.stdout)")
            let leaked = (output.stdout + output.stderr).unicodeScalars.filter { raw.contains($0) }
            #expect(leaked.isEmpty, "\(verb) printed \(leaked.map { String($0.value, radix: 16) }) raw")
            // JSON stays JSON: escaped as JSON escapes them, read back as the family wrote them.
            let json = tablet.ctl(verb + ["--json"], withPaths: verb.count == 1)
            #expect(json.status == .success, "\(verb) --json: \(json)")
            #expect(!json.stdout.unicodeScalars.contains { raw.contains($0) }, "\(verb) --json: \(json.stdout)")
            for escape in ["\\u009b", "\\u0085", "\\u2028", "\\u2029", "\\u001b"] {
                #expect(json.stdout.contains(escape), "\(verb) --json lacks \(escape): \(json.stdout)")
            }
            #expect(strings(in: try JSONParser.parse(json.stdout)).contains(label), "\(verb) --json")
            #expect(json.stdout.contains(#""title": "Lunch \u009b2J\u0085a\u2028b\u2029c\u001b[5m""#), "\(verb)")
        }
    }
}

/// Every string a JSON value holds, at any depth.
private func strings(in value: JSONValue) -> [String] {
    switch value {
    case .string(let string): [string]
    case .array(let elements): elements.flatMap(strings(in:))
    case .object(let object): object.members.flatMap { strings(in: $0.value) }
    default: []
    }
}
