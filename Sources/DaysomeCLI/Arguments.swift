// A small argument parser shaped like ArgumentParser and timedatectl: tokens, then a verb
// table that also generates the help. Pure: it takes [String] and returns a value or a
// UsageError, so every accepted and refused command line is a unit test.

import DaysomeCore

/// One option a verb takes.
public struct OptionSpec: Sendable {
    /// `--days`.
    public let name: String
    /// `N`, or nil for a flag such as `--json`.
    public let valueName: String?
    public let help: String

    public init(_ name: String, _ valueName: String? = nil, _ help: String) {
        self.name = name
        self.valueName = valueName
        self.help = help
    }
}

/// One verb of a command: its arguments, options and help.
public struct VerbSpec: Sendable {
    public let name: String
    /// Positional arguments, as shown in the usage line: `foreground|away`.
    public let arguments: [String]
    public let options: [OptionSpec]
    public let summary: String
    /// More lines of help after the options (what it prints, exit codes).
    public let details: String

    public init(_ name: String, arguments: [String] = [], options: [OptionSpec], summary: String, details: String = "")
    {
        self.name = name
        self.arguments = arguments
        self.options = options
        self.summary = summary
        self.details = details
    }

    /// `daysomectl plan --household PATH [--from TIME] …`
    public func usage(program: String) -> String {
        var parts = [program, self.name] + self.arguments
        for option in self.options {
            let text = option.name + (option.valueName.map { " " + $0 } ?? "")
            // An option its help marks "(required)" is shown bare, as usage lines do.
            parts.append(option.help.contains("(required)") ? text : "[\(text)]")
        }
        return parts.joined(separator: " ")
    }
}

/// A parsed command line.
public struct ParsedCommand: Sendable, Equatable {
    public var verb: String
    public var arguments: [String] = []
    /// Option name → value; flags map to "".
    public var options: [String: String] = [:]

    public init(verb: String, arguments: [String] = [], options: [String: String] = [:]) {
        self.verb = verb
        self.arguments = arguments
        self.options = options
    }

    public func has(_ flag: String) -> Bool { self.options[flag] != nil }
}

/// What the command line asked for.
public enum Invocation: Sendable, Equatable {
    case run(ParsedCommand)
    /// `--help`, for the whole program (nil) or one verb.
    case help(String?)
    case version
}

/// A command line that cannot be run, with the token that is wrong.
public enum UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    case missingVerb
    case unknownVerb(String)
    case unknownOption(String, verb: String)
    case missingValue(String)
    case unexpectedArgument(String)
    case missingArgument(String, verb: String)
    case invalidValue(option: String, value: String, expected: String)
    case missingOption(String, verb: String)

    public var description: String {
        switch self {
        case .missingVerb: return "no command given"
        case .unknownVerb(let verb): return "unknown command '\(verb)'"
        case .unknownOption(let option, let verb): return "'\(verb)' has no option '\(option)'"
        case .missingValue(let option): return "option '\(option)' needs a value"
        case .unexpectedArgument(let argument): return "unexpected argument '\(argument)'"
        case .missingArgument(let argument, let verb): return "'\(verb)' needs \(argument)"
        case .invalidValue(let option, let value, let expected):
            return "invalid value '\(value)' for '\(option)': expected \(expected)"
        case .missingOption(let option, let verb): return "'\(verb)' needs \(option)"
        }
    }
}

