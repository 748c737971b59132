// The real daysomed in a test's world: started with typed options on its own files, killed or
// restarted by pid, and read through the real daysomectl (`signal`, `status`, `pending`,
// `history`, `plan`) as the display and her family would. A world's first daemon keeps its files
// at the world's root; a named one keeps them under <run>/<name>/, so one world can run several.

import DaysomeCore
import Glibc

/// How a world starts daysomed: a world's defaults, and what one `startDaemon` changes.
public struct DaemonOptions: Sendable {
    /// Which backend lays the starts.
    public enum Backend: String, Sendable {
        case wheel
        case systemd
    }

    /// The daemon's `--backend`; the wheel when nil.
    public var backend: Backend?
    /// The daemon's `--notifier` (`freedesktop`, `log`, …).
    public var notifier: String?
    /// The daemon's `--grace` in seconds, when set.
    public var grace: Int?
    /// More arguments, after the ones above.
    public var arguments: [String]
    /// Added to (or replacing in) the world's environment.
    public var environment: [String: String]

    public init(
        backend: Backend? = nil, notifier: String? = "freedesktop", grace: Int? = nil, arguments: [String] = [],
        environment: [String: String] = [:]
    ) {
        self.backend = backend
        self.notifier = notifier
        self.grace = grace
        self.arguments = arguments
        self.environment = environment
    }

    /// daysomed's argv after its path, for a daemon on `files` (household `household`).
    func commandLine(files: DaemonFiles, household: String) -> [String] {
        var arguments = [
            "--household", household, "--display-state", files.displayState, "--runtime-dir",
            files.runtimeDirectory, "--state-dir", files.stateDirectory,
        ]
        if let backend = self.backend {
            arguments += ["--backend", backend.rawValue]
        }
        if let notifier = self.notifier {
            arguments += ["--notifier", notifier]
        }
        if let grace = self.grace {
            arguments += ["--grace", String(grace)]
        }
        return arguments + self.arguments
    }
}

/// Where one daysomed of a world keeps its files.
public struct DaemonFiles: Sendable {
    public let directory: String

    public var household: String { "\(self.directory)/household/household.json" }
    public var displayState: String { "\(self.directory)/display/state" }
    public var runtimeDirectory: String { "\(self.directory)/run" }
    public var stateDirectory: String { "\(self.directory)/state" }
    /// The options `signal`, `pending`, `history` and `status` need to find this daemon.
    public var paths: [String] {
        [
            "--runtime-dir", self.runtimeDirectory, "--state-dir", self.stateDirectory, "--display-state",
            self.displayState,
        ]
    }
}

/// One daysomed a world started.
public final class Daemon {
    /// Its name in failure messages (`daemon` for the world's first).
    public let name: String
    public let files: DaemonFiles
    public let process: SpawnedProcess
    /// Its argv after the path, to start it again the same way.
    let arguments: [String]
    let environment: [String: String]
    /// Its stderr.
    public let log: String

    init(
        name: String, files: DaemonFiles, process: SpawnedProcess, arguments: [String],
        environment: [String: String], log: String
    ) {
        self.name = name
        self.files = files
        self.process = process
        self.arguments = arguments
        self.environment = environment
        self.log = log
    }

    public var pid: pid_t { self.process.pid }
    public var paths: [String] { self.files.paths }
    public var runtimeDirectory: String { self.files.runtimeDirectory }
    /// What the daemon wrote on stderr so far.
    public var stderr: String { readFile(self.log) }
}

extension TestWorld {
    /// The files of the world's first daemon, at the world's root.
    public var files: DaemonFiles { DaemonFiles(directory: self.directory.path) }
    public var household: String { self.files.household }
    public var displayState: String { self.files.displayState }
    public var runtimeDirectory: String { self.files.runtimeDirectory }
    public var stateDirectory: String { self.files.stateDirectory }
    /// The options daysomectl needs to find the world's first daemon.
    public var daemonPaths: [String] { self.files.paths }

