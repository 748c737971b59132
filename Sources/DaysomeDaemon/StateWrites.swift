// The daemon's writes to its state directory (lay.json, the history, the directory itself) and
// what is behind when they fail: a full or read-only file system, a directory that cannot be
// created. A failure is a state, shown in `status`, never only a log line: what could not be
// written is kept, tried again on the next step and by one monotonic retry timer with backoff
// (no timer at all while every write succeeds), and the first write that succeeds brings the
// files up to date and clears the problem. Calls go on meanwhile: a full disk never silences lunch.

import DaysomeCore
import DaysomeFiles
import Glibc
import SystemdKit

/// Writes the state files through the publisher and keeps what failed until it is written.
final class StateWrites {
    private let paths: Paths
    private let publisher: Publisher
    private let logger: Logger
    private let loop: any Loop
    private let clock: any DaemonClock
    /// The one retry timer: nil while nothing is behind.
    private var retryTimer: (any LoopSource)?
    /// One second, doubling to a minute: a disk freed by hand is caught up within a minute, and a
    /// disk that stays full costs one failed write a minute.
    private var backoff = RetryBackoff(first: 1_000_000, longest: 60_000_000)
    /// State directories this daemon made whose names are not synced into their parents yet.
    private var unsyncedDirectories: [String] = []
    /// History lines not on disk yet, oldest first: appended before any newer line.
    private(set) var unwrittenRecords: [HistoryRecord] = []
    /// lay.json is older than the machine's state.
    private(set) var layBehind = false
    /// The last good household's copy is older than the household in force.
    private(set) var householdBehind = false
    /// The state directory is missing (it could not be created, or was removed).
    private var directoryMissing = false
    /// The state lay.json could not hold is kept in the runtime directory.
    private var unsavedKept = false
    /// Where this daemon's calls are kept now: nil before its first write of lay.json.
    private(set) var kept: CallsKept?
    /// What the lock file's record says now (RuntimeRecord.swift): at first the earlier daemon's,
    /// nil where there is none (it proves nothing).
    private var recorded: CallsKept?
    /// Set once this daemon's start has decided and been written: until then the earlier daemon's
    /// record stands, and may only be lowered (a kill before the start's decision proves no more
    /// than it did).
    private var claimed = false
    /// The household in force, kept in the record while no file could take its copy.
    private var householdInRecord: LastGoodHousehold?
    /// The display's exits the record keeps (`keepDisplayExitsInRecord`).
    private var displayExitsInRecord: String?
    /// Writes the record into the lock file; false when it could not be kept.
    private let keepRecord: (RuntimeRecord) -> Bool
    /// What failed, in the order it first failed.
    private(set) var errors: [StatusSnapshot.StateWriteError] = []
    /// The error each file of `errors` last failed with: a retry that fails the same way (a disk
    /// full for hours, once a minute) does not describe it again to compare.
    private var lastFailures: [String: FileError] = [:]
    /// Set when the list of errors changed, until `takeChanged`.
    private var changed = false
    /// Runs when the retry timer fires: the manager retries with its current state.
    var onRetry: () -> Void = {}
    /// Runs when the daemon made the state directory again: the manager locks it and keeps the
    /// last good household in it again.
    var onDirectoryMade: () -> Void = {}

    /// - Parameters:
    ///   - keepRecord: writes the record into the lock file (DaemonLock.keepRecord).
    init(
        paths: Paths, publisher: Publisher, logger: Logger, loop: any Loop, clock: any DaemonClock,
        keepRecord: @escaping (RuntimeRecord) -> Bool
    ) {
        self.paths = paths
        self.publisher = publisher
        self.logger = logger
        self.loop = loop
        self.clock = clock
        self.keepRecord = keepRecord
        // A copy an earlier daemon of this boot left is read at start-up, and goes once lay.json
        // holds what it held.
        self.unsavedKept =
            publisher.disk.exists(paths.unsavedLayFile) || publisher.disk.isRegularFile(paths.unprovenMarkerFile)
    }

    /// Where the earlier daemon of this boot recorded its calls kept, for this state directory;
    /// nil where it left no such record. It stands until this daemon's start has decided.
    func inherit(_ kept: CallsKept?) {
        self.recorded = kept
    }

    /// The start has decided: from now on the record says where this daemon's calls are kept.
    /// lay.json is written once if nothing wrote it at the start, so the record claims only what
    /// lay.json holds.
    func claim(_ state: PersistedState, now: Instant) {
        self.claimed = true
        if self.kept == nil {
            self.persist(state, now: now)
        } else {
            self.syncRecord()
        }
    }