/// Parses argv (without the program name) against a verb table.
public func parseCommandLine(_ argv: [String], verbs: [VerbSpec]) throws(UsageError) -> Invocation {
    guard let first = argv.first else { throw .missingVerb }
    if first == "--help" || first == "-h" || first == "help" {
        if argv.count > 1, verbs.contains(where: { $0.name == argv[1] }) { return .help(argv[1]) }
        return .help(nil)
    }
    if first == "--version" { return .version }
    guard let verb = verbs.first(where: { $0.name == first }) else {
        if first.hasPrefix("-") { throw .unknownOption(first, verb: "daysomectl") }
        throw .unknownVerb(first)
    }
    var command = ParsedCommand(verb: verb.name)
    var index = 1
    var onlyArguments = false
    while index < argv.count {
        let token = argv[index]
        index += 1
        if onlyArguments || !token.hasPrefix("-") || token == "-" {
            guard command.arguments.count < verb.arguments.count else { throw .unexpectedArgument(token) }
            command.arguments.append(token)
            continue
        }
        if token == "--" {
            onlyArguments = true
            continue
        }
        if token == "--help" || token == "-h" { return .help(verb.name) }
        var name = token
        var inlineValue: String?
        if let equals = token.firstIndex(of: "=") {
            name = String(token[..<equals])
            inlineValue = String(token[token.index(after: equals)...])
        }
        guard let option = verb.options.first(where: { $0.name == name }) else {
            throw .unknownOption(name, verb: verb.name)
        }
        if option.valueName == nil {
            guard inlineValue == nil else { throw .unexpectedArgument(token) }
            command.options[name] = ""
        } else if let inlineValue {
            command.options[name] = inlineValue
        } else {
            guard index < argv.count else { throw .missingValue(name) }
            command.options[name] = argv[index]
            index += 1
        }
    }
    if command.arguments.count < verb.arguments.count {
        throw .missingArgument(verb.arguments[command.arguments.count], verb: verb.name)
    }
    return .run(command)
}

/// Help text with `USAGE:`, `COMMANDS:` and `OPTIONS:` headings and aligned columns.
public func helpText(program: String, summary: String, verbs: [VerbSpec], verb: String?) -> String {
    if let verb, let spec = verbs.first(where: { $0.name == verb }) {
        var text = "\(spec.summary)\n\nUSAGE:\n  \(spec.usage(program: program))\n"
        if !spec.options.isEmpty {
            text += "\nOPTIONS:\n" + aligned(spec.helpOptions.map(\.row))
        }
        if !spec.details.isEmpty { text += "\n" + spec.details + "\n" }
        return text
    }
    var text = "\(summary)\n\nUSAGE:\n  \(program) COMMAND [OPTIONS]\n\nCOMMANDS:\n"
    text += aligned(verbs.map { ($0.name, $0.summary) })
    text += "\nOPTIONS:\n" + aligned(programOptions(program).map(\.row))
    text += "\n" + exitSentence + "\n"
    return text
}

/// The options before a verb, as `--help` lists them.
func programOptions(_ program: String) -> [HelpOption] {
    [
        HelpOption(names: ["-h", "--help"], lines: ["Show help; '\(program) COMMAND --help' for one command."]),
        HelpOption(names: ["--version"], lines: ["Show the version."]),
    ]
}

/// The exit codes every command shares, as the design fixes them.
let exitCodes: [(code: Int, meaning: String)] = [
    (0, "on success"), (1, "on a runtime failure"), (2, "on bad usage or bad input"),
]

/// The sentence that ends the program's help.
var exitSentence: String {
    "Exit status: " + exitCodes.map { "\($0.code) \($0.meaning)" }.joined(separator: ", ") + "."
}

extension VerbSpec {
    /// The option rows the verb's `--help` prints: its options, then `-h, --help`; none when it
    /// takes no options.
    var helpOptions: [HelpOption] {
        guard !self.options.isEmpty else { return [] }
        return self.options.map { HelpOption(names: [$0.name], value: $0.valueName, lines: [$0.help]) }
            + [HelpOption(names: ["-h", "--help"], lines: ["Show this help."])]
    }
}

extension HelpOption {
    /// The row's two columns: `--days N`, then the help.
    var row: (String, String) {
        (self.names.joined(separator: ", ") + (self.value.map { " " + $0 } ?? ""), self.help)
    }
}

/// The program's help as data (`--help-data`), from the same tables as `helpText`.
public func helpData(program: String, about: String, version: String, verbs: [VerbSpec]) -> HelpData {
    HelpData(
        program: program, version: version, summary: about, description: "",
        usage: "\(program) COMMAND [OPTIONS]", options: programOptions(program),
        commands: verbs.map { spec in
            HelpCommand(
                name: spec.name, summary: spec.summary, usage: spec.usage(program: program),
                arguments: spec.arguments, options: spec.helpOptions, details: spec.details)
        },
        exitStatus: exitCodes)
}

/// Two columns, the first padded to the widest entry.
func aligned(_ rows: [(String, String)]) -> String {
    let width = rows.map(\.0.count).max() ?? 0
    return rows.map { "  " + $0.0 + String(repeating: " ", count: width - $0.0.count + 2) + $0.1 + "\n" }.joined()
}