    /// The daemon started last, while it runs or until `killDaemon`.
    public var daemon: SpawnedProcess? { self.daemons.last.flatMap { $0.process.poll() ? nil : $0.process } }

    /// Everything every daemon of this world wrote on stderr, each named when there are several.
    public var daemonStderr: String {
        if Set(self.daemons.map(\.name)).count <= 1 {
            return self.daemons.map(\.stderr).joined()
        }
        return self.daemons.map { "[\($0.name)] \($0.stderr)" }.joined(separator: "\n")
    }

    /// daysomed's argv after its path for the world's first daemon, on its files (or on
    /// `household`), with `options` or the world's defaults: for a test that runs the daemon itself
    /// (under strace, or to see it refuse to start).
    public func daemonArguments(_ options: DaemonOptions? = nil, household: String? = nil) -> [String] {
        (options ?? self.daemonDefaults).commandLine(files: self.files, household: household ?? self.household)
    }

    /// Starts daysomed with the world's options changed by these, and waits until `status --json`
    /// shows it running under its own pid (so a restart is not mistaken for the daemon it
    /// replaces). `name` puts its files under <run>/<name>/ instead of the world's root;
    /// `householdText` is written to its household file first; `household` points it at another.
    @discardableResult
    public func startDaemon(
        _ name: String? = nil, notifier: String? = nil, grace: Int? = nil, household: String? = nil,
        householdText: String? = nil, arguments: [String] = [], environment: [String: String] = [:]
    ) async throws -> Daemon {
        var options = self.daemonDefaults
        options.notifier = notifier ?? options.notifier
        options.grace = grace ?? options.grace
        options.arguments += arguments
        options.environment.merge(environment) { $1 }
        let files = DaemonFiles(directory: try name.map { try self.directory.makeDirectory($0) } ?? self.directory.path)
        if let householdText {
            try self.directory.makeDirectory(name.map { "\($0)/household" } ?? "household")
            try replaceFile(files.household, householdText)
        }
        let daemon = try self.spawnDaemon(
            name ?? "daemon", files: files,
            arguments: options.commandLine(files: files, household: household ?? files.household),
            environment: self.environment.merging(options.environment) { $1 })
        try await self.waitUntilRunning(daemon)
        return daemon
    }

    /// Starts the last daemon again with the same arguments and environment, without waiting for it.
    @discardableResult
    public func restartDaemon() throws -> Daemon {
        guard let last = self.daemons.last else { throw HarnessError("no daemon was started to restart") }
        return try self.spawnDaemon(
            last.name, files: last.files, arguments: last.arguments, environment: last.environment)
    }

    private func spawnDaemon(
        _ name: String, files: DaemonFiles, arguments: [String], environment: [String: String]
    ) throws -> Daemon {
        let log = "\(self.directory.path)/daysomed-\(self.daemons.count + 1).log"
        let process = try SpawnedProcess(self.daysomed, arguments, environment: environment, stderrPath: log)
        self.processes.append(process)
        let daemon = Daemon(
            name: name, files: files, process: process, arguments: arguments, environment: environment, log: log)
        self.daemons.append(daemon)
        return daemon
    }

    /// Waits until `status --json` names `daemon` as the running daemon. The deadline only guards
    /// against a daemon that never starts: the parallel phase starts about eighty worlds at once
    /// on two cores: its first tests take 20 to 26 s in all, and a 15 s wait failed two of them.
    /// How soon a daemon lays is a limit the latency phase times, alone (FirstBootTests).
    public func waitUntilRunning(_ daemon: Daemon, timeout: Double = 60) async throws {
        let process = daemon.process
        _ = try await poll(
            "daysomed '\(daemon.name)' (pid \(process.pid)) to publish its status", timeout: timeout, interval: 0.02
        ) { () -> Bool? in
            if process.poll() {
                throw HarnessError(
                    "daysomed '\(daemon.name)' exited early (\(process.waitStatus ?? -1)): \(self.daemonStderr)")
            }
            let status = try await self.status(daemon)
            return status.running && status.pid == UInt64(process.pid) ? true : nil
        }
    }

