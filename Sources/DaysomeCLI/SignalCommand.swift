// `daysomectl signal foreground|away [--pid N]`: what the display calls. Writes the display
// state file atomically (temporary file and rename), creating its directory (0700) if the
// daemon has not yet.

import DaysomeCore
import DaysomeFiles
import Glibc

let signalVerb = VerbSpec(
    "signal", arguments: ["foreground|away"],
    options: [
        OptionSpec("--pid", "N", "The display's process: if it dies in the foreground, the display is away."),
        OptionSpec(
            "--if-pid", "N",
            "Only if the file names process N, or none still running: a display that took over keeps its word."),
    ] + daemonPathOptions,
    summary: "Tell the daemon whether the day display is in front of her (what the display calls).")

/// Runs `signal`.
func runSignal(_ command: ParsedCommand, _ context: CommandContext) -> CommandOutput {
    guard let state = DisplayState(rawValue: command.arguments[0]) else {
        return .failure(
            .usage,
            UsageError.invalidValue(option: "state", value: command.arguments[0], expected: "foreground or away")
                .description
                + ". See 'daysomectl signal --help'.")
    }
    var pid: Int32?
    if let text = command.options["--pid"] {
        guard let parsed = processID(text) else {
            return .failure(
                .usage, UsageError.invalidValue(option: "--pid", value: text, expected: processIDForm).description)
        }
        pid = parsed
    }
    let path = displayStatePath(command, context)
    if let text = command.options["--if-pid"] {
        guard let owner = processID(text) else {
            return .failure(
                .usage, UsageError.invalidValue(option: "--if-pid", value: text, expected: processIDForm).description)
        }
        // A second display that took over from the first has said foreground with its own pid:
        // the first one's launcher, seeing its display end, must not say away over it.
        if let bytes = try? FileIO.read(path, limit: 4096, followLinks: false),
            let current = DisplayStateLine(parsing: String(decoding: bytes, as: UTF8.self)),
            let other = current.pid, other != owner, kill(other, 0) == 0 || errno == EPERM
        {
            return CommandOutput(
                stdout: "The display state file names process \(other), still running: left as it is.\n")
        }
    }
    let line = DisplayStateLine(state: state, pid: pid)
    do {
        try FileIO.makeDirectories(directory(of: path), mode: 0o700)
        try FileIO.writeAtomically(path, line.line, mode: 0o600)
    } catch {
        return .failure(.failure, error.description)
    }
    return CommandOutput()
}

/// What `--pid` and `--if-pid` take, as the refusal says it.
let processIDForm = "a process id, digits only"

/// A process id written as the kernel writes one: ASCII digits only, above 0 and within `pid_t`.
/// `Int32` alone would take `+12`, which no display writes: a launcher passing a sign, a space or
/// hex has a bug worth a clear refusal, not a guess.
func processID(_ text: String) -> Int32? {
    guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
        let value = Int32(text), value > 0
    else { return nil }
    return value
}

/// The display state file of the daemon these options name: `--display-state`, else the path the
/// daemon owning `--runtime-dir` published, else the design's default.
func displayStatePath(_ command: ParsedCommand, _ context: CommandContext) -> String {
    let paths = paths(command, context)
    if command.options["--display-state"] != nil { return paths.displayState }
    if command.options["--runtime-dir"] != nil, let published = publishedDisplayStatePath(paths) {
        return published
    }
    return paths.displayState
}

/// The display state file the daemon at `paths.runtimeDirectory` published, or nil before it has.
func publishedDisplayStatePath(_ paths: Paths) -> String? {
    guard case .success(let status) = readStatus(paths) else { return nil }
    return status.daemon?.displayStatePath
}

/// A small JSON file the daemon wrote, or nil.
func readJSON(_ path: String) -> JSONValue? {
    guard let bytes = try? FileIO.read(path, limit: 16 << 20, followLinks: false) else { return nil }
    return try? JSONParser.parse(bytes)
}
