// The embedded world: the real Manager, with its real files in a scratch directory, on a
// ManualLoop whose time moves only when the test says so, beside a FakeNotificationServer, the
// daemon's real bell on players that record (and fail on demand), a returner that records, and a
// FakeSessionLock whose logind and screensavers the real lock watch asks and follows. What
// a test does to it is what happens to a tablet: the display app writes its file (by rename, with
// the virtual time as its mtime, and inotify says so), the family edits the household, the clock
// moves or jumps, the session locks, the server misbehaves, the daemon is killed and started again.
// Its files are real ones under `root`, or with `simulatedDisk` a SimDisk's: the daemon's every
// state file goes through it, its runtime directory is a tmpfs, and a power cut loses what was
// not synced (the simulator's world, and fast: no file is written on the host).
// What only real processes can show (sd-bus wire formats, a real systemd manager, sound, real
// servers) stays in the integration suites.

import DaysomeCore
import DaysomeDaemon
import DaysomeFiles
import DaysomeSimDisk
import Glibc
import SystemdKit

/// A tablet on one virtual time, running the real daemon embedded.
public final class EmbeddedTablet {
    /// Where the tablet's files live: household, display state, runtime and state directories.
    public let root: String
    public let paths: Paths
    /// The daemon's command line, without its paths (`--grace 600`, `--dnd respect`).
    public var arguments: [String]
    /// The loop of the daemon running now; a restarted daemon gets a new one at the same time.
    public private(set) var loop: ManualLoop
    /// The session's notification server: it outlives the daemon's restarts, cards and all.
    public let server = FakeNotificationServer()
    /// The user's systemd manager, for `--backend systemd`: its timers outlive the daemon.
    public let systemd = FakeSystemdManager()
    /// The session's logind and screensavers, which the daemon's real lock watch asks and follows.
    public let session = FakeSessionLock()
    /// Every log line, oldest first, across restarts, with its journal fields (`DAYSOME_EVENT`,
    /// `DAYSOME_REASON`, …; the first value of each).
    public private(set) var log: [(priority: LogPriority, message: String, fields: [String: String])] = []
    /// Each ring of the bell.
    public private(set) var bells = 0
    /// How many log lines there were at each ring: the call it rang for is the last one the log
    /// says was delivered before it (the machine rings right after it records the delivery).
    public private(set) var ringsAfter: [Int] = []
    /// The sound players the daemon's bell (its real `ChimePlayer`) finds, in its order of choice.
    public var players = ["embedded"]
    /// Players that fail on demand: one named here exits 1 (it reaches no sound server, as
    /// pw-play where no PipeWire runs), and the bell gives way to the next.
    public var failingPlayers: Set<String> = []
    /// Each player started, in order, failing or not.
    public private(set) var playersStarted: [String] = []
    /// The players' exits on their way to the daemon, as their pidfds' would be.
    private var playerExits: [ManualSource] = []
    /// Each request to bring the day back, with its reason.
    public private(set) var returns: [String] = []
    /// What the daemons told their service manager (sd_notify), the newest 16.
    public private(set) var serviceStates: [String] = []
    var manager: Manager?
    /// The state directory's and the runtime directory's faults on real files, kept across
    /// restarts (a full disk stays full). A simulated disk fails its paths itself.
    let disk = DiskFaults()
    /// The simulated disk the tablet's files are on, or nil where they are real files under `root`.
    public let simDisk: SimDisk?
    /// The disk the tablet's files are on, the daemon's and the apps': the simulated one, or the kernel's.
    public var files: any StateDisk { self.simDisk ?? SystemDisk.shared }
    /// What each locker was last made to say (`lock`), for a test to read; the session's buses
    /// (`session`) hold the state the daemon's lock watch asks.
    public private(set) var lockers: [LockSource: Bool] = [:]

