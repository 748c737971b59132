// Session: one test's world. A private session bus (dbus-daemon with its own config, so nothing is
// bus-activated), Xvfb on a display it picks, dunst owning org.freedesktop.Notifications, and the
// real daysomed and daysomectl built next to the test bundle, all under one run directory. The
// tests read what a user would notice through the real tools: `daysomectl pending|history|status
// --json` and `dunstctl count displayed|history`.

import DaysomeCore
import Glibc

/// One test's processes and files. `close()` stops what it started (newest first, by pid) and
/// removes the run directory.
final class Session: ShowsNotifications {
    let directory: TestDirectory
    let daysomed: String
    let daysomectl: String
    private var processes: [SpawnedProcess] = []
    var outputCount = 0
    private(set) var busAddress: String?
    /// The environment dunst runs with (and dunstctl needs).
    private(set) var serverEnvironment: [String: String]?
    /// The daemon started last.
    private(set) var daemon: SpawnedProcess?
    private var daemonLogs: [String] = []

    var household: String { "\(self.directory.path)/household/household.json" }
    var displayState: String { "\(self.directory.path)/display/state" }
    var runtimeDirectory: String { "\(self.directory.path)/run" }
    var stateDirectory: String { "\(self.directory.path)/state" }
    /// The options `signal`, `pending`, `history` and `status` need to find this daemon.
    var daemonPaths: [String] {
        [
            "--runtime-dir", self.runtimeDirectory, "--state-dir", self.stateDirectory, "--display-state",
            self.displayState,
        ]
    }

    /// What children get: nothing inherited from the test process, XDG paths inside the run
    /// directory, and the private bus. A sound server named explicitly (and absent) keeps the
    /// daemon's chime player from autospawning one that this harness did not start.
    var environment: [String: String] {
        var environment = [
            "PATH": childPath, "HOME": "\(self.directory.path)/home", "LANG": "C.UTF-8",
            "XDG_RUNTIME_DIR": "\(self.directory.path)/xdg-runtime",
            "XDG_CONFIG_HOME": "\(self.directory.path)/home/.config",
            "XDG_STATE_HOME": "\(self.directory.path)/home/.local/state",
            "PULSE_SERVER": "unix:\(self.directory.path)/no-sound-server",
            "PIPEWIRE_REMOTE": "\(self.directory.path)/no-sound-server",
        ]
        if let address = self.busAddress {
            environment["DBUS_SESSION_BUS_ADDRESS"] = address
        }
        return environment
    }

    /// Everything every daemon of this session wrote on stderr.
    var daemonStderr: String { self.daemonLogs.map(readFile).joined() }

    private init() throws {
        self.daysomed = try builtProduct("daysomed")
        self.daysomectl = try builtProduct("daysomectl")
        self.directory = try TestDirectory()
        for name in ["home", "xdg-runtime", "household", "out"] {
            try self.directory.makeDirectory(name)
        }
    }

    /// A session with a private bus and, unless told otherwise, Xvfb and dunst running.
    static func start(notificationServer: Bool = true) async throws -> Session {
        let session = try Session()
        do {
            try await session.startSessionBus()
            if notificationServer { try await session.startNotificationServer() }
        } catch {
            session.stop()
            throw error
        }
        return session
    }

    deinit {
        self.stop()
    }

    /// Stops every process this session started, newest first, by pid.
    func stop() {
        for process in self.processes.reversed() {
            process.stop()
        }
        self.processes.removeAll()
    }

    // MARK: Services

    /// `dbus-daemon --nofork --print-address=1` with a session config that has no service
    /// directories (the stock one would let the bus activate /usr/bin/dunst behind our back).
    private func startSessionBus() async throws {
        let (process, address) = try await startPrivateSessionBus(
            in: self.directory, home: "\(self.directory.path)/home")
        self.processes.append(process)
        self.busAddress = address
    }

