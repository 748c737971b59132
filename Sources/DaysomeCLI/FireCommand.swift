// `daysomectl fire --lay N --runtime-dir DIR`: what a systemd timer of the daemon's runs. It
// asks the daemon that laid the timer to deliver the start that is due; the daemon posts every
// notification itself. If that daemon is down, the fire waits briefly for it, then leaves the
// start to rule 2: a daemon that comes back within the grace window delivers it late.

import DaysomeCore
import DaysomeFiles
import Glibc
import SystemdKit

let fireVerb = VerbSpec(
    "fire",
    options: [
        OptionSpec("--lay", "N", "The lay whose timer fired (required)."),
        OptionSpec("--runtime-dir", "DIR", "The runtime directory of the daemon that laid it (required)."),
        OptionSpec("--wait", "SECONDS", "How long to wait for a daemon that is down, 0 to 60 (default 5)."),
    ],
    summary: "Ask the daemon to deliver the start that is due (run by the systemd backend's timers).")

/// Runs `fire`.
func runFire(_ command: ParsedCommand, _ context: CommandContext) -> CommandOutput {
    guard let layText = command.options["--lay"], let lay = UInt64(layText) else {
        return .failure(.usage, "'fire' needs --lay N, a lay number. See 'daysomectl fire --help'.")
    }
    guard let runtime = command.options["--runtime-dir"] else {
        return .failure(.usage, "'fire' needs --runtime-dir DIR. See 'daysomectl fire --help'.")
    }
    var wait = 5
    if let text = command.options["--wait"] {
        guard let parsed = Int(text), (0...60).contains(parsed) else {
            return .failure(
                .usage, UsageError.invalidValue(option: "--wait", value: text, expected: "0 to 60 seconds").description)
        }
        wait = parsed
    }
    let path = runtime + "/control"
    let deadline = monotonicMilliseconds() + Int64(wait) * 1_000
    var askedManager = false
    while true {
        switch request(path, ControlRequest.fire(lay: lay).line) {
        case .success(let reply):
            // Read through the type the daemon wrote it with; a line it does not know is shown as is.
            return CommandOutput(stdout: "lay \(lay): \(FireReply(line: reply)?.line ?? reply)\n")
        case .failure(let error):
            if !askedManager {
                askedManager = true
                bringBackTheUnit(runtimeDirectory: runtime, environment: context.environment)
            }
            if monotonicMilliseconds() >= deadline {
                return CommandOutput(
                    stdout: "lay \(lay): no daemon answers at '\(path)' (\(error.reason)); "
                        + "rule 2 decides when it is back\n")
            }
            usleep(100_000)
        }
    }
}

/// The daemon installed as the user unit runs on the default paths: when that is the daemon
/// whose timer fired, start the unit again (a no-op if it runs, "no such unit" where none is
/// installed); rule 2 then decides. A daemon started with other paths is not the unit's to start.
/// The manager is asked without listing units first: it forgets a stopped unit nothing
/// references, so a list would say "not there" exactly when the unit needs starting.
private func bringBackTheUnit(runtimeDirectory: String, environment: [String: String]) {
    guard runtimeDirectory == Paths(environment: environment).runtimeDirectory,
        let manager = try? SystemdManager.connectUser(runtimeDirectory: environment["XDG_RUNTIME_DIR"])
    else { return }
    try? manager.startUnitAndWait("daysomed.service")
}

/// Sends one line to a daemon's control socket and reads its one-line answer, waiting at most
/// `timeout` seconds for the connection and for each read (a stopped daemon never answers).
func request(_ path: String, _ line: String, timeout: Int = 5) -> Result<String, FileError> {
    switch exchange(path, line, timeout: timeout, until: { $0.contains(0x0A) }) {
    case .answered(let reply): return .success(String(decoding: reply.prefix { $0 != 0x0A }, as: UTF8.self))
    case .unanswered(let error): return .failure(error)
    }
}

/// What a daemon's control socket said to one line, or why it said nothing.
///
/// Not a `Result`: a generic enum's type is made at run time, at its first use, and making one
/// whose failure must be an `Error` searches every conformance the program has. `pending` on the
/// systemd backend paid that search at each start (issue 44).
enum ControlReply {
    case answered([UInt8])
    case unanswered(FileError)
}

/// Sends one line to a daemon's control socket and reads its answer until `whole` says it is
/// all there, or the daemon closes. The same waits as `request`.
func exchange(_ path: String, _ line: String, timeout: Int, until whole: ([UInt8]) -> Bool) -> ControlReply {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { return .unanswered(FileError(path: path, errno: errno, operation: "connect to")) }
    defer { close(fd) }
    let address: UnixSocketAddress
    do { address = try UnixSocketAddress(path: path) } catch { return .unanswered(error) }
    var limit = timeval(tv_sec: timeout, tv_usec: 0)
    // A Unix socket's connect waits for room in a full backlog as long as the send timeout says.
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    guard address.connect(fd) == 0 else {
        return .unanswered(FileError(path: path, errno: errno, operation: "connect to"))
    }
    writeText(line + "\n", to: fd)
    var reply: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 16_384)
    while !whole(reply) {
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count < 0 && errno == EINTR { continue }
        if count <= 0 { break }
        reply += buffer[0..<count]
    }
    guard !reply.isEmpty else { return .unanswered(FileError(path: path, errno: ETIMEDOUT, operation: "hear from")) }
    return .answered(reply)
}

/// Milliseconds on the monotonic clock, for deadlines that a clock jump cannot move.
func monotonicMilliseconds() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Int64(now.tv_sec) * 1_000 + Int64(now.tv_nsec) / 1_000_000
}
