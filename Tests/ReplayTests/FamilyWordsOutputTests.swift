// One composed text everywhere: `plan`, `plan --json`, `replay` and the week's picture say what
// the notification says, in the family's words; without `words` every one of them prints what it
// printed before words existed, to the character (the files under Fixtures/plans were printed by
// daysomectl built from the commit before words).

import DaysomeCLI
import DaysomeCore
import DaysomeFiles
import Testing

@Suite("The family's words in plan, replay and the picture")
struct FamilyWordsOutputTests {
    let context = CommandContext(environment: [:], now: Instant(seconds: 1_790_000_000))

    func ctl(_ argv: [String]) -> CommandOutput { DaysomeCtl.run(argv, context: self.context) }

    func golden(_ name: String) throws -> String {
        String(decoding: try FileIO.read(fixture("plans/" + name), limit: 1 << 20), as: UTF8.self)
    }

    @Test("The design example without words plans unchanged to the character, as a table and as JSON")
    func designExampleWithoutWordsIsUnchanged() throws {
        let household = fixture("households/design-example.json")
        let from = ["--from", "2026-10-24T12:00"]
        #expect(self.ctl(["plan", "--household", household] + from).stdout == (try self.golden("design-example.txt")))
        #expect(
            self.ctl(["plan", "--household", household, "--json"] + from).stdout
                == (try self.golden("design-example.json")))
    }

    @Test("The seed household without words plans and replays unchanged to the character")
    func seedWithoutWordsIsUnchanged() throws {
        let household = fixture("households/seed.json")
        #expect(
            self.ctl(["plan", "--household", household, "--from", "2026-10-24T12:00", "--json"]).stdout
                == (try self.golden("seed.json")))
        let replay = self.ctl([
            "replay", "--household", household, "--from", "2026-10-24T12:00", "--to", "2026-10-31T12:00",
            "--display", fixture("display/seed-week-visits.txt"),
        ])
        #expect(replay.status == .success)
        #expect(replay.stdout == (try self.golden("seed-replay.txt")))
    }

    @Test(
        "plan, replay and the picture say the same composed text in the family's words",
        arguments: ["japanese", "arabic", "german"])
    func oneComposedTextEverywhere(_ name: String) throws {
        let household = fixture("households/\(name).json")
        let directory = scratchDirectory()
        defer { _ = shell("rm -rf '\(directory)'") }
        let plan = self.ctl([
            "plan", "--household", household, "--from", "2026-10-24T12:00", "--json", "--svg", directory + "/week.svg",
        ])
        #expect(plan.status == .success && plan.stderr.isEmpty, "\(plan.stderr)")
        let object = try #require(try JSONParser.parse(Array(plan.stdout.utf8)).objectValue)
        let starts = (object["starts"]?.arrayValue ?? []).compactMap(\.objectValue)
        #expect(starts.count == 36)
        func text(_ start: JSONObject, _ key: String) -> String { start[key]?.stringValue ?? "" }

        // The table shows each start's title, body and heading.
        let table = self.ctl(["plan", "--household", household, "--from", "2026-10-24T12:00"]).stdout
        // The picture draws each title.
        let svg = String(decoding: try FileIO.read(directory + "/week.svg", limit: 1 << 22), as: UTF8.self)
        // A replay with the display away throughout delivers each start with the same words.
        let replay = self.ctl([
            "replay", "--household", household, "--from", "2026-10-24T12:00", "--to", "2026-10-31T12:00",
        ]).stdout
        for start in starts {
            let (heading, title, body) = (text(start, "heading"), text(start, "title"), text(start, "body"))
            #expect(!heading.isEmpty && !title.isEmpty && !body.isEmpty)
            #expect(table.contains(title) && table.contains(body) && table.contains(heading), "\(title)")
            #expect(svg.contains(title), "\(title)")
            #expect(replay.contains("delivered  lay 1  \(title) — \(heading) · \(body)\n"), "\(title)")
        }
        // None of the English the daemon would have composed.
        for english in ["Saturday afternoon", " and ", " pm"] { #expect(!plan.stdout.contains(english)) }
    }
    @Test("The README's week in Polish is what daysomectl plan prints for the Polish fixture")
    func readmeWeekInPolishIsTheRealOutput() throws {
        let readme = String(decoding: try FileIO.read(repositoryRoot() + "/README.md", limit: 1 << 20), as: UTF8.self)
        let command = "$ daysomectl plan --household Fixtures/households/polish.json --from 2026-10-24T12:00\n"
        let after = try #require(
            readme.split(separator: command, maxSplits: 1).dropFirst().first, "README shows no Polish week")
        let shown = try #require(after.split(separator: "\n…\n", maxSplits: 1).first)
        let output = self.ctl([
            "plan", "--household", fixture("households/polish.json"), "--from", "2026-10-24T12:00",
        ]).stdout
        #expect(shown.split(separator: "\n").count >= 10)
        #expect(output.hasPrefix(shown + "\n"), "README:\n\(shown)\nplan:\n\(output)")
    }
}
