// `daysomectl pending`, `history` and `status`: what testers inspect. Each reads what the
// daemon published and decides liveness from the runtime directory's lock, never from a pid
// alone: a queue left by a dead daemon is not a queue.

import DaysomeCore
import DaysomeFiles

let pendingVerb = VerbSpec(
    "pending",
    options: [
        OptionSpec("--json", nil, "Print the contract's JSON object."),
        OptionSpec("--raw", nil, "systemd backend: print what the manager reports, unedited."),
    ] + daemonPathOptions,
    summary: "List the live queue: every start laid and not yet fired, read from the backend itself.",
    details: """
        The wheel dies with its daemon: with no live daemon owning the runtime directory, pending
        says so and exits 1. The systemd manager's timers outlive the daemon: they are listed with
        "daemonRunning": false, and pending exits 0.
        """)

let historyVerb = VerbSpec(
    "history", options: [OptionSpec("--json", nil, "Print the contract's JSON object.")] + daemonPathOptions,
    summary: "List what happened: laid, cleared, delivered, reposted, withdrawn, expired and dropped.",
    details: """
        Without --state-dir, the history is read from the state directory the daemon owning the
        runtime directory published (it may run with its own --state-dir). With that daemon gone,
        from the state directory it last published there, or (for the default runtime directory
        only) from the default, each said on stderr; a --runtime-dir where no daemon ever
        published exits 1. The last line (--json: "stateDirectory", "fellBack") names the
        directory read.
        """)

let statusVerb = VerbSpec(
    "status", options: [OptionSpec("--json", nil, "Print the contract's JSON object.")] + daemonPathOptions,
    summary: "Show the daemon, display, lay, backend, notification server and household errors.")

/// Runs `pending`.
func runPending(_ command: ParsedCommand, _ context: CommandContext) -> CommandOutput {
    let paths = paths(command, context)
    let running = DaemonLock.isHeld(runtimeDirectory: paths.runtimeDirectory)
    let bytes = try? FileIO.read(paths.queueFile, limit: 16 << 20, followLinks: false)
    var relayed: ManagerQueue.Relayed?? = .none
    if running, command.has("--json"), let bytes, PublishedQueue.isAsPrinted(bytes) {
        // The wheel's file as its daemon wrote it, in the contract's form: printed as it is once a
        // skim finds a queue's shape in it, with no tree of values built and read (issue 44).
        if QueueSnapshot.hasShape(bytes, backend: "wheel") {
            return CommandOutput(stdout: String(decoding: bytes, as: UTF8.self))
        }
        // The systemd backend's daemon joins the manager's timers with its record itself: what
        // it answers is printed (once skimmed), and this file, which names the backend first, is
        // never decoded.
        if bytes.starts(with: "{\n  \"backend\": \"systemd\",\n".utf8) {
            let answer = ManagerQueue.relay(paths, printed: true)
            if case .printed(let text)? = answer { return CommandOutput(stdout: text) }
            relayed = .some(answer)
        }
    }
    let file = decodeQueueFile(bytes, paths)
    let published = file.map(\.queue)
    if case .success(let queue) = published, queue.backend == "systemd" {
        return ManagerQueue.pending(
            command, context, paths: paths, published: queue, running: running, relayed: relayed)
    }
    guard running else {
        return .failure(
            .failure, "no daemon is running for '\(paths.runtimeDirectory)': the wheel's queue died with it")
    }
    let queue: QueueSnapshot
    switch published {
    case .success(let read): queue = read
    case .failure(let why): return .failure(.failure, why.description)
    }
    if command.has("--json") {
        // The daemon wrote the file as the contract prints it (`QueueSnapshot.serializedBytes`):
        // once it has been read back as a queue, its bytes are printed as they are, not rebuilt.
        if case .success(let read) = file, read.isAsPrinted { return CommandOutput(stdout: read.text) }
        return CommandOutput(stdout: queue.json.serialized(pretty: true) + "\n")
    }
    return CommandOutput(stdout: queueTable(queue, now: context.now))
}

/// The queue the daemon published, through the snapshot type it was written with.
func readQueue(_ paths: Paths) -> Result<QueueSnapshot, CommandFailure> {
    readQueueFile(paths).map(\.queue)
}

/// `queue.json` read back: the snapshot, and the file's own text.
struct PublishedQueue {
    let queue: QueueSnapshot
    let text: String

    /// Whether `text` is already what `pending --json` prints: the pretty form the daemon writes,
    /// one object and a newline. An older or hand-written file is printed through the snapshot.
    var isAsPrinted: Bool { self.text.hasPrefix("{\n  \"") && self.text.hasSuffix("\n}\n") }

    /// Whether `bytes` are in the pretty form the daemon writes.
    static func isAsPrinted(_ bytes: [UInt8]) -> Bool {
        bytes.starts(with: "{\n  \"".utf8) && bytes.suffix(3).elementsEqual("\n}\n".utf8)
    }
}