    /// Keeps the household in force in the record while no file takes its copy; nil once one did.
    func keepInRecord(_ household: LastGoodHousehold?) {
        guard household?.fileDigest != self.householdInRecord?.fileDigest else { return }
        self.householdInRecord = household
        self.syncRecord(force: true)
    }

    /// Keeps the display's exits in the record while their file could not be written; nil once it was.
    func keepDisplayExitsInRecord(_ exits: String?) {
        guard exits != self.displayExitsInRecord else { return }
        self.displayExitsInRecord = exits
        self.syncRecord(force: true)
    }

    /// Writes the record where it changed. Before the claim it is only ever lowered.
    private func syncRecord(force: Bool = false) {
        let now = self.kept ?? self.recorded ?? .nowhere
        let value = self.claimed ? now : min(now, self.recorded ?? .nowhere)
        guard force || value != self.recorded else { return }
        // No record proves nothing, as `nowhere` does: nothing to write until a household must be kept.
        guard force || self.recorded != nil || value != .nowhere else { return }
        let record = RuntimeRecord(
            kept: value, stateDirectory: self.publisher.disk.identity(of: self.paths.stateDirectory),
            household: self.householdInRecord, displayExits: self.displayExitsInRecord)
        if self.keepRecord(record) {
            self.recorded = value
        } else {
            // The file was left empty: it proves nothing, and says no more than that.
            self.recorded = nil
            self.logger.log(
                .error,
                "Could not keep the record of where calls are kept in '\(DaemonLock.path(in: self.paths.runtimeDirectory))': a restart in this boot will call nothing it owed"
            )
        }
    }

    /// Whether anything is waiting to be written.
    var isBehind: Bool {
        self.layBehind || !self.unwrittenRecords.isEmpty || self.directoryMissing || self.householdBehind
    }

    /// Creates the state directory (0700) when it is missing; a failure is kept and retried, and
    /// the daemon runs on without it, as on a read-only one. Each directory made is synced into
    /// its parent: an fsync of lay.json and of the state directory keeps nothing while the state
    /// directory's own name is not on the disk (a power cut after the first start lost it all).
    @discardableResult
    func makeDirectory(now: Instant) -> Bool {
        let disk = self.publisher.disk
        do {
            // The missing directories, deepest first, down to the first one that exists.
            var missing: [String] = []
            var path = self.paths.stateDirectory
            while path != "/" && path != "." && !disk.exists(path) {
                missing.append(path)
                path = directory(of: path)
            }
            if !missing.isEmpty {
                try self.publisher.faults.check(self.paths.stateDirectory, operation: "create directory")
            }
            try disk.makeDirectories(self.paths.stateDirectory, mode: 0o700)
            // Kept until synced: a sync that failed is tried again with the directory's next retry.
            self.unsyncedDirectories += missing.reversed()
            while let made = self.unsyncedDirectories.first {
                try disk.syncDirectory(of: made)
                self.unsyncedDirectories.removeFirst()
            }
        } catch {
            self.directoryMissing = true
            self.failed(self.paths.stateDirectory, error, now: now)
            return false
        }
        let madeAgain = self.directoryMissing
        if madeAgain {
            self.logger.log(.notice, "Created the state directory '\(self.paths.stateDirectory)'")
        }
        self.directoryMissing = false
        self.succeeded(self.paths.stateDirectory)
        if madeAgain { self.onDirectoryMade() }
        return true
    }

    /// Writes lay.json; on failure it is marked behind and written again later.
    func persist(_ state: PersistedState, now: Instant) {
        self.layBehind = true
        guard !self.directoryMissing || self.makeDirectory(now: now) else {
            self.keepUnsaved(state)
            return
        }
        do {
            try self.publisher.persist(state)
        } catch {
            self.failed(self.paths.layFile, error, now: now)
            self.keepUnsaved(state)
            return
        }
        self.layBehind = false
        self.kept = .layFile
        self.syncRecord()
        if self.unsavedKept {
            self.publisher.forgetUnsaved()
            self.unsavedKept = false
        }
        self.succeeded(self.paths.layFile)
    }

