// The shape of daysomectl's help that the bash completion and the man page generator read
// (completions/daysomectl.bash, scripts/gen-man): checked here on the verb table, so that a
// new verb or option that those readers would misread fails in `swift test`, not at packaging.

import DaysomeCLI
import DaysomeCore
import Testing

@Suite("Help shape read by the completion and the man pages")
struct CompletionTests {
    let verbs = DaysomeCtl.specs

    /// A value the readers recognise: `PATH`, `N`, `SECONDS`… or a choice such as `foreground|away`.
    static func isValueName(_ text: String) -> Bool {
        let placeholder = !text.isEmpty && text.allSatisfy { $0.isUppercase || $0 == "_" } && text.first != "_"
        let choices = text.split(separator: "|", omittingEmptySubsequences: false)
        let choice =
            choices.count > 1
            && choices.allSatisfy { part in
                !part.isEmpty && part.allSatisfy { $0.isLowercase || $0.isNumber || $0 == "-" }
            }
        return placeholder || choice
    }

    @Test("Verb names are lower-case words")
    func verbNames() {
        for verb in self.verbs {
            #expect(verb.name.first?.isLowercase == true, "\(verb.name)")
            #expect(verb.name.allSatisfy { $0.isLowercase || $0.isNumber || $0 == "-" }, "\(verb.name)")
        }
    }

    @Test("Options are --long names with at most one value name the readers recognise")
    func options() {
        for verb in self.verbs {
            for option in verb.options {
                #expect(option.name.hasPrefix("--"), "\(verb.name) \(option.name)")
                #expect(!option.name.contains(" ") && !option.name.contains("="), "\(verb.name) \(option.name)")
                if let value = option.valueName {
                    #expect(Self.isValueName(value), "\(verb.name) \(option.name) \(value)")
                }
                #expect(!option.help.isEmpty, "\(verb.name) \(option.name) has no help")
            }
        }
    }

    @Test("Positional arguments are placeholders or choices")
    func arguments() {
        for verb in self.verbs {
            for argument in verb.arguments {
                #expect(Self.isValueName(argument), "\(verb.name) \(argument)")
            }
        }
    }

    @Test("The program's help lists every verb as a 'COMMANDS:' row")
    func commandRows() {
        let help = helpText(program: "daysomectl", summary: "daysomectl: test.", verbs: self.verbs, verb: nil)
        let lines = help.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let start = lines.firstIndex(of: "COMMANDS:") else {
            Issue.record("no COMMANDS: heading")
            return
        }
        let rows = lines[(start + 1)...].prefix { !$0.isEmpty }
        let names = rows.map { $0.dropFirst(2).prefix { $0 != " " } }.map(String.init)
        #expect(names == self.verbs.map(\.name))
        #expect(rows.allSatisfy { $0.hasPrefix("  ") && !$0.hasPrefix("   ") })
    }

    @Test("Each verb's help has USAGE with the verb, and OPTIONS rows starting with its options")
    func verbHelp() {
        for verb in self.verbs {
            let help = helpText(program: "daysomectl", summary: "", verbs: self.verbs, verb: verb.name)
            #expect(help.contains("USAGE:\n  daysomectl \(verb.name)"), "\(verb.name)")
            for option in verb.options {
                let row = "  " + option.name + (option.valueName.map { " " + $0 } ?? "") + " "
                #expect(help.contains("\n" + row), "\(verb.name): no row starting '\(row)'")
            }
        }
    }

    @Test("--help-data lists every verb with the option rows its --help prints")
    func helpData() throws {
        let output = ctl(["--help-data"])
        #expect(output.status == .success)
        let json = try JSONParser.parse(output.stdout)
        let commands = json.objectValue?["commands"]?.arrayValue ?? []
        #expect(commands.compactMap { $0.objectValue?["name"]?.stringValue } == self.verbs.map(\.name))
        for (command, verb) in zip(commands, self.verbs) {
            let object = command.objectValue
            let help = helpText(program: "daysomectl", summary: "", verbs: self.verbs, verb: verb.name)
            let rows = object?["options"]?.arrayValue ?? []
            let names = rows.flatMap { $0.objectValue?["names"]?.arrayValue?.compactMap(\.stringValue) ?? [] }
            #expect(names == verb.options.map(\.name) + (verb.options.isEmpty ? [] : ["-h", "--help"]), "\(verb.name)")
            for row in rows {
                let text = row.objectValue?["help"]?.stringValue ?? ""
                #expect(help.contains(text), "\(verb.name): '\(text)' is not in its --help")
            }
            #expect(object?["usage"]?.stringValue == verb.usage(program: "daysomectl"))
            #expect(help.contains("USAGE:\n  " + (object?["usage"]?.stringValue ?? "?")))
            #expect(object?["arguments"]?.arrayValue?.compactMap(\.stringValue) == verb.arguments)
        }
        let codes = json.objectValue?["exitStatus"]?.arrayValue?.compactMap { $0.objectValue?["code"]?.countValue }
        #expect(codes == [0, 1, 2])
        #expect(
            ctl(["--help"]).stdout.hasSuffix(
                "Exit status: 0 on success, 1 on a runtime failure, 2 on bad usage or bad input.\n"))
    }
}