    /// A tablet at `now` with `household` (nil: none yet) and `display` (nil: no file yet); the
    /// daemon is not running until `startDaemon`. With `simulatedDisk` its files are on a SimDisk
    /// (`root` only names them): `root/run` is a tmpfs, everything else the disk that keeps what
    /// was synced.
    public init(
        root: String, at now: Instant, household: String?, display: String?, arguments: [String] = [],
        simulatedDisk: Bool = false
    ) throws {
        self.root = root
        self.arguments = arguments
        if simulatedDisk {
            let simulated = SimDisk()
            simulated.installDirectory(root, permissions: 0o700)
            simulated.mountTmpfs(at: root + "/run", permissions: 0o755)
            self.simDisk = simulated
        } else {
            self.simDisk = nil
        }
        self.loop = ManualLoop(realtime: UInt64(now.seconds) * 1_000_000)
        var paths = Paths(environment: ["HOME": root])
        paths.household = root + "/config/household.json"
        paths.displayState = root + "/run/display-app/display"
        paths.runtimeDirectory = root + "/run/daysome"
        paths.stateDirectory = root + "/state"
        self.paths = paths
        self.server.clock = { [weak self] in (self?.loop.realtime ?? 0, self?.loop.monotonic ?? 0) }
        if let simDisk = self.simDisk {
            // What the tablet held before it is simulated is on its disk: synced.
            simDisk.installDirectory(root + "/config", permissions: 0o700)
            simDisk.installDirectory(root + "/run/display-app", permissions: 0o700)
            if let household { simDisk.install(self.paths.household, text: household) }
        } else {
            try FileIO.makeDirectories(root + "/config", mode: 0o700)
            try FileIO.makeDirectories(root + "/run/display-app", mode: 0o700)
            if let household { try self.writeHousehold(household) }
        }
        if let display { try self.writeDisplay(display) }
    }

    public var now: Instant { Instant(seconds: Int64(self.loop.realtime / 1_000_000)) }

    // MARK: The daemon

    /// Starts the daemon as systemd would: a new process (a new Manager on a new loop, at the
    /// same time), which reads its files and makes its first decision.
    public func startDaemon() throws {
        precondition(self.manager == nil, "the daemon is already running")
        let argv =
            [
                "--household", self.paths.household, "--display-state", self.paths.displayState, "--runtime-dir",
                self.paths.runtimeDirectory, "--state-dir", self.paths.stateDirectory,
            ] + self.arguments
        let environment = ["HOME": self.root, "PATH": "/usr/bin:/bin"]
        guard case .run(let options) = try DaemonOptions.parse(argv, environment: environment) else {
            throw EmbeddedError("the daemon's arguments did not parse to a run: \(argv)")
        }
        let loop = ManualLoop(realtime: self.loop.realtime, monotonic: self.loop.monotonic)
        self.loop = loop
        let returner = RecordingReturner { [weak self] reason in self?.returns.append(reason) }
        let server = self.server
        let systemd = self.systemd
        let logger = Logger { [weak self] priority, message, fields in
            self?.log.append((priority, message, Dictionary(fields) { first, _ in first }))
        }
        let bell = ChimePlayer(file: "/embedded/bell.wav", players: self.players, logger: logger) {
            [weak self] argv, exited in self?.play(argv[0], on: loop, exited: exited) ?? false
        }
        // No control socket: `control` calls the Manager as the socket would. No leftover timers
        // to stop: the fake manager's timers are the systemd backend's own.
        let peers = ManagerPeers(
            loop: loop, clock: LoopClock(loop), logger: logger,
            notifications: { () throws(Errno) in try server.connect(loop: loop) },
            timers: { manager in
                systemd.attach(loop: loop, manager: manager)
                return systemd
            }, leftoverTimers: { nil }, bell: { bell }, returner: { returner },
            lockBuses: self.session.buses(loop: loop), disk: self.disk, controlSocket: false,
            serviceManager: { [weak self] state in
                guard let self else { return }
                self.serviceStates = Array((self.serviceStates + [state]).suffix(16))
            }, stateDisk: self.files)
        let manager = try Manager(options: options, environment: environment, peers: peers)
        self.manager = manager
        do {
            try manager.start()
        } catch {
            // It exits (a session bus that takes no connection, say): nothing of it runs on.
            self.killDaemon()
            throw error
        }
        loop.runPending()
    }

    /// The bell's player `player` starts: it rings unless it is one of `failingPlayers`, and its
    /// exit reaches the daemon on a later dispatch of its loop, as a pidfd's does.
    private func play(_ player: String, on loop: ManualLoop, exited: @escaping (Int32) -> Void) -> Bool {
        self.playersStarted.append(player)
        let fails = self.failingPlayers.contains(player)
        if !fails {
            self.bells += 1
            self.ringsAfter.append(self.log.count)
        }
        self.playerExits.removeAll { $0.enablement == .off }
        guard
            let exit = try? loop.deferred(description: "chime", { exited(fails ? 1 << 8 : 0) }) as? ManualSource
        else { return false }
        self.playerExits.append(exit)
        return true
    }

    /// SIGKILL: the process is gone at once, its loop and locks with it; every file stays (a
    /// kill keeps the page cache). The server keeps showing what it showed.
    public func killDaemon() {
        self.server.detach()
        self.systemd.detach()
        self.session.detach()
        self.manager = nil
        self.loop = ManualLoop(realtime: self.loop.realtime, monotonic: self.loop.monotonic)
    }

