// `daysomectl replay` as a user runs it: local times with their offsets, the JSON object, the
// display script and its errors, and household errors as `plan` reports them.

import DaysomeCLI
import DaysomeCore
import DaysomeFiles
import Testing

@Suite("daysomectl replay")
struct ReplayCommandTests {
    let context = CommandContext(environment: [:], now: Instant(seconds: 1_790_000_000))

    func replay(_ extra: [String], household: String = fixture("households/seed.json")) -> CommandOutput {
        DaysomeCtl.run(["replay", "--household", household] + extra, context: self.context)
    }

    @Test("Prints every event in local time with a ±HH:MM offset, across the autumn change")
    func localTimes() {
        let output = self.replay(["--from", "2026-10-22T00:00", "--to", "2026-10-29T00:00"])
        #expect(output.status == .success)
        #expect(output.stderr == "")
        let lines = output.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains("2026-10-25 13:00 +00:00  delivered  lay 1  Lunch — Sunday afternoon · Soup and a roll"))
        #expect(
            lines.contains("2026-10-24 13:00 +01:00  delivered  lay 1  Lunch — Saturday afternoon · Soup and a roll"))
        #expect(lines.contains("2026-10-25 13:45 +00:00  expired    lay 1  Lunch (13:00)"))
        #expect(lines.contains { $0.hasPrefix("2026-10-25 01:00 +00:00  clocks") && $0.contains("go back") })
        #expect(lines.contains { $0.hasPrefix("2026-10-22 00:00 +01:00  laid       lay 1") })
        // Every event line starts with a local time and an offset in ±HH:MM form, never Z.
        let events = lines.filter { $0.hasPrefix("2026-") }
        #expect(events.count > 100)
        for line in events {
            let characters = Array(line)
            #expect(characters.count > 24 && (characters[17] == "+" || characters[17] == "-"), "\(line)")
            #expect(characters[20] == ":" && characters[23] == " ", "\(line)")
        }
        #expect(lines.last == "1 laid, 0 cleared, 64 delivered, 64 expired, 0 withdrawn, 0 dropped.")
    }

    @Test("--json prints one object with stable camelCase keys")
    func json() throws {
        let output = self.replay(["--from", "2026-10-25T12:00", "--to", "2026-10-25T14:00", "--json"])
        #expect(output.status == .success)
        let object = try #require(try JSONParser.parse(Array(output.stdout.utf8)).objectValue)
        #expect(Array(object.keys.prefix(4)) == ["timeZone", "from", "to", "events"])
        #expect(object["timeZone"]?.stringValue == "Europe/London")
        #expect(object["from"]?.stringValue == "2026-10-25T12:00:00Z")
        let list = object["events"]?.arrayValue ?? []
        let events = list.compactMap { $0.objectValue }
        try #require(events.count == 4)
        #expect(
            Array(events[0].keys.prefix(8)) == ["time", "local", "event", "lay", "at", "itemIds", "title", "reason"])
        let lunch = try #require(events.first { $0["event"]?.stringValue == "delivered" })
        #expect(lunch["time"]?.stringValue == "2026-10-25T13:00:00Z")
        #expect(lunch["local"]?.stringValue == "2026-10-25T13:00:00+00:00")
        #expect(lunch["title"]?.stringValue == "Lunch")
        #expect(lunch["itemIds"]?.arrayValue?.compactMap(\.stringValue) == ["lunch"])
        #expect(events.map { $0["event"]?.stringValue ?? "" } == ["laid", "delivered", "expired", "delivered"])
    }

    @Test("A display script: back at 12:59, away at 13:05; lunch is not called and lay 2 begins")
    func script() {
        let directory = scratchDirectory()
        let path = directory + "/display"
        write("# a visit at lunch\n\n2026-10-25T12:59 foreground\n2026-10-25T13:05:00 away   # gone again\n", to: path)
        let output = self.replay([
            "--from", "2026-10-25T08:00", "--to", "2026-10-25T18:00", "--display", path, "--svg",
            directory + "/day.svg",
        ])
        #expect(output.status == .success)
        let svg = (try? FileIO.read(directory + "/day.svg", limit: 1 << 20)).map { String(decoding: $0, as: UTF8.self) }
        #expect(svg?.hasPrefix("<svg") == true)
        #expect(svg?.contains(">lay 2</text>") == true)
        let lines = output.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains("2026-10-25 12:59 +00:00  display           foreground"))
        #expect(lines.contains { $0.hasPrefix("2026-10-25 12:59 +00:00  cleared    lay 1  display returned") })
        #expect(lines.contains { $0.hasPrefix("2026-10-25 13:05 +00:00  laid       lay 2") })
        #expect(!lines.contains { $0.contains("delivered") && $0.contains("Lunch —") })
        #expect(lines.contains { $0.hasPrefix("2026-10-25 13:45 +00:00  delivered  lay 2  Pills") })
    }

    @Test("plan --svg draws the week it prints, every start by its title")
    func planPicture() {
        let directory = scratchDirectory()
        let output = DaysomeCtl.run(
            [
                "plan", "--household", fixture("households/seed.json"), "--from", "2026-10-25T08:00", "--days", "2",
                "--svg", directory + "/plan.svg",
            ], context: self.context)
        #expect(output.status == .success, "\(output.stderr)")
        let svg = (try? FileIO.read(directory + "/plan.svg", limit: 1 << 20)).map {
            String(decoding: $0, as: UTF8.self)
        }
        #expect(svg?.hasPrefix("<svg") == true)
        #expect(svg?.contains("Daysome plan · seed.json") == true)
        #expect(svg?.contains(">Lunch") == true, "\(svg ?? "")")
        let unwritable = DaysomeCtl.run(
            ["plan", "--household", fixture("households/seed.json"), "--svg", directory + "/missing/plan.svg"],
            context: self.context)
        #expect(unwritable.status == .failure)
        #expect(unwritable.stderr.contains("missing/plan.svg"), "\(unwritable.stderr)")
    }

    @Test("A bad script line is a usage error naming its line number")
    func badScriptLine() {
        let directory = scratchDirectory()
        for (text, line) in [
            ("2026-10-25T12:59 foreground\n# fine\n2026-10-25T13:05 asleep\n", 3),
            ("\n\n\n\nyesterday away\n", 5),
            ("2026-10-25T12:59\n", 1),
            ("2026-02-30T12:00 away\n", 1),
        ] {
            let path = directory + "/bad\(line)"
            write(text, to: path)
            let output = self.replay(["--from", "2026-10-25T08:00", "--to", "2026-10-25T18:00", "--display", path])
            #expect(output.status == .usage, "\(text)")
            #expect(output.stdout == "")
            #expect(output.stderr.contains("line \(line):"), "\(output.stderr)")
            #expect(output.stderr.split(separator: "\n").count == 1)
        }
    }

    @Test("Missing or bad times and spans are usage errors")
    func badTimes() {
        #expect(self.replay(["--from", "2026-10-25T08:00"]).status == .usage)
        #expect(self.replay(["--from", "yesterday", "--to", "2026-10-25T08:00"]).status == .usage)
        #expect(self.replay(["--from", "2026-10-25T08:00", "--to", "2026-10-25T08:00"]).status == .usage)
        #expect(self.replay(["--from", "2026-10-25T08:00", "--to", "2028-10-25T08:00"]).status == .usage)
        #expect(self.replay(["--from", "2026-10-25T08:00Z", "--to", "2026-10-25T09:00+01:00"]).status == .usage)
    }

    @Test("Household errors as plan reports them: skipped items named, an unusable file exits 2")
    func householdErrors() {
        let mixed = self.replay(
            ["--from", "2026-10-25T08:00", "--to", "2026-10-26T08:00"], household: fixture("bad/mixed-items.json"))
        #expect(mixed.status == .success)
        #expect(!mixed.stderr.isEmpty)
        let unusable = self.replay(
            ["--from", "2026-10-25T08:00", "--to", "2026-10-26T08:00"], household: fixture("bad/not-json.json"))
        #expect(unusable.status == .usage)
        #expect(unusable.stdout == "")
        let off = self.replay(
            ["--from", "2026-10-25T08:00", "--to", "2026-10-26T08:00"],
            household: fixture("households/notify-off.json"))
        #expect(off.status == .success)
        #expect(off.stderr.contains("notifyInOtherApps"))
    }

    @Test("--help describes the verb and the script format")
    func help() {
        let output = DaysomeCtl.run(["replay", "--help"], context: self.context)
        #expect(output.status == .success)
        for word in ["--household PATH", "--from TIME", "--to TIME", "--display SCRIPT", "--svg FILE", "--json"] {
            #expect(output.stdout.contains(word), "\(word)")
        }
        #expect(output.stdout.contains("foreground"))
        #expect(DaysomeCtl.run(["--help"], context: self.context).stdout.contains("replay"))
        #expect(DaysomeCtl.run(["pending", "--help"], context: self.context).stdout.contains("--svg FILE"))
    }
}
