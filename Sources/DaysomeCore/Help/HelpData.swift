// A program's help as data: the verbs, options and exit codes that `--help` prints, given to
// `--help-data` as JSON so that scripts/gen-man and the bash completion read the tables
// themselves instead of scraping the text. Here in the core because it is pure data that both
// programs' libraries build; how each program lays out its `--help` text stays with it.

/// One option row: `--days N   The horizon…`, or `-h, --help   Show this help.`.
public struct HelpOption: Sendable, Equatable {
    /// `["--days"]`, or `["-h", "--help"]`.
    public let names: [String]
    /// The value's name (`PATH`, `N`, `wheel|systemd`), or nil for a flag.
    public let value: String?
    /// The help, as `--help` prints it: one line, or several wrapped lines of one sentence.
    public let lines: [String]

    public init(names: [String], value: String? = nil, lines: [String]) {
        self.names = names
        self.value = value
        self.lines = lines
    }

    /// The help as one line.
    public var help: String { self.lines.map { $0.trimmingSpaces() }.joined(separator: " ") }

    var json: JSONValue {
        .object(
            JSONObject([
                ("names", .array(self.names.map { .string($0) })),
                ("value", self.value.map { .string($0) } ?? .null),
                ("help", .string(self.help)),
            ]))
    }
}

/// One verb of a program with verbs (`daysomectl signal`).
public struct HelpCommand: Sendable, Equatable {
    public let name: String
    /// The one line of the verb table; also the first paragraph of the verb's own help.
    public let summary: String
    /// `daysomectl signal foreground|away [--pid N] …`.
    public let usage: String
    /// The positional arguments, as the usage line shows them: `foreground|away`.
    public let arguments: [String]
    /// The verb's option rows, as its `--help` prints them.
    public let options: [HelpOption]
    /// The text after the options, as printed: paragraphs separated by blank lines, examples indented.
    public let details: String

    public init(
        name: String, summary: String, usage: String, arguments: [String], options: [HelpOption], details: String
    ) {
        self.name = name
        self.summary = summary
        self.usage = usage
        self.arguments = arguments
        self.options = options
        self.details = details
    }

    var json: JSONValue {
        .object(
            JSONObject([
                ("name", .string(self.name)),
                ("summary", .string(self.summary)),
                ("usage", .string(self.usage)),
                ("arguments", .array(self.arguments.map { .string($0) })),
                ("options", .array(self.options.map(\.json))),
                ("details", .string(self.details)),
            ]))
    }
}

/// A program's whole help as data.
public struct HelpData: Sendable, Equatable {
    public let program: String
    public let version: String
    /// What the program is, without its name or a final full stop: `the Daysome notification daemon`.
    public let summary: String
    /// The rest of the opening paragraph, or "".
    public let description: String
    /// The usage as one line: `daysomed [--household PATH] …`.
    public let usage: String
    public let options: [HelpOption]
    public let commands: [HelpCommand]
    /// Paragraphs printed after the options, before the exit status.
    public let notes: [String]
    /// Each exit code with its meaning: `(0, "on success")`.
    public let exitStatus: [(code: Int, meaning: String)]

    public init(
        program: String, version: String, summary: String, description: String, usage: String,
        options: [HelpOption], commands: [HelpCommand] = [], notes: [String] = [],
        exitStatus: [(code: Int, meaning: String)]
    ) {
        self.program = program
        self.version = version
        self.summary = summary
        self.description = description
        self.usage = usage
        self.options = options
        self.commands = commands
        self.notes = notes
        self.exitStatus = exitStatus
    }

    public static func == (lhs: HelpData, rhs: HelpData) -> Bool {
        lhs.json == rhs.json
    }

    /// The `Exit status: 0 on success, 1 on …, 2 on ….` sentence that ends a help text.
    public var exitSentence: String {
        let codes = self.exitStatus.map { "\($0.code) \($0.meaning)" }
        return "Exit status: " + codes.joined(separator: ", ") + "."
    }

    /// The JSON that `--help-data` prints.
    public var json: JSONValue {
        .object(
            JSONObject([
                ("program", .string(self.program)),
                ("version", .string(self.version)),
                ("summary", .string(self.summary)),
                ("description", .string(self.description)),
                ("usage", .string(self.usage)),
                ("options", .array(self.options.map(\.json))),
                ("commands", .array(self.commands.map(\.json))),
                ("notes", .array(self.notes.map { .string($0) })),
                (
                    "exitStatus",
                    .array(
                        self.exitStatus.map {
                            .object(JSONObject([("code", .number(Double($0.code))), ("meaning", .string($0.meaning))]))
                        })
                ),
            ]))
    }
}

extension String {
    /// The string without leading and trailing spaces.
    fileprivate func trimmingSpaces() -> String {
        String(self.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