    /// A power cut and the boot after it: the daemon and the server die, the runtime directory
    /// (the display's file with it) is gone, and no locker has spoken yet. The state directory
    /// keeps what its writes made durable. On real files every write reached the disk (the
    /// lost-write cut is the integration suite's); on a simulated disk only what was synced is
    /// kept for certain, and `tear` (a seed) may keep some of the rest, whole or torn, as a
    /// disk's write-back would (`SimDisk.powerOn`).
    public func powerCut(tear: UInt64? = nil) throws {
        self.killDaemon()
        self.server.reboot()
        // The user manager starts again at boot: its transient timers are gone.
        self.systemd.restart()
        self.session.reboot()
        self.lockers = [:]
        // A new tmpfs: whatever filled the old one is gone.
        self.failRuntime(nil)
        if let simDisk = self.simDisk {
            simDisk.cutPower()
            simDisk.powerOn(seed: tear)
        } else {
            _ = system("rm -rf '\(self.root)/run'")
        }
        try self.files.makeDirectories(self.root + "/run/display-app", mode: 0o700)
    }

    /// The state directory's disk full (ENOSPC), or freed (nil); or another error (EROFS, EIO).
    public func failStateDisk(_ errno: Int32?) {
        if let simDisk = self.simDisk {
            simDisk.fail(self.paths.stateDirectory, with: errno)
        } else {
            self.disk.fail(self.paths.stateDirectory, with: errno)
        }
    }

    /// The runtime directory's tmpfs full (ENOSPC), or freed (nil).
    public func failRuntime(_ errno: Int32?) {
        if let simDisk = self.simDisk {
            simDisk.fail(self.paths.runtimeDirectory, with: errno)
        } else {
            self.disk.fail(self.paths.runtimeDirectory, with: errno)
        }
    }

    /// The session bus restarts (`systemctl --user restart dbus`): down, the notification server
    /// goes with it and every connection on it drops, the daemon's and its lock watch's; back, the
    /// desktop's server starts on it anew, and each reconnects on its own backoff.
    public func sessionBus(up: Bool) {
        if up {
            self.server.busBack()
            self.session.busBack(system: false)
        } else {
            self.server.busGoes()
            self.session.busGoes(system: false)
        }
    }

    /// Whether the daemon's record (in its lock file) says that neither lay.json nor the runtime
    /// directory took its state, so a restart cannot prove what was called; or an older daemon's
    /// marker says so.
    public var unprovenMarker: Bool {
        let bytes =
            (try? self.files.read(DaemonLock.path(in: self.paths.runtimeDirectory), limit: 1 << 20)) ?? []
        return RuntimeRecord(bytes: Array(bytes.prefix(DaemonLock.recordSize)))?.kept == .nowhere
            || self.files.isRegularFile(self.paths.unprovenMarkerFile)
    }

    /// The running daemon's machine invariants that do not hold now (DaemonMachine+Invariants.swift).
    public var machineInvariantViolations: [String] { self.manager?.machine.invariantViolations() ?? [] }

    /// Whether a daemon runs now.
    public var running: Bool { self.manager != nil }

    /// The running daemon's next laid start (queue.json's first pending entry), from its machine.
    public var nextLaid: Start? { self.manager?.machine.nextLaid }

    /// The display as the running daemon's machine decides it now: its file's word, or away
    /// while a locker says locked.
    public var displayDecided: DisplayState? { self.manager?.machine.screenLock.effective }

    /// Whether the running daemon could prove at its start what was called before (StateProof).
    public var stateProven: Bool { self.manager?.stateProven ?? false }

    /// Whether the daemon asked its loop to end (another daemon holds its new state directory).
    public var exitCode: Int32? { self.loop.exitCode }

    /// A control request (`fire 3`, `try`, `ping`), as daysomectl sends it over the socket.
    public func control(_ line: String) -> String {
        let answer = self.manager?.control(line) ?? "error: no daemon"
        self.loop.runPending()
        return answer
    }

    /// A control request whose answer may come later (`pending`, relayed from the manager):
    /// its `line` is nil until the daemon answered.
    public func control(deferred line: String) -> ControlAnswer {
        let answer = ControlAnswer()
        if let manager = self.manager {
            manager.control(line) { answer.line = $0 }
        } else {
            answer.line = "error: no daemon"
        }
        self.loop.runPending()
        return answer
    }

    // MARK: Time