/// `queue.json` parsed into the snapshot type it was written with, keeping its bytes.
func readQueueFile(_ paths: Paths) -> Result<PublishedQueue, CommandFailure> {
    decodeQueueFile(try? FileIO.read(paths.queueFile, limit: 16 << 20, followLinks: false), paths)
}

/// `bytes` read from `paths`' queue file (nil when it could not be read), decoded.
func decodeQueueFile(_ bytes: [UInt8]?, _ paths: Paths) -> Result<PublishedQueue, CommandFailure> {
    guard let bytes, let json = try? JSONParser.parse(bytes) else {
        return .failure(
            CommandFailure("the daemon for '\(paths.runtimeDirectory)' has not published its queue yet"))
    }
    do {
        return .success(
            PublishedQueue(queue: try QueueSnapshot(json: json), text: String(decoding: bytes, as: UTF8.self)))
    } catch {
        return .failure(CommandFailure("the queue in '\(paths.queueFile)' cannot be read: \(error)"))
    }
}

/// Why a command could not go on, in one line.
struct CommandFailure: Error, CustomStringConvertible {
    let description: String
    /// The daemon runs but has not written the file yet (it is still starting).
    var notPublished = false

    init(_ description: String, notPublished: Bool = false) {
        self.description = description
        self.notPublished = notPublished
    }
}

/// The queue as a table shaped like `systemctl list-timers`: next, left, lay, title, handle.
func queueTable(_ queue: QueueSnapshot, now: Instant) -> String {
    var text = "Display \(queue.display?.rawValue ?? "?"); "
    text += queue.lay.map { "lay \($0)" } ?? "nothing laid"
    text += "; backend \(queue.backend)\n"
    if !queue.daemonRunning {
        text += "The daemon is not running: these timers bring it back when they fire.\n"
    }
    guard !queue.pending.isEmpty else { return text + "Nothing is pending.\n" }
    var rows = [["NEXT", "LEFT", "LAY", "TITLE", "HANDLE"]]
    for start in queue.pending {
        rows.append([
            humanLocal(start.local), left(from: now, to: start.at), start.lay.map { String($0) } ?? "?",
            printable(start.title), start.handle,
        ])
    }
    return text + "\n" + table(rows) + "\n\(queue.pending.count) starts pending.\n"
}

/// Runs `history`.
func runHistory(_ command: ParsedCommand, _ context: CommandContext) -> CommandOutput {
    let paths = paths(command, context)
    let running = DaemonLock.isHeld(runtimeDirectory: paths.runtimeDirectory)
    var published: String?
    if command.options["--state-dir"] == nil, case .success(let status) = readStatus(paths) {
        published = status.daemon?.stateDirectory
    }
    let source = HistorySource.decide(
        stateDirectory: command.options["--state-dir"].map { _ in paths.stateDirectory },
        runtimeDirectoryGiven: command.options["--runtime-dir"] != nil, running: running, published: published,
        defaultDirectory: paths.stateDirectory)
    let warning = source.warning(runtimeDirectory: paths.runtimeDirectory).map { "daysomectl: " + $0 + "\n" } ?? ""
    guard let directory = source.directory else { return CommandOutput(status: .failure, stderr: warning) }
    var read = paths
    read.stateDirectory = directory
    let records = HistoryFile.read(path: read.historyFile)
    if command.has("--json") {
        let snapshot = HistorySnapshot(history: records, stateDirectory: directory, fellBack: source.fellBack)
        return CommandOutput(stdout: snapshot.json.serialized(pretty: true) + "\n", stderr: warning)
    }
    let footer = source.footer(runtimeDirectory: paths.runtimeDirectory) + "\n"
    guard !records.isEmpty else { return CommandOutput(stdout: "No history yet.\n" + footer, stderr: warning) }
    var rows = [["TIME", "EVENT", "LAY", "START", "ITEMS", "REASON"]]
    for record in records {
        rows.append([
            record.time.rfc3339, record.event.rawValue, String(record.lay), record.at?.rfc3339 ?? "-",
            record.itemIds.isEmpty ? "-" : record.itemIds.joined(separator: ","),
            printable(
                ([record.reason] + [record.held.map { "held: " + $0 }]).compactMap { $0 }.joined(separator: "; ")),
        ])
    }
    return CommandOutput(stdout: table(rows) + footer, stderr: warning)
}

/// Runs `status`.
func runStatus(_ command: ParsedCommand, _ context: CommandContext) -> CommandOutput {
    let paths = paths(command, context)
    let running = DaemonLock.isHeld(runtimeDirectory: paths.runtimeDirectory)
    var status = StatusSnapshot.noDaemon(householdPath: paths.household)
    if running {
        switch readStatus(paths) {
        case .success(let read): status = read
        // A daemon still starting has not published yet: nothing can be delivered until it has.
        case .failure(let why) where why.notPublished: break
        case .failure(let why): return .failure(.failure, why.description)
        }
    }
    if command.has("--json") {
        return CommandOutput(stdout: status.json.serialized(pretty: true) + "\n")
    }
    guard running, let daemon = status.daemon else {
        let state = running ? "starting, nothing published yet" : "not running"
        return CommandOutput(
            status: .success, stdout: "daysomed: \(state) for '\(paths.runtimeDirectory)'\nCan deliver: no\n")
    }
    return CommandOutput(stdout: statusText(status, daemon))
}

