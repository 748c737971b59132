// What every daysomectl command receives and returns: an injected environment and clock in,
// text and an exit code out. The main prints; tests read the strings.

import DaysomeCore
import DaysomeFiles

/// The world a command runs in.
public struct CommandContext: Sendable {
    public var environment: [String: String]
    /// Now, whole seconds: the main reads the clock once.
    public var now: Instant
    /// The working directory, against which relative path options are made absolute; nil keeps
    /// them as given.
    public var currentDirectory: String?

    /// The environment variables a command reads through `environment`: only these are passed in
    /// (`CommandContextTests` checks the sources read no other).
    public static let variablesRead = ["HOME", "XDG_CONFIG_HOME", "XDG_RUNTIME_DIR", "XDG_STATE_HOME", "TZ", "TZDIR"]

    public init(environment: [String: String], now: Instant, currentDirectory: String? = nil) {
        self.environment = environment
        self.now = now
        self.currentDirectory = currentDirectory
    }
}

/// Exit statuses, as the design fixes them.
public enum ExitStatus: Int32, Sendable {
    case success = 0
    case failure = 1
    case usage = 2
}

/// What a command printed and how it ended.
public struct CommandOutput: Sendable, Equatable {
    public var status: ExitStatus
    public var stdout: String
    public var stderr: String

    public init(status: ExitStatus = .success, stdout: String = "", stderr: String = "") {
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
    }

    /// One line on stderr and a status: the shape of every failure.
    public static func failure(_ status: ExitStatus, _ line: String) -> CommandOutput {
        CommandOutput(status: status, stderr: "daysomectl: " + line + "\n")
    }
}

/// Options shared by the commands that find a daemon.
let daemonPathOptions = [
    OptionSpec("--runtime-dir", "DIR", "The daemon's runtime directory (default $XDG_RUNTIME_DIR/daysome)."),
    OptionSpec("--state-dir", "DIR", "The daemon's state directory (default $XDG_STATE_HOME/daysome)."),
    OptionSpec("--display-state", "PATH", "The display state file (default $XDG_RUNTIME_DIR/daysome/display)."),
]

/// The daemon's paths: the design's defaults, overridden by options.
func paths(_ command: ParsedCommand, _ context: CommandContext) -> Paths {
    var paths = Paths(environment: context.environment)
    if let dir = command.options["--runtime-dir"] { paths.runtimeDirectory = dir }
    if let dir = command.options["--state-dir"] { paths.stateDirectory = dir }
    if let path = command.options["--display-state"] { paths.displayState = path }
    if let path = command.options["--household"] { paths.household = path }
    // The directory history names, and the paths compared with what a daemon published, are absolute.
    return context.currentDirectory.map { paths.absolute(in: $0) } ?? paths
}