    /// Lets `seconds` pass, every timer firing at its own time.
    public func advance(seconds: Int64) {
        self.loop.advance(by: UInt64(seconds) * 1_000_000)
    }

    /// Lets time pass until `instant`.
    public func advance(to instant: Instant) {
        precondition(instant >= self.now, "time runs forward: use jumpClock for a step back")
        self.advance(seconds: instant.seconds - self.now.seconds)
    }

    /// The wall clock set (a step either way, or a resume after a suspend): the monotonic clock
    /// does not move, and the daemon's clock-jump watch fires.
    public func jumpClock(to instant: Instant) {
        self.loop.jumpRealtime(to: UInt64(instant.seconds) * 1_000_000)
    }

    // MARK: Her world

    /// The display app writes its state (`foreground`, `away`, `foreground 1234`), by rename,
    /// at the tablet's time.
    public func writeDisplay(_ line: String) throws {
        try self.write(self.paths.displayState, line + "\n")
        self.loop.changed(path: directory(of: self.paths.displayState), InotifyEvent(mask: .movedTo, name: "display"))
    }

    /// The display app writes its state by rename while the daemon's inotify queue is full (a
    /// stalled loop, a busy directory): the named event is lost, and the kernel's nameless
    /// overflow reaches every watch of the display's inotify instance instead.
    public func writeDisplayLostInOverflow(_ line: String) throws {
        try self.write(self.paths.displayState, line + "\n")
        self.loop.overflowed(path: directory(of: self.paths.displayState))
    }

    /// The family's app saves the household by rename while the inotify queue is full: only the
    /// nameless overflow reaches the household's instance.
    public func writeHouseholdLostInOverflow(_ text: String) throws {
        try self.write(self.paths.household, text)
        self.loop.overflowed(path: directory(of: self.paths.household))
    }

    /// The display's process exits, as its pidfd says, whether or not the pid lives on in another
    /// process (pids are reused). False where the daemon watches no display process.
    @discardableResult
    public func displayProcessExits() -> Bool {
        guard let watched = self.manager?.displayPid else { return false }
        self.loop.exited(pidfd: watched.fd.rawValue)
        return true
    }

    /// A program opened the display's file for writing and closed it unwritten (a shell's `>>`
    /// with nothing): the daemon reads it again, its line and its time as they were.
    public func closeDisplayUnwritten() {
        self.loop.changed(
            path: directory(of: self.paths.displayState), InotifyEvent(mask: .closeWrite, name: "display"))
    }

    /// The display writes its line into the file in place (a shell's `>`: the same inode,
    /// truncated and written), and closes it: inotify says close-write, not a rename.
    public func writeDisplayInPlace(_ line: String) throws {
        let path = self.paths.displayState
        if let simDisk = self.simDisk {
            simDisk.clock = Int64(self.loop.realtime) * 1_000
            try simDisk.writeInPlace(path, Array((line + "\n").utf8))
            self.loop.changed(path: directory(of: path), InotifyEvent(mask: .closeWrite, name: "display"))
            return
        }
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw EmbeddedError("failed to open '\(path)' for writing: errno \(errno)") }
        let bytes = Array((line + "\n").utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        close(fd)
        guard written == bytes.count else { throw EmbeddedError("failed to write '\(path)': errno \(errno)") }
        try self.stamp(path)
        self.loop.changed(
            path: directory(of: self.paths.displayState), InotifyEvent(mask: .closeWrite, name: "display"))
    }

    /// The display app's file removed (an uninstall, a cleaner): missing means away.
    public func removeDisplay() {
        try? self.files.removeFile(self.paths.displayState)
        self.loop.changed(path: directory(of: self.paths.displayState), InotifyEvent(mask: .delete, name: "display"))
    }

    /// The family's app saves the household, by rename.
    public func writeHousehold(_ text: String) throws {
        try self.write(self.paths.household, text)
        self.loop.changed(
            path: directory(of: self.paths.household), InotifyEvent(mask: .movedTo, name: "household.json"))
    }

    /// The household saved as exactly `bytes`, by rename: a file the app broke.
    public func writeHousehold(bytes: [UInt8]) throws {
        try self.files.writeAtomically(self.paths.household, bytes: bytes)
        self.loop.changed(
            path: directory(of: self.paths.household), InotifyEvent(mask: .movedTo, name: "household.json"))
    }

    /// The household file removed.
    public func removeHousehold() {
        try? self.files.removeFile(self.paths.household)
        self.loop.changed(
            path: directory(of: self.paths.household), InotifyEvent(mask: .delete, name: "household.json"))
    }