/// The status the daemon published, through the snapshot type it was written with.
func readStatus(_ paths: Paths) -> Result<StatusSnapshot, CommandFailure> {
    guard let json = readJSON(paths.statusFile) else {
        return .failure(
            CommandFailure(
                "the daemon for '\(paths.runtimeDirectory)' has not published its status yet", notPublished: true))
    }
    do {
        return .success(try StatusSnapshot(json: json))
    } catch {
        return .failure(CommandFailure("the status in '\(paths.statusFile)' cannot be read: \(error)"))
    }
}

/// `status` as text: one line a part, the household's errors last.
func statusText(_ status: StatusSnapshot, _ daemon: StatusSnapshot.Daemon) -> String {
    var lines: [String] = []
    lines.append("daysomed: running (pid \(status.pid.map { String($0) } ?? "?"))")
    lines.append("Display: \(status.display?.rawValue ?? "?")")
    if let problem = daemon.displayFileProblem { lines.append(displayFileLine(problem)) }
    lines.append(lockStatusLine(daemon.lock, fileProblem: daemon.displayFileProblem))
    lines += lockDecisionLines(daemon.lock)
    lines.append(
        "Lay: " + (status.lay.map { "\($0), laid until \(status.laidUntil?.rfc3339 ?? "?")" } ?? "none"))
    if let next = status.nextStart {
        lines.append("Next start: \(next.at.rfc3339) \(printable(next.title))")
    }
    lines.append("Backend: \(status.backend ?? "?"), notifier \(daemon.notifier)")
    let server = status.notificationServer
    lines.append("Notification server: " + (server.present ? server.name ?? "present" : "none answering"))
    lines += serverCare(server)
    let notify = status.notifyInOtherApps == true
    lines.append(
        "Notifications in other apps: " + (notify ? "on" : "off (a carer turns on settings.notifyInOtherApps)"))
    // The real reason, from the daemon: a broken household with nothing kept is not a switch left off.
    if let reason = daemon.notLaidReason { lines.append("Nothing is laid: " + printable(reason)) }
    lines.append(canDeliverLine(status))
    if daemon.controlSocketAtLimit == true {
        lines.append("Control socket: at the descriptor limit; clients wait until one closes (daysomectl fire, try)")
    }
    // Calls go on while the state directory cannot be written; what is behind is named.
    for error in daemon.stateWriteErrors ?? [] {
        lines.append("State not saved: " + printable(error.description))
    }
    let household = status.household
    lines.append(
        "Household: \(household.path) (\(household.items) items, loaded \(household.loadedAt?.rfc3339 ?? "never"))")
    if let inForce = household.inForce, inForce.source == .keptCopy {
        lines.append("In force: the last good household, kept at \(inForce.path) since \(inForce.since.rfc3339)")
    }
    for error in household.errors {
        lines.append("  error: " + printable(error.description))
    }
    if household.errorCount > household.errors.count {
        lines.append("  ... and \(household.errorCount - household.errors.count) more (\(household.errorCount) in all)")
    }
    return lines.joined(separator: "\n") + "\n"
}

/// `Display file: unreadable line 'Foreground' (keeping foreground)`: the line escaped as every
/// shown text is, or why the file could not be read at all.
func displayFileLine(_ problem: DisplayFileProblem) -> String {
    let what = problem.line.map { "unreadable line '\(printable($0))'" } ?? "unreadable (\(printable(problem.message)))"
    return "Display file: \(what) (keeping \(problem.keeping.rawValue))"
}

/// `2026-11-30 13:00 +00:00` from an RFC 3339 local time.
func humanLocal(_ text: String) -> String {
    guard text.count >= 25 else { return text }
    let characters = Array(text)
    return String(characters[0..<10]) + " " + String(characters[11..<16]) + " " + String(characters[19...])
}

/// `2h 5min`, `3 days 4h`, `45s`: how long until an instant, as list-timers shows it.
func left(from now: Instant, to at: Instant) -> String {
    let seconds = at.seconds - now.seconds
    if seconds < 0 { return "passed" }
    if seconds < 60 { return "\(seconds)s" }
    let minutes = seconds / 60
    if minutes < 60 { return "\(minutes)min" }
    let hours = minutes / 60
    if hours < 24 { return "\(hours)h \(minutes % 60)min" }
    return "\(hours / 24) days \(hours % 24)h"
}

/// Rows as aligned columns, two spaces apart.
func table(_ rows: [[String]]) -> String {
    let columns = rows.map(\.count).max() ?? 0
    let widths = (0..<columns).map { column in rows.map { column < $0.count ? $0[column].count : 0 }.max() ?? 0 }
    return rows.map { row in
        row.enumerated().map { column, cell in
            column == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[column] - cell.count + 2)
        }.joined() + "\n"
    }.joined()
}
