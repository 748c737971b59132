// The daemon's owner object, in the manner of timesyncd's Manager: one loop it is given (sd-event
// in production, a manual one in the embedded world), one source per watch or timer (re-armed in
// place, never stacked), and the core's state machine. The machine decides; this file only reads
// the world into events and executes actions. It sees its loop and peers through protocols only
// (ManagerPeers.swift): the composition root (Daemon.swift) runs production's loop.

import DaysomeCore
import DaysomeFiles
import Glibc
import SystemdKit

/// Owns the watches, the notifier and the machine, on a loop it is given (ManagerPeers.swift).
package final class Manager {
    let options: DaemonOptions
    let environment: [String: String]
    let logger: Logger
    let loop: any Loop
    /// The session's peers, production's or a test world's.
    let peers: ManagerPeers
    /// Every read of the time goes through here (DaemonClock.swift).
    let clock: any DaemonClock
    let publisher: Publisher
    /// The state directory's writes, and what is behind when they fail (StateWrites.swift).
    let writes: StateWrites
    package internal(set) var machine: DaemonMachine
    var notifier: (any Notifier)?
    let lock: any RuntimeDirectoryHold

    /// The one realtime timer: armed at the wheel's next deadline only.
    var wheelTimer: (any LoopSource)?
    var displayWatch: (any LoopSource)?
    var householdWatch: (any LoopSource)?
    /// The directory the household watch is on: the household's own, or an ancestor while it is missing.
    var householdWatchedPath: String?
    /// Where a household behind a symlink leads: a watch on each target's directory (canonical
    /// path), for the names the chain gives it there (ManagerWatches.swift).
    var householdTargetWatches: [String: any LoopSource] = [:]
    var zoneWatch: (any LoopSource)?
    var clockWatch: AnyObject?
    /// The exit watch on the display's process, for the pid `displayProcesses` watches.
    package internal(set) var displayPid: (pid: Int32, fd: Pidfd, source: any LoopSource)?
    var lastDisplayLine: DisplayStateLine?
    /// The display state file's unusable line, shown in `status` until a good line is read.
    var displayFileProblem: DisplayFileProblem?
    /// The server's Do Not Disturb as last learned: its going off is told to the machine.
    var lastDoNotDisturb: ServerDoNotDisturb?
    /// The STATUS= the manager was told last: told again only when it changed.
    var toldStatus: String?
    /// Follows the lockers on the buses and hands their word to the machine (LockWatch.swift).
    var lockWatch: LockWatch?
    /// Republishes status when a Lock request's answer window closes (LockWatch.swift).
    var lockRequestTimer: (any LoopSource)?
    /// Set once the first decision is made: a lock source's word before it is only recorded.
    var decided = false
    var reloadHousehold: (any LoopSource)?
    /// Runs once the loop has nothing else to dispatch: every event that queued while it could
    /// not run has been read, and the starts held meanwhile are judged (`.caughtUp`).
    var caughtUp: (any LoopSource)?
    /// The deferred write of `queue.json` and `status.json`, and whether one is owed.
    var publication: (any LoopSource)?
    var publicationWanted = false
    /// With `--backend systemd`: the manager that holds the starts.
    var systemd: SystemdBackend?
    var control: ControlSocket?
    /// The last answer to `pending --json`, while what it was made of holds (`PrintedAnswer`).
    var printedAnswer: PrintedAnswer?
    var managerReconnector: Reconnector?
    var sessionReconnector: Reconnector?
    /// The session bus connection's Disconnected match.
    var sessionDisconnected: AnyObject?
    var chimePlayer: (any BellPlayer)?
    var returner: (any DisplayBringer)?
    /// The last call the bus refused to send: Daysome's own message, shown in status until the daemon stops.
    var lastRefusal: StatusSnapshot.Refusal?
    /// State files that could not be trusted at start-up (set aside), for status.
    var stateProblems: [HouseholdProblem] = []
    /// This boot's id, when /proc lets the unit read it: a notification id is stamped with it.
    let bootId: String?
    /// The digest of the household last kept in the state directory.
    var keptDigest: UInt64?
    /// The copy last kept (or read back at start-up): the household in force, to keep again in a
    /// state directory made anew.
    var keptCopy: LastGoodHousehold?
    /// Its file's bytes while a disk refuses it: the retry writes them again unserialized.
    var keptCopyFile = SerializedOnce<LastGoodHousehold>()
    /// The digest of the copy in the runtime directory, which the state directory refused.
    var unsavedCopyDigest: UInt64?
    /// The bytes of the household file last read well, to keep as the last good copy.
    var lastReadHousehold: (bytes: [UInt8], digest: UInt64)?
    /// The display-pid rule: which pid counts, and which have exited. Its exits are kept in the
    /// runtime directory as they change, for a daemon restarted in this boot.
    var displayProcesses = DisplayProcessRule() {
        didSet {
            if self.displayProcesses.exited != oldValue.exited { self.keepDisplayExits() }
        }
    }
    /// Whether the earlier daemon's record held display exits its file could not (kept again at the claim).
    var displayExitsFromRecord = false
    /// The state directory, held for this daemon's life: one daemon per state (StateDirectoryLock.swift).
    var stateLock: (any StateDirectoryHold)?
    /// The state directory could not be locked (not for another daemon): said once, not per write.
    var stateLockFailed = false
    /// The manager connection that stops what a systemd-backend daemon left (wheel only), kept
    /// until its answers came (LeftoverTimers.swift).
    var leftoverTimers: (manager: any TimerManager, done: (any LoopSource)?)?
    /// Whether the state read at start-up is on record with everything called before the restart.
    package let stateProven: Bool
    /// The household the earlier daemon of this boot kept in its record: no file took its copy.
    var recordedHousehold: LastGoodHousehold?

    /// - Parameter peers: The loop, its clock and log, and the session's peers: production's
    ///   from the composition root (Daemon.swift), or a test world's.
    package init(options: DaemonOptions, environment: [String: String], peers: ManagerPeers) throws(DaemonError) {
        self.options = options
        self.environment = environment
        self.peers = peers
        self.loop = peers.loop
        self.logger = peers.logger
        let paths = options.paths
        let disk = peers.stateDisk
        do {
            try preparePrivateDirectory(paths.runtimeDirectory, disk: disk)
            try disk.makeDirectories(directory(of: paths.displayState), mode: 0o700)
        } catch {
            throw .setup(error.description)
        }
        // A daemon of this boot ran here before: the runtime directory's records of what it
        // called are to be trusted (gone at boot with the directory).
        let lockExisted = disk.exists(DaemonLock.path(in: paths.runtimeDirectory))
        do {
            self.lock = try disk.lockRuntimeDirectory(paths.runtimeDirectory)
        } catch {
            throw .setup("another daysomed already owns '\(paths.runtimeDirectory)' (\(error.reason))")
        }
        self.clock = peers.clock
        self.displayProcesses = Self.readDisplayExits(paths, disk: disk)
        self.publisher = Publisher(paths: paths, faults: peers.disk, disk: disk)
        let lock = self.lock
        self.writes = StateWrites(
            paths: paths, publisher: self.publisher, logger: self.logger, loop: self.loop, clock: self.clock,
            keepRecord: { lock.keepRecord($0.bytes) })
        // A state directory that cannot be created is reported and retried, as a read-only one is:
        // the daemon lays and calls from memory meanwhile.
        self.writes.makeDirectory(now: self.clock.instant)
        do {
            self.stateLock = try disk.lockStateDirectory(paths.stateDirectory, standingIn: false)
        } catch .taken(let taken) {
            throw .setup(taken.description)
        } catch {
            // Not there yet (it could not be created): the nearest directory above it stands in
            // until it is made, so no second daemon on it calls meanwhile (StateDirectoryLock.swift).
            do {
                self.stateLock = try disk.lockStateDirectory(paths.stateDirectory, standingIn: true)
            } catch .taken(let taken) {
                throw .setup(taken.description)
            } catch {
                self.logger.log(.error, "\(error); the state directory is not locked")
                self.stateLock = nil
            }
        }
        // The earlier daemon's record, where it was for this state directory (as a file: `STATE/`
        // or a link to it is the same). A record for another says nothing about this one.
        let earlier = RuntimeRecord(bytes: lock.earlierRecord)
        let forThisState = earlier.map { $0.stateDirectory.isSame(as: disk.identity(of: paths.stateDirectory)) } ?? true
        let sameBoot = lockExisted && forThisState
        self.writes.inherit(forThisState ? earlier?.kept : nil)
        self.recordedHousehold = forThisState ? earlier?.household : nil
        // The display's exits the earlier daemon could keep only in its record (a full runtime
        // directory): joined with the file's, and kept again once this daemon has claimed.
        if let exits = earlier?.displayExits {
            self.displayProcesses = self.displayProcesses.remembering(DisplayProcessRule.exits(fromText: exits))
            self.displayExitsFromRecord = true
        }
        let (legacyMarker, markerProblem) = Self.legacyMarker(
            paths, disk: disk, logger: self.logger, now: self.clock.instant)
        let config = MachineConfig(grace: options.grace, startsLiveIn: options.backend == .systemd ? .systemd : .wheel)
        // A daemon killed between lay.json and its history line left the history behind: catch up first.
        let (onDisk, problems) = Publisher.readPersisted(paths, disk: disk, now: self.clock.instant)
        for problem in problems { self.logger.log(.error, problem.description) }
        let unsaved = Publisher.readUnsaved(paths, disk: disk)
        let read = onDisk.merging(unsaved: unsaved)
        if unsaved != nil {
            self.logger.log(.notice, "Read what lay.json could not hold from '\(paths.unsavedLayFile)'")
        }
        let (persisted, caughtUp) = Publisher.catchUpHistory(
            read, history: HistoryFile.read(path: paths.historyFile, disk: disk), now: self.clock.instant)
        self.stateProven = Self.stateProven(
            read, kept: forThisState ? earlier?.kept : nil, legacyMarker: legacyMarker, unsaved: unsaved != nil,
            sameBoot: sameBoot, writes: self.writes, now: self.clock.instant)
        for record in caughtUp {
            self.logger.log(.notice, "History caught up at start-up: \(record.event.rawValue) lay \(record.lay)")
        }
        // Written as every history line is: a full disk keeps them, status says so, and the retry
        // timer writes them once it can.
        self.writes.record(caughtUp, now: self.clock.instant)
        self.machine = DaemonMachine(config: config, persisted: persisted, now: self.clock.instant)
        self.stateProblems = problems + (markerProblem.map { [$0] } ?? [])
        self.bootId = readBootId()
    }

    /// Everything before the loop runs: the notifier, the watches, the peers, each locker's word,
    /// and the first decision; then READY. Whoever owns the loop runs it afterwards (Daemon.swift).
    package func start() throws(DaemonError) {
        self.writes.onRetry = { [weak self] in self?.retryStateWrites() }
        self.writes.onDirectoryMade = { [weak self] in self?.stateDirectoryCameBack() }
        do {
            try self.connectNotifier()
            try self.watch()
            if self.peers.controlSocket { try self.openControlSocket() }
            self.chimePlayer = self.peers.bell()
            self.returner = self.peers.returner()
            if self.options.backend == .systemd {
                try self.connectManager()
            } else {
                self.stopLeftoverTimers()
            }
        } catch let error as DaemonError {
            throw error
        } catch {
            throw .setup("\(error)")
        }
        // Each locker is asked before the first decision reads the file: a restart while locked
        // keeps what is on screen and stays away (the file may say foreground from before the lock).
        self.watchLock()
        let display = self.decideStart()
        self.decided = true
        self.publishNow()
        let line = self.statusLine()
        self.toldStatus = line
        self.peers.serviceManager("READY=1\nSTATUS=\(line)")
        self.logger.log(
            .info,
            "Started: display \(display.rawValue)\(self.machine.screenLock.locked ? " (locked; the file says \(self.machine.screenLock.file.rawValue))" : ""), backend \(self.options.backend.rawValue), notifier \(self.options.notifier.rawValue)"
        )
    }

    /// The loop ended (SIGTERM or SIGINT): the service manager is told.
    func stopping() {
        self.peers.serviceManager("STOPPING=1")
        self.logger.log(.info, "Stopping")
    }

    /// The first decision, before the loop runs: the display, the household and the remembered
    /// lay. Returns the display decided: the file's state, or away while a locker says locked.
    func decideStart() -> DisplayState {
        // State before anything else: missing is away, unreadable at start-up is foreground.
        let file = self.readDisplay(startup: true) ?? .foreground
        let household = self.loadHousehold()
        let lastGood = self.loadKeptHousehold()
        // Before the first decision: what became of the servers that stamped the kept ids, where
        // the bus can tell (one still running keeps its cards, one gone took them); ids of any
        // other instance are forgotten, not closed. Nothing is published until the start has decided.
        let earlier = self.earlierServers()
        self.execute(
            unpublished(
                self.machine.handle(.earlierServers(running: earlier.running, gone: earlier.gone), now: self.now())))
        self.execute(unpublished(self.machine.handle(.serverIdentified(self.serverIdentity()), now: self.now())))
        // The start-up replay of a return made while no daemon ran is the machine's decision.
        self.execute(
            self.machine.startAfterRestart(
                file: file, fileWrittenAt: self.displayStateWritten(), household: household, lastGood: lastGood,
                stateProven: self.stateProven, now: self.now()))
        self.keepHousehold()
        // From here on the record in the lock file says where this daemon's calls are kept.
        self.writes.claim(self.machine.persisted, now: self.now())
        if self.displayExitsFromRecord { self.keepDisplayExits() }
        return self.machine.screenLock.effective
    }

    // MARK: The world, read into events

    func handle(_ event: MachineEvent) {
        // What the file says, combined with the lock: a locked session is away (LockWatch.swift).
        if case .display(let said) = event {
            self.execute(self.machine.displayRead(said, writtenAt: self.displayStateWritten(), now: self.now()))
        } else {
            self.execute(self.machine.handle(event, now: self.now()))
        }
        if case .household = event { self.keepHousehold() }
    }

    /// The time, whole seconds, from the daemon's clock. In the loop's callbacks it is the instant
    /// the iteration woke (sd-event's cached time), so every decision of one wake-up sees the same now.
    func now() -> Instant {
        self.clock.instant
    }

    /// Tells the machine which server instance answers, when that changed.
    func syncServerIdentity() {
        let identity = self.serverIdentity()
        if identity != self.machine.serverIdentity { self.handle(.serverIdentified(identity)) }
    }

    /// The notification server instance answering now, and this boot: what an id is stamped with.
    func serverIdentity() -> String? {
        self.notifier?.instance.map(self.stamp)
    }

    /// The stamp of a notifier's server instance ("busId uniqueName"): this boot, then it.
    func stamp(_ instance: String) -> String {
        "\(self.bootId ?? "boot?") \(instance)"
    }

    /// What became of each server that stamped an id an earlier daemon kept, other than the one
    /// answering now: one of another boot is gone; one of this boot is asked about on the bus.
    /// A server nobody can tell about is in neither set.
    func earlierServers() -> (running: Set<String>, gone: Set<String>) {
        let current = self.serverIdentity()
        var running: Set<String> = []
        var gone: Set<String> = []
        for stamp in Set(self.machine.persisted.delivered.compactMap(\.server)) where stamp != current {
            // A stamp whose boot could not be read ("boot?") tells nothing.
            guard self.bootId != nil, !stamp.hasPrefix("boot? "), let instance = self.instance(ofStamp: stamp) else {
                continue
            }
            // Another boot's: its bus and every server on it are gone.
            guard self.stamp(instance) == stamp else {
                gone.insert(stamp)
                continue
            }
            switch (self.notifier as? FreedesktopNotifier)?.stillRuns(instance) {
            case true?: running.insert(stamp)
            case false?: gone.insert(stamp)
            case nil: break
            }
        }
        return (running, gone)
    }

    /// The notifier's instance a stamp names (the stamp without its boot), to close an id there.
    func instance(ofStamp stamp: String) -> String? {
        let parts = stamp.split(separator: " ")
        return parts.count > 1 ? parts.dropFirst().joined(separator: " ") : nil
    }

    // MARK: Actions

    func execute(_ actions: [MachineAction]) {
        // The next step retries what a full disk left behind, before it writes anything new, but
        // after the closes the machine puts first: that retry writes the state as it is now, and a
        // card is closed before any write that forgets it.
        var retried = false
        func retryOnce() {
            guard !retried else { return }
            retried = true
            if self.writes.isBehind { self.writes.retry(self.machine.persisted, now: self.now()) }
        }
        defer { retryOnce() }
        var records: [HistoryRecord] = []
        func flushRecords() {
            guard !records.isEmpty else { return }
            // A line that cannot be written is kept and written later; the call is posted anyway.
            self.writes.record(records, now: self.now())
            records = []
        }
        for action in actions {
            if !action.isClose { retryOnce() }
            switch action {
            case .record(let record):
                records.append(record)
                self.logger.log(
                    record.event == .dropped ? .notice : .info,
                    "\(record.event.rawValue.prefix(1).uppercased() + record.event.rawValue.dropFirst()) lay \(record.lay)\(record.at.map { " start \($0.rfc3339)" } ?? "")\(record.itemIds.isEmpty ? "" : " (\(record.itemIds.joined(separator: ", ")))")\(record.reason.map { ": \($0)" } ?? "")",
                    fields: [("DAYSOME_EVENT", record.event.rawValue), ("DAYSOME_LAY", String(record.lay))]
                        + (record.at.map { [("DAYSOME_START", $0.rfc3339)] } ?? [])
                        // One field per item, as journalctl matches any of a field's values.
                        + record.itemIds.map { ("DAYSOME_ITEM", $0) }
                        + (record.reason.map { [("DAYSOME_REASON", $0)] } ?? []))
            case .persist:
                self.writes.persist(self.machine.persisted, now: self.now())
                self.checkStateDirectory()
            case .post(let key, let start):
                flushRecords()
                self.post(key, start)
            case .replace(let key, let start, let replacing):
                flushRecords()
                self.post(key, start, replacing: replacing)
            case .close(_, let id, let server):
                self.notifier?.close(id, on: server.flatMap(self.instance(ofStamp:)))
            case .publish:
                self.publish()
            case .arm(let instant):
                self.arm(instant)
            case .log(let priority, let message):
                self.logger.log(priority, message)
            case .layTimers(let lay, let starts, let replacing, let exact):
                self.systemd?.lay(lay, starts: starts, replacing: replacing, exactAlarms: exact)
            case .stopTimers:
                self.systemd?.stopAll()
            case .chime:
                self.ringBell()
            case .readDoNotDisturbForTheBell:
                self.readDoNotDisturbForTheBell()
            case .bringDisplayBack(let reason):
                self.returner?.bringBack(reason: reason)
            case .readDisplay:
                self.handle(.display(self.readDisplay(startup: false) ?? self.machine.screenLock.file))
            case .judgeWhenCaughtUp:
                try? self.caughtUp?.setEnabled(.oneshot)
            }
        }
        flushRecords()
        // A write that failed (or came back) after this step's publish: a settled step shows it now.
        let settled = actions.contains {
            if case .publish = $0 { return true }
            return false
        }
        if settled && self.writes.takeChanged() { self.publish() }
    }

    func post(_ key: DeliveryKey, _ start: Start, replacing: UInt32 = 0) {
        guard let notifier = self.notifier else { return }
        let leavesAt = { [weak self] () -> Instant? in
            guard let self else { return nil }
            let now = self.now()
            return self.machine.notifyLeaves(key, now: now) ? now : nil
        }
        notifier.post(
            start, replacing: replacing, mayStartServer: self.machine.mayStartAServer(for: key), leavesAt: leavesAt
        ) { [weak self] result in
            switch result {
            case .success(let answer):
                // The id is stamped with the instance that gave it (the reply's sender, which may
                // no longer own the name); the one answering now is learnt first, if it changed
                // since (a post that started the server, answered before the probe did).
                self?.syncServerIdentity()
                self?.handle(
                    .posted(
                        key, notificationId: answer.id, server: answer.instance.flatMap { self?.stamp($0) },
                        held: answer.held, bellHeld: answer.bellHeld))
            case .failure(let error):
                if error.failure == .unsent, let self {
                    self.lastRefusal = StatusSnapshot.Refusal(time: self.now(), at: key.at, reason: error.message)
                }
                self?.handle(.postFailed(key, reason: error.message, failure: error.failure))
            }
        }
    }

    func arm(_ instant: Instant?) {
        guard let source = self.wheelTimer else { return }
        do {
            if let instant {
                try source.setTime(UInt64(max(0, instant.seconds)) * 1_000_000)
                try source.setEnabled(.oneshot)
            } else {
                try source.setEnabled(.off)
            }
        } catch {
            self.logger.log(.error, "Failed to arm the wheel timer: \(error)")
        }
    }

    /// The retry timer fired: writes what is behind, and publishes the status when that changed.
    func retryStateWrites() {
        self.writes.retry(self.machine.persisted, now: self.now())
        if self.writes.householdBehind { self.saveKeptCopy() }
        if self.writes.takeChanged() { self.publish() }
    }

    /// Publishes the queue and the status once the loop has dispatched what is ready: a burst of
    /// events (a flip storm, a queue of inotify events after a stall) writes each file once.
    func publish() {
        self.publicationWanted = true
        if let source = self.publication {
            try? source.setEnabled(.oneshot)
        } else {
            self.publishNow()
        }
    }

    /// Writes what a `publish()` asked for, now: before READY and before a control request is
    /// answered, so that a reader who waited for either finds the files current.
    func publishNow() {
        guard self.publicationWanted else { return }
        self.publicationWanted = false
        try? self.publication?.setEnabled(.off)
        _ = self.writes.takeChanged()
        // Why calls wait for a server is told until the last of them was posted or dropped.
        if !self.machine.awaitsAServer { self.notifier?.noCallWaits() }
        do {
            try self.publisher.publish(self.machine, backend: self.options.backend, status: self.statusSnapshot)
        } catch {
            self.logger.log(.error, "\(error), ignoring")
        }
        // systemctl shows the line; a message per publish would only wake the manager.
        let line = self.statusLine()
        if line != self.toldStatus {
            self.toldStatus = line
            self.peers.serviceManager("STATUS=\(line)")
        }
    }

    /// `Display away; lay 3; next start 2026-11-30T13:00:00Z Lunch`.
    func statusLine() -> String {
        var parts = ["Display \(self.machine.display.rawValue)"]
        if let lay = self.machine.currentLay {
            parts.append("lay \(lay.number)")
        } else {
            parts.append("nothing laid" + (self.machine.notLaidReason.map { ": \($0)" } ?? ""))
        }
        if let next = self.machine.nextLaid {
            parts.append("next start \(next.at.rfc3339) \(next.title)".replacingNewlines())
        }
        if let error = self.writes.errors.first { parts.append("state not saved: \(error.error)".replacingNewlines()) }
        return parts.joined(separator: "; ")
    }
}

/// Why the daemon could not start or keep running.
package enum DaemonError: Error, CustomStringConvertible {
    case setup(String)
    case runtime(String)

    package var description: String {
        switch self {
        case .setup(let message), .runtime(let message): return message
        }
    }
}

/// Actions without their publication: for a step whose state is not the settled one yet.
func unpublished(_ actions: [MachineAction]) -> [MachineAction] {
    MachineAction.unpublished(actions)
}