    /// SIGKILL to the running daemon, then reaps it (so its lock is gone before a restart).
    public func killDaemon() async throws {
        guard let process = self.daemon else {
            throw HarnessError("no daemon is running")
        }
        process.send(SIGKILL)
        guard await process.exit(within: 5) else {
            throw HarnessError("daysomed (pid \(process.pid)) survived SIGKILL for 5 s")
        }
        self.processes.removeAll { $0 === process }
    }

    // MARK: daysomectl

    /// The daysomectl options that find `daemon` (the world's first daemon's when nil).
    private func paths(_ daemon: Daemon?) -> [String] {
        (daemon?.files ?? self.files).paths
    }

    /// `daysomectl signal foreground|away`, as the display calls it; with `awaitSeen`, then waits
    /// until the daemon says it has seen it (`status --json`).
    public func signal(_ state: String, to daemon: Daemon? = nil, awaitSeen: Bool = false) async throws {
        let result = try await self.ctl(["signal", state] + self.paths(daemon))
        guard result.status == 0, result.stderr.isEmpty else {
            throw HarnessError("\(result)")
        }
        guard awaitSeen else { return }
        let name = daemon?.name ?? "daemon"
        _ = try await poll("daysomed '\(name)' to see the display \(state)", timeout: 5, interval: 0.02) {
            () -> Bool? in
            try await self.status(daemon).display?.rawValue == state ? true : nil
        }
    }

    /// `daysomectl status --json`.
    public func status(_ daemon: Daemon? = nil) async throws -> DaemonStatus {
        try await self.status(at: self.paths(daemon))
    }

    /// `daysomectl status --json` for the daemon that daysomectl's `paths` options find (a unit's
    /// daemon, whose directories the world did not choose).
    public func status(at paths: [String]) async throws -> DaemonStatus {
        try DaemonDocument.status(try await self.ctlJSON(["status", "--json"] + paths))
    }

    /// `daysomectl pending --json`.
    public func pending(_ daemon: Daemon? = nil) async throws -> Queue {
        DaemonDocument.pending(try await self.ctlJSON(["pending", "--json"] + self.paths(daemon)))
    }

    /// `daysomectl history --json`.
    public func history(_ daemon: Daemon? = nil) async throws -> [HistoryEvent] {
        DaemonDocument.history(try await self.ctlJSON(["history", "--json"] + self.paths(daemon)))
    }

    /// `daysomectl plan --household PATH --from TIME [--days N] --json`.
    public func plan(from: String, days: Int? = nil, household: String? = nil) async throws -> [PlannedStart] {
        let days = days.map { ["--days", String($0)] } ?? []
        return DaemonDocument.plan(
            try await self.ctlJSON(
                ["plan", "--household", household ?? self.household, "--from", from] + days + ["--json"]))
    }

    /// The start the household plans at `minute`, as `plan` computes it.
    public func plannedStart(at minute: Int64) async throws -> PlannedStart {
        let starts = try await self.plan(from: rfc3339(minute - 1))
        guard let start = starts.first, start.at == rfc3339(minute) else {
            throw HarnessError("plan holds no start at \(rfc3339(minute)): \(starts.prefix(2))")
        }
        return start
    }

    /// Fails unless the daemon's live queue holds a start at `minute` (it was ready in time).
    public func expectQueued(_ daemon: Daemon? = nil, at minute: Int64) async throws {
        let queue = try await self.pending(daemon)
        guard queue.starts.contains(where: { $0.at == rfc3339(minute) }) else {
            throw HarnessError(
                "daysomed '\(daemon?.name ?? "daemon")' holds no start at \(rfc3339(minute)) "
                    + "(not ready before its minute?): \(queue.starts.prefix(2)); it said: \(self.daemonStderr)")
        }
    }
}