    /// Xvfb on a display it picks (-displayfd, so parallel tests do not collide) and dunst on the
    /// session's bus; waits until dunst answers `dunstctl count displayed`.
    private func startNotificationServer() async throws {
        _ = try findExecutable("dbus-send", package: "dbus-bin")
        _ = try findExecutable("busctl", package: "systemd")
        let (xvfb, display) = try await startXvfb(in: self.directory, home: "\(self.directory.path)/home")
        self.processes.append(xvfb)
        var environment = self.environment
        environment["DISPLAY"] = display
        self.serverEnvironment = environment
        let dunst = try await startDunst(in: self.directory, environment: environment) {
            try await self.dunstctl(["count", "displayed"]).status == 0
        }
        self.processes.append(dunst)
    }

    /// A stand-in notification server (`Tests/StandIns/slow-notifications.py`) whose Notify replies
    /// come `delay` seconds late; it prints each Notify and CloseNotification it gets to the returned log.
    func startSlowNotificationServer(delay: Double) async throws -> String {
        let python = "/usr/bin/python3"
        guard access(python, X_OK) == 0 else { throw HarnessError("\(python) is missing: install python3-dbus") }
        let log = "\(self.directory.path)/slow-notifications.log"
        let pipe = try makePipe()
        defer { close(pipe.read) }
        let process = try SpawnedProcess(
            python, ["\(packageRoot())/Tests/StandIns/slow-notifications.py", String(delay), log],
            environment: self.environment, stdout: pipe.write, stderrPath: log + ".err")
        close(pipe.write)
        self.processes.append(process)
        guard await readLine(pipe.read, timeout: 15) == "ready" else {
            throw HarnessError("the slow notification server did not start: \(readFile(log + ".err"))")
        }
        return log
    }

    // MARK: A power cut

    /// A power cut: every process of this session (the daemon, dunst, Xvfb, the bus) killed
    /// with SIGKILL at once and reaped, and the bus's socket gone with the runtime directory
    /// it would live in. The test wipes the rest of the runtime; the state directory survives.
    func cutPower() async {
        for process in self.processes.reversed() {
            process.send(SIGKILL)
        }
        for process in self.processes {
            _ = await process.exit(within: 5)
        }
        self.processes.removeAll()
        self.daemon = nil
        self.busAddress = nil
        unlink("\(self.directory.path)/bus")
    }

    /// After `cutPower`: a new bus, Xvfb and dunst (the daemon is the test's to start).
    func restoreServices() async throws {
        try await self.startSessionBus()
        try await self.startNotificationServer()
    }

    // MARK: The daemon

    /// Starts daysomed on this session's files and waits until `status --json` shows it running
    /// under its own pid (so a restart is not mistaken for the daemon it replaces).
    @discardableResult
    func startDaemon(
        notifier: String = "freedesktop", grace: Int? = nil, environment extra: [String: String] = [:],
        household: String? = nil
    ) async throws -> SpawnedProcess {
        var arguments = [
            "--household", household ?? self.household, "--display-state", self.displayState, "--runtime-dir",
            self.runtimeDirectory, "--state-dir", self.stateDirectory, "--notifier", notifier,
        ]
        if let grace {
            arguments += ["--grace", String(grace)]
        }
        let log = "\(self.directory.path)/daysomed-\(self.daemonLogs.count + 1).log"
        self.daemonLogs.append(log)
        let process = try SpawnedProcess(
            self.daysomed, arguments, environment: self.environment.merging(extra) { $1 }, stderrPath: log)
        self.processes.append(process)
        self.daemon = process
        _ = try await poll("daysomed (pid \(process.pid)) to publish its status", timeout: 15) { () -> Bool? in
            if process.poll() {
                throw HarnessError("daysomed exited early (\(process.waitStatus ?? -1)): \(readFile(log))")
            }
            let status = try await self.status()
            return status["running"]?.boolValue == true && status["pid"]?.int == Int(process.pid) ? true : nil
        }
        return process
    }

    // MARK: Tools

    /// `daysomectl signal foreground|away`, as the display calls it.
    func signal(_ state: String) async throws {
        let result = try await self.ctl(["signal", state] + self.daemonPaths)
        guard result.status == 0, result.stderr.isEmpty else {
            throw HarnessError("\(result)")
        }
    }

    /// `daysomectl pending --json`.
    func pending() async throws -> Queue {
        Queue(try await self.ctlJSON(["pending", "--json"] + self.daemonPaths))
    }

