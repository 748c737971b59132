// daysomectl's verb table and dispatcher. Each verb lives in its own file; this one only
// routes, and turns usage errors into one line and exit status 2.

import DaysomeCore
import DaysomeFiles

/// The control and inspection tool.
public enum DaysomeCtl {
    struct Verb: Sendable {
        let spec: VerbSpec
        let run: @Sendable (ParsedCommand, CommandContext) -> CommandOutput
    }

    static let verbs: [Verb] = [
        Verb(spec: signalVerb, run: runSignal),
        Verb(spec: planVerb, run: runPlan),
        Verb(spec: pendingPictureVerb, run: runPendingWithPicture),
        Verb(spec: historyVerb, run: runHistory),
        Verb(spec: statusVerb, run: runStatus),
        Verb(spec: replayVerb, run: runReplay),
        Verb(spec: tryVerb, run: runTry),
        Verb(spec: fireVerb, run: runFire),
    ]

    /// The verb table, for help and man pages.
    public static var specs: [VerbSpec] { self.verbs.map(\.spec) }

    /// Why a command that finds its daemon by `$XDG_RUNTIME_DIR`'s defaults cannot, or nil when the
    /// options it was given suffice: `history` needs only a state directory (`--state-dir`, or the one
    /// the daemon owning `--runtime-dir` published), `signal` only a display state file
    /// (`--display-state`, or the one the daemon owning `--runtime-dir` published), the others only
    /// `--runtime-dir`.
    static func runtimeEnvironmentProblem(
        _ command: ParsedCommand, _ context: CommandContext
    )
        -> RuntimeEnvironmentProblem?
    {
        // `fire` requires --runtime-dir; `plan` and `replay` find no daemon.
        let spec = self.specs.first { $0.name == command.verb }
        guard command.verb != "fire", spec?.options.contains(where: { $0.name == "--runtime-dir" }) == true else {
            return nil
        }
        if optionsSuffice(command, context) { return nil }
        return RuntimeEnvironmentProblem.check(context.environment)
    }

    /// Whether `command`'s own path options name every file it reads or writes, so no default is needed.
    static func optionsSuffice(_ command: ParsedCommand, _ context: CommandContext) -> Bool {
        switch command.verb {
        case "signal":
            if command.options["--display-state"] != nil { return true }
            // A daemon started elsewhere published its display file: the runtime directory names it.
            return command.options["--runtime-dir"] != nil
                && publishedDisplayStatePath(paths(command, context)) != nil
        case "history":
            return command.options["--state-dir"] != nil || command.options["--runtime-dir"] != nil
        default:
            return command.options["--runtime-dir"] != nil
        }
    }

    /// What the tool is for, as the help's first line and the man page's NAME say it.
    static let about = "signal the Daysome daemon, and inspect its plan, queue, history and status"
    static let summary = "daysomectl: \(about)."

    /// Runs one command line (without the program name). Whatever it prints goes to a terminal
    /// inert: each text escapes what it quotes, and any control a text left raw (a path, a
    /// daemon's reply) is escaped last (`TerminalText.inert`). JSON holds none raw.
    public static func run(_ argv: [String], context: CommandContext) -> CommandOutput {
        var output = self.dispatch(argv, context: context)
        output.stdout = TerminalText.inert(output.stdout)
        output.stderr = TerminalText.inert(output.stderr)
        return output
    }

    private static func dispatch(_ argv: [String], context: CommandContext) -> CommandOutput {
        // For scripts/gen-man and the bash completion only, so it stays out of --help and the parser.
        if argv == ["--help-data"] {
            let data = helpData(program: "daysomectl", about: self.about, version: daysomeVersion, verbs: self.specs)
            return CommandOutput(stdout: data.json.serialized(pretty: true) + "\n")
        }
        let invocation: Invocation
        do {
            invocation = try parseCommandLine(argv, verbs: self.specs)
        } catch {
            let verb = argv.first.flatMap { name in self.specs.contains { $0.name == name } ? name : nil }
            let see = verb.map { "daysomectl \($0) --help" } ?? "daysomectl --help"
            return .failure(.usage, "\(error). See '\(see)'.")
        }
        switch invocation {
        case .help(let verb):
            return CommandOutput(
                stdout: helpText(program: "daysomectl", summary: self.summary, verbs: self.specs, verb: verb))
        case .version:
            return CommandOutput(stdout: "daysomectl \(daysomeVersion)\n")
        case .run(let command):
            if let problem = self.runtimeEnvironmentProblem(command, context) {
                return .failure(problem.isBadInput ? .usage : .failure, problem.description)
            }
            return self.verbs.first { $0.spec.name == command.verb }!.run(command, context)
        }
    }
}
