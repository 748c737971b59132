// daysomectl's verbs as a person runs them: what they print and how they exit (0 success,
// 1 runtime failure, 2 bad usage or bad input), with one clear line on stderr on failure.

import DaysomeCLI
import DaysomeCore
import DaysomeFiles
import Glibc
import Testing

func ctl(_ argv: [String], environment: [String: String] = ["HOME": "/nonexistent"]) -> CommandOutput {
    DaysomeCtl.run(argv, context: CommandContext(environment: environment, now: Instant(seconds: 1_795_996_800)))
}

func fixturePath(_ relative: String) -> String { repositoryRoot + "/Fixtures/" + relative }

@Suite("daysomectl commands")
struct CommandTests {
    @Test("plan on the seed household prints a week a person can read, a day at a time")
    func planTableIsReadable() {
        let output = ctl(["plan", "--household", fixturePath("households/seed.json"), "--from", "2026-11-30T00:00"])
        #expect(output.status == .success)
        #expect(output.stderr.isEmpty)
        let text = output.stdout
        #expect(text.hasPrefix("Europe/London: from 2026-11-30 00:00 +00:00 to 2026-12-07 00:00 +00:00, 64 starts"))
        #expect(text.contains("Monday 2026-11-30\n"))
        #expect(text.contains("  13:00 +00:00  Lunch "))
        #expect(text.contains("Fish pie"))
        #expect(text.contains("Monday afternoon"))
        // One block per day, the seven days in order.
        let names = Weekday.allCases.map(\.englishName)
        let days = text.split(separator: "\n").filter { line in names.contains { line.hasPrefix($0 + " 2026-") } }
        #expect(
            days.map { $0.split(separator: " ")[0] } == [
                "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday",
            ])
    }

    @Test("plan --json prints exactly one object of the contract")
    func planJSON() throws {
        let output = ctl([
            "plan", "--household", fixturePath("households/design-example.json"), "--from", "2026-10-24T11:00:00Z",
            "--json",
        ])
        #expect(output.status == .success)
        let json = try JSONParser.parse(output.stdout)
        #expect(json.objectValue?.keys.prefix(4) == ["timeZone", "from", "until", "starts"])
        #expect(json.objectValue?["starts"]?.arrayValue?.count == 8)
    }

    @Test("plan names each skipped item and field on stderr and exits 0")
    func planWithBadItems() {
        let output = ctl(["plan", "--household", fixturePath("bad/mixed-items.json"), "--from", "2026-11-30T00:00"])
        #expect(output.status == .success)
        let lines = output.stderr.split(separator: "\n")
        #expect(lines.count == 9)
        #expect(lines.contains { $0.contains("item 'late-night'") && $0.contains("field 'time'") })
        #expect(lines.allSatisfy { $0.hasPrefix("daysomectl: ") && $0.contains("mixed-items.json") })
    }

    @Test(
        "plan exits 2 with one line on a file it cannot use at all",
        arguments: ["bad/not-json.json", "bad/items-null.json", "bad/unknown-zone.json", "no-such-file.json"])
    func planUnusableFile(name: String) {
        let output = ctl(["plan", "--household", fixturePath(name)])
        #expect(output.status == .usage)
        #expect(output.stdout.isEmpty)
        #expect(output.stderr.split(separator: "\n").count == 1)
        #expect(output.stderr.contains(name))
    }

    @Test("plan names a whole-file error's file and field once each, in one exact line")
    func planNamesAWholeFileErrorsFieldOnce() {
        let path = fixturePath("bad/version-2.json")
        let output = ctl(["plan", "--household", path])
        #expect(output.status == .usage, "\(output)")
        #expect(output.stderr == "daysomectl: \(path): field 'version': must be 1\n", "\(output)")
    }

    @Test(
        "plan refuses a leap-second or posix/ zone with exit 2 and one line naming the file, the field and the zone to use"
    )
    func planRefusesALeapSecondZone() throws {
        let scratch = repositoryRoot + "/.testrun/ctl-zone-\(getpid())"
        defer { _ = shell("rm -rf '\(scratch)'") }
        try FileIO.makeDirectories(scratch, mode: 0o700)
        for (name, plain) in [("right/Europe/London", "Europe/London"), ("posix/Europe/London", "Europe/London")] {
            let path = scratch + "/household.json"
            try FileIO.writeAtomically(
                path,
                Array(
                    #"{"version": 1, "timeZone": "\#(name)", "items": [{"id": "lunch", "label": "Lunch", "kind": "meal", "time": "13:00", "repeat": "daily"}]}"#
                        .utf8))
            let output = ctl(["plan", "--household", path, "--from", "2026-12-01T00:00"])
            #expect(output.status == .usage, "\(output)")
            #expect(output.stdout.isEmpty)
            #expect(output.stderr.split(separator: "\n").count == 1)
            #expect(output.stderr.contains(path + ": field 'timeZone': \"\(name)\""), "\(output.stderr)")
            #expect(output.stderr.contains("use \"\(plain)\""), "\(output.stderr)")
        }
        // What it would plan: right/Europe/London keeps BST after its table expires, lunch at 12:00 UTC in December.
        let right = try #require(try? ZoneFiles.load(name: "right/Europe/London"))
        #expect(right.offset(at: 1_796_126_400) == 3_600, "the file this refusal guards against changed")
    }

    @Test("plan says why nothing is laid while notifications in other apps are off")
    func planNotifyOff() {
        let output = ctl(["plan", "--household", fixturePath("households/notify-off.json")])
        #expect(output.status == .success)
        #expect(output.stdout.contains("Nothing is laid"))
        #expect(output.stdout.contains("notifyInOtherApps"))
    }

    @Test("Bad usage exits 2 with one line naming the problem and where to look")
    func badUsage() {
        for argv in [
            ["plan"], ["plan", "--household", "x", "--days", "0"], ["signal", "sideways"], ["bogus"],
            ["plan", "--household", fixturePath("households/seed.json"), "--from", "soon"],
        ] {
            let output = ctl(argv)
            #expect(output.status == .usage, "\(argv)")
            #expect(output.stderr.split(separator: "\n").count == 1, "\(argv): \(output.stderr)")
        }
    }

    @Test("Every command has --help, printed to stdout with exit 0")
    func helpForEveryVerb() {
        for verb in DaysomeCtl.specs.map(\.name) {
            let output = ctl([verb, "--help"])
            #expect(output.status == .success)
            #expect(output.stdout.contains("USAGE:"), "\(verb)")
            #expect(output.stdout.contains("daysomectl \(verb)"), "\(verb)")
        }
        #expect(ctl(["--help"]).stdout.contains("COMMANDS:"))
    }

    @Test(
        "signal writes the display state atomically, creating its directory 0700; pending refuses a queue with no daemon"
    )
    func signalAndPendingWithoutDaemon() throws {
        let scratch = repositoryRoot + "/.testrun/ctl-\(getpid())"
        defer { _ = shell("rm -rf '\(scratch)'") }
        let runtime = scratch + "/run/daysome"
        let env = ["HOME": scratch, "XDG_RUNTIME_DIR": scratch + "/run"]
        // The login session's directory exists (pam_systemd makes it); daysome's inside it does not yet.
        try FileIO.makeDirectories(scratch + "/run", mode: 0o700)
        #expect(ctl(["signal", "foreground", "--pid", "42"], environment: env).status == .success)
        let line = String(decoding: try FileIO.read(runtime + "/display", limit: 100), as: UTF8.self)
        #expect(line == "foreground pid=42\n")
        var info = stat()
        #expect(stat(runtime, &info) == 0 && info.st_mode & 0o777 == 0o700)
        #expect(ctl(["signal", "away"], environment: env).status == .success)
        #expect(String(decoding: try FileIO.read(runtime + "/display", limit: 100), as: UTF8.self) == "away\n")
        let pending = ctl(["pending"], environment: env)
        #expect(pending.status == .failure)
        #expect(pending.stderr.contains("no daemon is running"))
        let status = ctl(["status", "--json"], environment: env)
        #expect(status.status == .success)
        #expect(status.stdout.contains("\"running\": false"))
        #expect(status.stdout.contains("\"canDeliver\": false"))
    }

    @Test("A launcher's away never overwrites the foreground of a display that took over and still runs")
    func awayIfPidLeavesAnotherRunningDisplaysForeground() throws {
        let scratch = repositoryRoot + "/.testrun/ctl-if-pid-\(getpid())"
        defer { _ = shell("rm -rf '\(scratch)'") }
        let file = scratch + "/run/daysome/display"
        let env = ["HOME": scratch, "XDG_RUNTIME_DIR": scratch + "/run"]
        try FileIO.makeDirectories(scratch + "/run", mode: 0o700)
        func says() throws -> String { String(decoding: try FileIO.read(file, limit: 100), as: UTF8.self) }
        // This test's own process is the display that took over: it is running.
        #expect(ctl(["signal", "foreground", "--pid", "\(getpid())"], environment: env).status == .success)
        let kept = ctl(["signal", "away", "--if-pid", "999999"], environment: env)
        #expect(kept.status == .success)
        #expect(try says() == "foreground pid=\(getpid())\n")
        #expect(kept.stdout.contains("left as it is"), "\(kept)")
        // The file names the launcher's own display: away is said.
        #expect(ctl(["signal", "away", "--if-pid", "\(getpid())"], environment: env).status == .success)
        #expect(try says() == "away\n")
        // The file names a display that has ended: away is said.
        #expect(ctl(["signal", "foreground", "--pid", "999999"], environment: env).status == .success)
        #expect(ctl(["signal", "away", "--if-pid", "12345"], environment: env).status == .success)
        #expect(try says() == "away\n")
        #expect(ctl(["signal", "away", "--if-pid", "0"], environment: env).status == .usage)
    }

    @Test(
        "--if-pid and --pid take digits only: a sign, a space, hex or a non-ASCII digit is refused with exit 2 and one line, and the file is left as it is",
        arguments: ["+12", " 12", "12 ", "0x1", "-1", "1e3", "\u{0663}", "", "99999999999"])
    func ifPidTakesDigitsOnly(value: String) throws {
        // One directory per case: the cases run side by side.
        let name = value.unicodeScalars.map { String($0.value, radix: 16) }.joined(separator: "-")
        let scratch = repositoryRoot + "/.testrun/ctl-pid-digits-\(getpid())-x\(name)"
        defer { _ = shell("rm -rf '\(scratch)'") }
        let file = scratch + "/display"
        let env = ["HOME": scratch]
        try FileIO.makeDirectories(scratch, mode: 0o700)
        #expect(ctl(["signal", "foreground", "--display-state", file], environment: env).status == .success)
        for option in ["--if-pid", "--pid"] {
            let output = ctl(["signal", "away", option, value, "--display-state", file], environment: env)
            #expect(output.status == .usage, "\(option) '\(value)': \(output)")
            #expect(output.stdout.isEmpty)
            #expect(
                output.stderr
                    == "daysomectl: invalid value '\(value)' for '\(option)': expected a process id, digits only\n")
            #expect(String(decoding: try FileIO.read(file, limit: 100), as: UTF8.self) == "foreground\n")
        }
        // Digits alone are taken.
        #expect(
            ctl(["signal", "away", "--if-pid", "12", "--display-state", file], environment: env).status == .success)
    }

    @Test(
        "XDG_RUNTIME_DIR unset is bad input (exit 2) and set to a missing directory a runtime failure (exit 1), each one clear line, and nothing is created"
    )
    func aMissingRuntimeEnvironmentIsAClearError() throws {
        let scratch = repositoryRoot + "/.testrun/ctl-xdg-\(getpid())"
        defer { _ = shell("rm -rf '\(scratch)'") }
        try FileIO.makeDirectories(scratch, mode: 0o700)
        for verb in [["status"], ["pending"], ["history"], ["try"], ["signal", "away"]] {
            let unset = ctl(verb, environment: ["HOME": scratch])
            #expect(unset.status == .usage, "\(verb): \(unset)")
            #expect(unset.stderr.hasPrefix("daysomectl: XDG_RUNTIME_DIR is not set: "), "\(verb): \(unset)")
            #expect(unset.stderr.filter { $0 == "\n" }.count == 1, "\(verb): \(unset)")
            let missing = ctl(verb, environment: ["HOME": scratch, "XDG_RUNTIME_DIR": scratch + "/gone"])
            #expect(missing.status == .failure, "\(verb): \(missing)")
            #expect(
                missing.stderr.hasPrefix("daysomectl: XDG_RUNTIME_DIR '\(scratch)/gone' cannot be used (No such file"),
                "\(verb): \(missing)")
            #expect(!FileIO.exists(scratch + "/gone"), "\(verb) created the session's runtime directory")
        }
        #expect(ctl(["status"], environment: ["HOME": scratch, "XDG_RUNTIME_DIR": "run"]).status == .usage)
        // Given the paths, no default is needed.
        #expect(ctl(["status", "--runtime-dir", scratch + "/run"], environment: ["HOME": scratch]).status == .success)
        let display = scratch + "/display/state"
        #expect(ctl(["signal", "away", "--display-state", display], environment: ["HOME": scratch]).status == .success)
        #expect(ctl(["plan", "--household", scratch + "/none.json"], environment: [:]).stderr.contains("XDG") == false)
    }
}