    /// The display state file written as exactly `text`, no newline added (a torn or odd write).
    public func writeDisplay(text: String) throws {
        try self.write(self.paths.displayState, text)
        self.loop.changed(path: directory(of: self.paths.displayState), InotifyEvent(mask: .movedTo, name: "display"))
    }

    /// Something that is not a file the app wrote (a directory, a symlink, a pipe) put at `path`,
    /// the household's or the display file's, by `plant`, which renames it there; inotify says so.
    public func plant(at path: String, _ plant: (String) throws -> Void) rethrows {
        try plant(path)
        self.loop.changed(path: directory(of: path), InotifyEvent(mask: .movedTo, name: basename(of: path)))
    }

    /// A file of the app's own saved by rename at `path` (the target behind a household's link):
    /// inotify tells the watches on its directory only.
    public func saveByRename(_ path: String, _ text: String) throws {
        try self.write(path, text)
        self.loop.changed(path: directory(of: path), InotifyEvent(mask: .movedTo, name: basename(of: path)))
    }

    /// A directory made (the app's first run makes the household's): inotify tells its parent.
    public func makeDirectory(_ path: String) throws {
        try self.files.makeDirectories(path, mode: 0o700)
        self.loop.changed(path: directory(of: path), InotifyEvent(mask: .create, name: basename(of: path)))
    }

    /// A locker says locked or unlocked (nil: it goes away), or logind asks the session's locker
    /// to lock or unlock (`.logindLockSignal`): on the session's buses, which the daemon's lock
    /// watch follows; said while no daemon runs, the next one asks it at its start.
    public func lock(_ source: LockSource, _ locked: Bool?) {
        if source.isLocker { self.lockers[source] = locked }
        switch (source, locked) {
        case (.logind, let locked?): self.session.setLockedHint(locked)
        case (.logind, nil): self.session.logindExits()
        case (.screenSaver, let active?): self.session.screenSaver(.freedesktop, active: active)
        case (.screenSaver, nil): self.session.screenSaverExits(.freedesktop)
        case (.gnomeScreenSaver, let active?): self.session.screenSaver(.gnome, active: active)
        case (.gnomeScreenSaver, nil): self.session.screenSaverExits(.gnome)
        case (.logindLockSignal, let lock?): self.session.request(lock: lock)
        case (.logindLockSignal, nil): break
        }
        self.loop.runPending()
    }

    // MARK: What a tester reads

    /// status.json, typed, as daysomectl reads it.
    public func status() throws -> StatusSnapshot {
        try StatusSnapshot(json: JSONParser.parse(self.files.read(self.paths.statusFile, limit: 1 << 20)))
    }

    /// The running daemon's status as it would publish it now, typed, without a file read.
    public var liveStatus: StatusSnapshot? { self.manager?.statusSnapshot() }

    /// queue.json, typed.
    public func queue() throws -> QueueSnapshot {
        try QueueSnapshot(json: JSONParser.parse(self.files.read(self.paths.queueFile, limit: 1 << 20)))
    }

    /// history.jsonl.
    public func history() -> [HistoryRecord] {
        HistoryFile.read(path: self.paths.historyFile, disk: self.files)
    }

    /// Writes `text` to `path` by rename, its mtime the tablet's time: the daemon compares a
    /// file's time with its own clock. An app's write, not synced: a power cut may lose or tear it.
    private func write(_ path: String, _ text: String) throws {
        if let simDisk = self.simDisk {
            simDisk.clock = Int64(self.loop.realtime) * 1_000
            try simDisk.writeAtomically(path, text)
            return
        }
        try FileIO.writeAtomically(path, text)
        try self.stamp(path)
    }

    /// Sets `path`'s times to the virtual clock's.
    private func stamp(_ path: String) throws {
        let usec = self.loop.realtime
        let time = timespec(tv_sec: Int(usec / 1_000_000), tv_nsec: Int(usec % 1_000_000) * 1_000)
        var times = [time, time]
        guard utimensat(AT_FDCWD, path, &times, 0) == 0 else {
            throw EmbeddedError("failed to set the time of '\(path)': errno \(errno)")
        }
    }
}

/// What the embedded world could not do.
public struct EmbeddedError: Error, CustomStringConvertible {
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}

/// A returner that records each request.
final class RecordingReturner: DisplayBringer {
    let means: String? = "embedded"
    private let asked: (String) -> Void

    init(_ asked: @escaping (String) -> Void) {
        self.asked = asked
    }

    func bringBack(reason: String) {
        self.asked(reason)
    }
}

/// The answer to a control request, once the daemon gave it.
public final class ControlAnswer {
    public internal(set) var line: String?
}