    /// What lay.json could not hold is kept in the runtime directory: a daemon restarted inside
    /// the grace window reads it and never calls again what this one called (never twice).
    /// The record in the lock file says where, before the call this write precedes is made.
    private func keepUnsaved(_ state: PersistedState) {
        do {
            try self.publisher.keepUnsaved(state)
            self.unsavedKept = true
            self.kept = .runtimeCopy
            self.syncRecord()
        } catch {
            // The runtime directory is full too: the record says so (written in place, it needs
            // neither an inode nor a block), and a restart in this boot calls nothing it owed.
            self.unsavedKept = true
            let told = self.kept != .nowhere
            self.kept = .nowhere
            self.syncRecord()
            if told {
                self.logger.log(
                    .error,
                    "\(error); a restart in this boot will call nothing it owed: what is called now is on no disk")
            }
        }
    }

    /// Appends history lines after any still unwritten; on failure all are kept, in order.
    func record(_ records: [HistoryRecord], now: Instant) {
        self.unwrittenRecords += records
        // Bounded as the file is: a disk full for a year keeps the newest lines, never all of memory.
        if self.unwrittenRecords.count > HistoryFile.keep {
            let dropped = self.unwrittenRecords.count - HistoryFile.keep
            self.unwrittenRecords.removeFirst(dropped)
            self.logger.log(.warning, "\(dropped) history line(s) that could not be written were given up")
        }
        guard !self.unwrittenRecords.isEmpty else { return }
        guard !self.directoryMissing || self.makeDirectory(now: now) else { return }
        do {
            try self.publisher.record(self.unwrittenRecords)
        } catch {
            self.failed(self.paths.historyFile, error, now: now)
            return
        }
        self.unwrittenRecords = []
        self.succeeded(self.paths.historyFile)
    }

    /// The manager kept the household in force as the last good copy at `file`, or failed to (`error`).
    func kept(_ file: String, _ error: FileError?, now: Instant) {
        self.householdBehind = error != nil
        if let error { self.failed(file, error, now: now) } else { self.succeeded(file) }
    }

    /// Writes again whatever is behind: `state` is the machine's state now.
    func retry(_ state: PersistedState, now: Instant) {
        if self.directoryMissing { self.makeDirectory(now: now) }
        // The protocol's order: lay.json first, the history lines after.
        if self.layBehind { self.persist(state, now: now) }
        if !self.unwrittenRecords.isEmpty { self.record([], now: now) }
    }

    /// Whether the errors changed since the last call: the status must be published again.
    func takeChanged() -> Bool {
        defer { self.changed = false }
        return self.changed
    }

    private func failed(_ file: String, _ error: FileError, now: Instant) {
        // A directory that was removed under the daemon is created again on the retry.
        if error.errno == ENOENT && file != self.paths.stateDirectory { self.directoryMissing = true }
        if let index = self.errors.firstIndex(where: { $0.file == file }) {
            self.errors[index].attempts += 1
            if self.lastFailures[file] != error && self.errors[index].error != error.description {
                self.errors[index].error = error.description
                self.logger.log(.error, "\(error); '\(file)' is behind, retrying")
            }
        } else {
            self.logger.log(.error, "\(error); '\(file)' is behind, retrying")
            self.errors.append(.init(file: file, error: error.description, since: now, attempts: 1, nextAttempt: nil))
        }
        self.lastFailures[file] = error
        self.armRetry(now: now)
        self.changed = true
    }

    private func succeeded(_ file: String) {
        guard let index = self.errors.firstIndex(where: { $0.file == file }) else { return }
        let error = self.errors.remove(at: index)
        self.lastFailures[file] = nil
        self.logger.log(.notice, "Wrote '\(file)' again after \(error.attempts) failed attempt(s)")
        self.changed = true
        guard !self.isBehind && self.errors.isEmpty else { return }
        self.retryTimer?.cancel()
        self.retryTimer = nil
        self.backoff.reset()
    }

    /// Arms the one retry timer unless it is armed, and shows its time on every error: they are all
    /// written again when it fires, whatever failed since it was armed.
    private func armRetry(now: Instant) {
        if let delay = self.backoff.failed(now: now) {
            do {
                self.retryTimer = try self.loop.timer(
                    clock: CLOCK_MONOTONIC, after: delay, description: "state-write-retry"
                ) { [weak self] in self?.retryTimerFired() }
            } catch {
                self.backoff.notArmed()
                self.logger.log(.error, "Failed to arm the state write retry: \(error); retrying on the next change")
            }
        }
        for index in self.errors.indices { self.errors[index].nextAttempt = self.backoff.nextAttempt }
    }

    private func retryTimerFired() {
        self.retryTimer = nil
        self.backoff.fired()
        self.onRetry()
        // Still behind: a failure above armed the timer again, at the longer delay.
        if self.isBehind && self.retryTimer == nil {
            self.armRetry(now: self.clock.instant)
            self.changed = true
        }
    }
}
