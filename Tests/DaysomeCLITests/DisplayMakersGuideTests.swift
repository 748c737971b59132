// The display maker's guide says what its tested examples do: it shows docs/examples verbatim
// (the files DisplayExampleTests runs), and it says the things a display maker got wrong by
// copying the earlier guide: what the Python example needs, that the launcher is for kiosks
// only, and that `status`, not the file, is the truth after a crash.

import DaysomeFiles
import Testing

/// A text file of the repository.
func repositoryText(_ path: String) throws -> String {
    String(decoding: try FileIO.read(repositoryRoot + "/" + path, limit: 1 << 20), as: UTF8.self)
}

/// The part of `text` from the line starting with `start` up to the next line starting with `end`.
func section(_ text: String, from start: String, to end: String) -> String {
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    let from = lines.firstIndex { $0.hasPrefix(start) } ?? lines.endIndex
    let to = lines[from...].dropFirst().firstIndex { $0.hasPrefix(end) } ?? lines.endIndex
    return lines[from..<to].joined(separator: "\n")
}

@Suite("The display makers' guide")
struct DisplayMakersGuideTests {
    @Test("The guide shows each example CI runs verbatim, as a whole code block")
    func examplesAreShownVerbatim() throws {
        let guide = try repositoryText("docs/display-makers.md")
        for (file, language) in [("day_display.py", "python"), ("day-display-launcher", "sh")] {
            let code = try repositoryText("docs/examples/" + file)
            #expect(guide.contains("```\(language)\n" + code + "```\n"), "the guide does not show \(file) as it is")
        }
    }

    @Test("The guide's introduction says the Python example is GTK 4 and what to install")
    func introductionNamesGTK4() throws {
        let introduction = section(try repositoryText("docs/display-makers.md"), from: "# ", to: "## 1.")
        #expect(introduction.contains("GTK 4"))
        #expect(introduction.contains("gir1.2-gtk-4.0"))
        #expect(introduction.contains("python3-gi"))
    }

    @Test("The launcher is documented as for kiosks only, in the guide and in the script")
    func launcherIsForKiosksOnly() throws {
        let guide = section(try repositoryText("docs/display-makers.md"), from: "### 3.2", to: "### 3.3")
        #expect(guide.contains("For a kiosk only"))
        #expect(guide.contains("On a desktop it would keep every"))
        #expect(try repositoryText("docs/examples/day-display-launcher").contains("For a kiosk only"))
    }

    @Test("The guide warns that after a crash status, not the file, is the truth")
    func statusIsTheTruthAfterACrash() throws {
        let fileSection = section(try repositoryText("docs/display-makers.md"), from: "## 1.", to: "## 2.")
        #expect(fileSection.contains("After a crash, `status` is the truth, not the file."))
    }

    @Test("The guide leaves the lock to the daemon: no example has lock code, and the Flutter one is marked not run")
    func lockIsTheDaemons() throws {
        let guide = try repositoryText("docs/display-makers.md")
        let table = section(guide, from: "## 2.", to: "**A locked screen")
        #expect(table.contains("| Screen locked | nothing |"))
        #expect(!guide.contains("signal_subscribe"), "an example still follows a lock signal itself")
        #expect(!guide.contains("DBusSignalStream"), "an example still follows a lock signal itself")
        #expect(guide.contains("### 3.3 Flutter (Linux desktop), Dart: not run by CI"))
    }
}
