// The family's words as daysomectl prints them: a lone surrogate in the household is U+FFFD, never
// a refused file, and nothing a terminal would act on reaches it raw, whichever text carries it.

import DaysomeCore
import DaysomeFiles
import Glibc
import Testing

@testable import DaysomeCLI

@Suite("The family's words, as daysomectl prints them")
struct FamilyTextTests {
    /// A household in a scratch file of its own; the caller removes the directory.
    private func householdFile(_ name: String, _ text: String) throws -> (directory: String, path: String) {
        let directory = repositoryRoot + "/.testrun/ctl-words-\(name)-\(getpid())"
        try FileIO.makeDirectories(directory, mode: 0o700)
        let path = directory + "/household.json"
        try FileIO.writeAtomically(path, Array(text.utf8))
        return (directory, path)
    }

    @Test("A lone surrogate in a label, the PIN or the note never refuses the household: the label shows U+FFFD")
    func aLoneSurrogateIsTheReplacementCharacterNotARefusedFile() throws {
        let (directory, path) = try householdFile(
            "surrogate",
            #"""
            { "version": 1, "timeZone": "UTC", "supervisorPin": "40\udc0071", "note": { "text": "Jean \ud83d" },
              "settings": { "notifyInOtherApps": true },
              "items": [ { "id": "lunch", "label": "Lunch \ud800", "detail": "Soup \udbff and a roll",
                           "kind": "meal", "time": "13:00", "repeat": "daily" } ] }
            """#)
        defer { _ = shell("rm -rf '\(directory)'") }
        let output = ctl(["plan", "--household", path, "--from", "2026-11-30T00:00"])
        #expect(output.status == .success, "\(output)")
        #expect(output.stderr.isEmpty, "\(output)")
        #expect(
            output.stdout.contains("  13:00 +00:00  Lunch \u{FFFD}  Soup \u{FFFD} and a roll  "), "\(output.stdout)")
        let json = ctl(["plan", "--household", path, "--from", "2026-11-30T00:00", "--json"])
        let starts = try JSONParser.parse(json.stdout).objectValue?["starts"]?.arrayValue ?? []
        #expect(starts.count == 7, "\(json)")
        #expect(starts.first?.objectValue?["title"] == .string("Lunch \u{FFFD}"), "\(json)")
    }

    @Test("Whatever text carries a control, daysomectl's output shows it escaped: a path with a CSI, a NEL, U+2028")
    func aControlInAnyTextIsEscapedOnItsWayOut() {
        let runtime = "/nonexistent/run\u{9B}2J\u{85}\u{2028}\u{2029}\u{7}"
        let output = ctl(["status", "--runtime-dir", runtime])
        #expect(output.status == .success, "\(output)")
        #expect(
            output.stdout
                == "daysomed: not running for '/nonexistent/run\\u{9b}2J\\u{85}\\u{2028}\\u{2029}\\u{7}'\nCan deliver: no\n",
            "\(output)")
        let json = ctl(["status", "--runtime-dir", runtime, "--json"])
        #expect((try? JSONParser.parse(json.stdout)) != nil, "JSON stays JSON: \(json.stdout)")
        let refused = ctl(["plan", "--household", "/nonexistent/\u{9B}31m\u{85}.json"])
        #expect(refused.status == .usage, "\(refused)")
        #expect(refused.stderr.contains("/nonexistent/\\u{9b}31m\\u{85}.json"), "\(refused)")
        #expect(!refused.stderr.unicodeScalars.contains { $0 == "\u{9B}" || $0 == "\u{85}" }, "\(refused)")
    }

    @Test(
        "printable escapes C0, DEL, C1, U+2028, U+2029 and the bidi controls, and keeps every other scalar",
        arguments: [
            ("a\u{1B}[2Jb", "a\\u{1b}[2Jb"), ("\u{7}", "\\u{7}"), ("\u{7F}", "\\u{7f}"), ("x\u{80}", "x\\u{80}"),
            ("\u{85}", "\\u{85}"), ("\u{9B}1m", "\\u{9b}1m"), ("\u{9F}", "\\u{9f}"), ("a\u{2028}b", "a\\u{2028}b"),
            ("\u{2029}", "\\u{2029}"), ("\u{202E}abc", "\\u{202e}abc"), ("\u{2066}", "\\u{2066}"),
            ("two\nlines", "two\\nlines"),
            ("\u{A0}é€\u{FFFD}😀", "\u{A0}é€\u{FFFD}😀"),
        ])
    func printableEscapesWhatATerminalActsOn(text: String, shown: String) {
        #expect(printable(text) == shown)
    }
}
