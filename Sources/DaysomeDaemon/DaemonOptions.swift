// daysomed's command line: the design's options with the design's defaults. Pure: argv and
// the environment in, options or a usage error out.

import DaysomeCore
import DaysomeFiles

/// Where starts are laid.
public enum BackendKind: String, Sendable {
    case wheel
    case systemd
}

/// How calls are shown.
public enum NotifierKind: String, Sendable {
    case freedesktop
    case log
}

/// How a call meets Do Not Disturb, for households that do not say (`settings.respectDoNotDisturb`).
public enum DoNotDisturb: String, Sendable {
    /// A Do Not Disturb holds calls back: the server holds the banner, and the bell is silent with it.
    case respect
    /// Seen through a forgotten Do Not Disturb (the design's default): critical where only critical
    /// passes (GNOME Shell), and the bell plays.
    case override
}

/// The daemon's options after parsing.
public struct DaemonOptions: Sendable, Equatable {
    public var paths: Paths
    public var backend: BackendKind = .wheel
    public var notifier: NotifierKind = .freedesktop
    /// Rule 2's grace window, in seconds.
    public var grace: Int64 = 300
    /// Another sound to play instead of the built-in bell.
    public var chimeFile: String?
    /// The player program (absolute path); else the first of pw-play, paplay, aplay on PATH.
    public var player: String?
    /// The systemd user unit that shows the day display, (re)started to bring it back.
    public var displayUnit: String?
    /// A program (absolute path, run without a shell) that brings the day display back.
    public var displayCommand: String?
    /// How a call meets a Do Not Disturb the family forgot.
    public var doNotDisturb: DoNotDisturb = .override

    public init(paths: Paths) {
        self.paths = paths
    }

    /// What the command line asked for.
    public enum Parsed: Equatable, Sendable {
        case run(DaemonOptions)
        case help
        /// `--help-data`: the help as JSON for scripts/gen-man and the bash completion.
        case helpData
        case version
    }

    /// Parses daysomed's argv (without the program name).
    public static func parse(_ argv: [String], environment: [String: String]) throws(UsageError) -> Parsed {
        var options = DaemonOptions(paths: Paths(environment: environment))
        var index = 0
        while index < argv.count {
            var token = argv[index]
            index += 1
            if token == "-h" || token == "--help" { return .help }
            if token == "--help-data" { return .helpData }
            if token == "--version" { return .version }
            var value: String?
            if let equals = token.firstIndex(of: "="), token.hasPrefix("--") {
                value = String(token[token.index(after: equals)...])
                token = String(token[..<equals])
            }
            let known = [
                "--household", "--display-state", "--runtime-dir", "--state-dir", "--backend", "--notifier", "--grace",
                "--chime-file", "--player", "--display-unit", "--display-command", "--dnd",
            ]
            guard known.contains(token) else {
                throw token.hasPrefix("-") ? .unknownOption(token) : .unexpectedArgument(token)
            }
            if value == nil {
                guard index < argv.count else { throw .missingValue(token) }
                value = argv[index]
                index += 1
            }
            let text = value!
            switch token {
            case "--household": options.paths.household = text
            case "--display-state": options.paths.displayState = text
            case "--runtime-dir": options.paths.runtimeDirectory = text
            case "--state-dir": options.paths.stateDirectory = text
            case "--backend":
                guard let kind = BackendKind(rawValue: text) else {
                    throw .invalidValue(token, text, "wheel or systemd")
                }
                options.backend = kind
            case "--notifier":
                guard let kind = NotifierKind(rawValue: text) else {
                    throw .invalidValue(token, text, "freedesktop or log")
                }
                options.notifier = kind
            case "--chime-file": options.chimeFile = text
            case "--player", "--display-command":
                guard text.hasPrefix("/") else { throw .invalidValue(token, text, "an absolute path") }
                if token == "--player" { options.player = text } else { options.displayCommand = text }
            case "--display-unit":
                guard text.hasSuffix(".service") || text.hasSuffix(".target"), !text.contains("/") else {
                    throw .invalidValue(token, text, "a unit name such as daysome-display.service")
                }
                options.displayUnit = text
            case "--dnd":
                guard let mode = DoNotDisturb(rawValue: text) else {
                    throw .invalidValue(token, text, "respect or override")
                }
                options.doNotDisturb = mode
            default:
                guard let seconds = Int64(text), (0...3600).contains(seconds) else {
                    throw .invalidValue(token, text, "a whole number of seconds from 0 to 3600")
                }
                options.grace = seconds
            }
        }
        return .run(options)
    }

    /// These options with every relative path made absolute against `directory`, the working
    /// directory at start (the daemon publishes its paths, and reads its chime long after).
    public func absolute(in directory: String) -> DaemonOptions {
        var options = self
        options.paths = self.paths.absolute(in: directory)
        options.chimeFile = self.chimeFile.map { absolutePath($0, in: directory) }
        return options
    }

    /// A daysomed command line that cannot be run.
    public enum UsageError: Error, Equatable, Sendable, CustomStringConvertible {
        case unknownOption(String)
        case unexpectedArgument(String)
        case missingValue(String)
        case invalidValue(String, String, String)

        public var description: String {
            switch self {
            case .unknownOption(let option): return "unknown option '\(option)'"
            case .unexpectedArgument(let argument): return "unexpected argument '\(argument)'"
            case .missingValue(let option): return "option '\(option)' needs a value"
            case .invalidValue(let option, let value, let expected):
                return "invalid value '\(value)' for '\(option)': expected \(expected)"
            }
        }
    }
}
