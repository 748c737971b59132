// The command line, accepted and refused, as pure tests on [String].

import DaysomeCLI
import DaysomeCore
import Testing

@Suite("Arguments")
struct ArgumentsTests {
    let verbs = DaysomeCtl.specs

    @Test("Options take values separated by a space or an equals sign")
    func optionValues() throws {
        #expect(
            try parseCommandLine(["plan", "--household", "h.json", "--days=3", "--json"], verbs: verbs)
                == .run(ParsedCommand(verb: "plan", options: ["--household": "h.json", "--days": "3", "--json": ""])))
    }

    @Test("Help is asked for with --help anywhere, or the help verb")
    func help() throws {
        #expect(try parseCommandLine(["--help"], verbs: verbs) == .help(nil))
        #expect(try parseCommandLine(["plan", "--help"], verbs: verbs) == .help("plan"))
        #expect(try parseCommandLine(["help", "plan"], verbs: verbs) == .help("plan"))
    }

    @Test(
        "Bad command lines name the bad token",
        arguments: [
            (["nope"], UsageError.unknownVerb("nope")),
            (["plan", "--bogus"], UsageError.unknownOption("--bogus", verb: "plan")),
            (["plan", "--days"], UsageError.missingValue("--days")),
            (["plan", "extra"], UsageError.unexpectedArgument("extra")),
            ([], UsageError.missingVerb),
        ])
    func refused(argv: [String], expected: UsageError) {
        #expect(throws: expected) { try parseCommandLine(argv, verbs: verbs) }
    }
}