    /// `daysomectl history --json`.
    func history() async throws -> [HistoryEvent] {
        (try await self.ctlJSON(["history", "--json"] + self.daemonPaths)["history"]?.arrayValue ?? []).map(
            HistoryEvent.init)
    }

    /// `daysomectl status --json`.
    func status() async throws -> JSONObject {
        try await self.ctlJSON(["status", "--json"] + self.daemonPaths)
    }

    /// `daysomectl plan --household PATH --from TIME --json`.
    func plan(from: String, household: String? = nil) async throws -> [PlannedStart] {
        let plan = try await self.ctlJSON([
            "plan", "--household", household ?? self.household, "--from", from, "--json",
        ])
        return (plan["starts"]?.arrayValue ?? []).map(PlannedStart.init)
    }

    /// The start the household plans at `minute`, as `plan` computes it.
    func plannedStart(at minute: Int64) async throws -> PlannedStart {
        let starts = try await self.plan(from: rfc3339(minute - 1))
        guard let start = starts.first, start.at == rfc3339(minute) else {
            throw HarnessError("plan holds no start at \(rfc3339(minute)): \(starts.prefix(2))")
        }
        return start
    }

    /// Fails unless the live queue holds a start at `minute` (the daemon was ready in time).
    func expectQueued(at minute: Int64) async throws {
        let queue = try await self.pending()
        guard queue.starts.contains(where: { $0.at == rfc3339(minute) }) else {
            throw HarnessError(
                "The queue holds no start at \(rfc3339(minute)) (the daemon was not ready before its minute?): "
                    + "\(queue.starts.prefix(2)); daysomed said: \(self.daemonStderr)")
        }
    }

    /// Polls until the queue shows the display in `display` with nothing pending and dunst shows
    /// nothing; returns how long that took, in seconds.
    func settledEmpty(within timeout: Double, since start: Double) async throws -> Double {
        try await poll("nothing pending and nothing shown", timeout: timeout, interval: 0.02) { () -> Double? in
            let queue = try await self.pending()
            guard queue.display == "foreground", queue.starts.isEmpty else { return nil }
            return try await self.displayedCount() == 0 ? monotonicSeconds() - start : nil
        }
    }

    // MARK: dunst

    /// `dunstctl history`: the notifications dunst has closed (by timeout, by her, or by the
    /// daemon's CloseNotification), newest first.
    func shownHistory() async throws -> [ShownNotification] {
        try await self.closedNotifications().map(ShownNotification.init)
    }

    /// Fails if dunst shows anything during the next `seconds`.
    func expectNothingShown(for seconds: Double) async throws {
        let end = monotonicSeconds() + seconds
        while monotonicSeconds() < end {
            let count = try await self.displayedCount()
            guard count == 0 else {
                throw HarnessError("dunst shows \(count) notification(s); daysomed said: \(self.daemonStderr)")
            }
            await pause(0.1)
        }
    }
}

// MARK: What the tools print, typed

extension JSONValue {
    var int: Int? { self.doubleValue.map { Int($0) } }
    var strings: [String] { (self.arrayValue ?? []).compactMap(\.stringValue) }

    /// Every string in the document, keys excluded.
    var allStrings: [String] {
        switch self {
        case .string(let text): return [text]
        case .array(let values): return values.flatMap(\.allStrings)
        case .object(let object): return object.members.flatMap(\.value.allStrings)
        default: return []
        }
    }
}

/// One entry of `pending --json`.
struct QueuedStart: Equatable, CustomStringConvertible {
    let lay: Int?
    let at: String
    let local: String
    let itemIds: [String]
    let title: String

    init(_ json: JSONValue) {
        let object = json.objectValue ?? JSONObject()
        self.lay = object["lay"]?.int
        self.at = object["at"]?.stringValue ?? ""
        self.local = object["local"]?.stringValue ?? ""
        self.itemIds = object["itemIds"]?.strings ?? []
        self.title = object["title"]?.stringValue ?? ""
    }

    var description: String { "\(self.at) \(self.itemIds) \"\(self.title)\" (lay \(self.lay.map(String.init) ?? "-"))" }
}

/// `pending --json`.
struct Queue {
    let display: String?
    let lay: Int?
    let daemonRunning: Bool?
    let starts: [QueuedStart]

    init(_ object: JSONObject) {
        self.display = object["display"]?.stringValue
        self.lay = object["lay"]?.int
        self.daemonRunning = object["daemonRunning"]?.boolValue
        self.starts = (object["pending"]?.arrayValue ?? []).map(QueuedStart.init)
    }
}

/// One record of `history --json`.
struct HistoryEvent: CustomStringConvertible {
    let time: String
    let event: String
    let lay: Int?
    let at: String?
    let itemIds: [String]
    let reason: String?

    init(_ json: JSONValue) {
        let object = json.objectValue ?? JSONObject()
        self.time = object["time"]?.stringValue ?? ""
        self.event = object["event"]?.stringValue ?? ""
        self.lay = object["lay"]?.int
        self.at = object["at"]?.stringValue
        self.itemIds = object["itemIds"]?.strings ?? []
        self.reason = object["reason"]?.stringValue
    }

    var description: String {
        "\(self.time) \(self.event) lay \(self.lay.map(String.init) ?? "-") \(self.at ?? "-") \(self.itemIds) "
            + (self.reason ?? "")
    }
}

/// One start of `plan --json`.
struct PlannedStart: CustomStringConvertible {
    let at: String
    let local: String
    let itemIds: [String]
    let heading: String
    let title: String
    let body: String

    init(_ json: JSONValue) {
        let object = json.objectValue ?? JSONObject()
        self.at = object["at"]?.stringValue ?? ""
        self.local = object["local"]?.stringValue ?? ""
        self.itemIds = object["itemIds"]?.strings ?? []
        self.heading = object["heading"]?.stringValue ?? ""
        self.title = object["title"]?.stringValue ?? ""
        self.body = object["body"]?.stringValue ?? ""
    }

    var description: String { "\(self.at) \(self.itemIds) \"\(self.title)\"" }
}

/// One notification of `dunstctl history`. `message` is the Pango markup dunst rendered
/// (its `format` applied to the summary, escaped, and the body as sent).
struct ShownNotification: CustomStringConvertible {
    let appName: String
    let summary: String
    let body: String
    let message: String

    init(_ object: JSONObject) {
        func field(_ name: String) -> String { object[name]?.objectValue?["data"]?.stringValue ?? "" }
        self.appName = field("appname")
        self.summary = field("summary")
        self.body = field("body")
        self.message = field("message")
    }

    /// What the user reads: the text Pango renders from `message`, or nil when `message` is not
    /// well-formed markup (Pango refuses it, and dunst shows something else than was sent).
    var visibleText: String? { pangoVisibleText(self.message) }

    var description: String { "[\(self.appName)] \(self.summary) | \(self.body.debugDescription)" }
}

/// The text Pango renders from `markup`: tags removed, entities decoded; nil when a `<` does not
/// open a tag or an `&` does not open an entity (Pango then refuses the markup).
func pangoVisibleText(_ markup: String) -> String? {
    var visible = ""
    var rest = Substring(markup)
    while let character = rest.first {
        switch character {
        case "<":
            guard let close = rest.firstIndex(of: ">") else { return nil }
            var tag = rest[rest.index(after: rest.startIndex)..<close]
            if tag.first == "/" { tag = tag.dropFirst() }
            let name = tag.prefix { $0.isLetter }
            guard !name.isEmpty, name.count == tag.count || tag[name.endIndex] == " ", !tag.contains("<") else {
                return nil
            }
            rest = rest[rest.index(after: close)...]
        case "&":
            guard let semicolon = rest.prefix(12).firstIndex(of: ";") else { return nil }
            let entity = rest[rest.index(after: rest.startIndex)..<semicolon]
            let named: [Substring: String] = ["amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'"]
            if let text = named[entity] {
                visible += text
            } else if entity.hasPrefix("#"), let code = UInt32(entity.dropFirst(), radix: 10),
                let scalar = Unicode.Scalar(code)
            {
                visible.unicodeScalars.append(scalar)
            } else {
                return nil
            }
            rest = rest[rest.index(after: semicolon)...]
        default:
            visible.append(character)
            rest = rest.dropFirst()
        }
    }
    return visible
}
