// What testers inspect: the live queue and status in the runtime directory (rewritten
// atomically after every change), the lay record and bounded history in the state directory.

import DaysomeCore
import DaysomeFiles
import Glibc
import SystemdKit

/// Writes the daemon's files.
final class Publisher {
    let paths: Paths
    private var history: HistoryFile
    /// Asked before each state write (DiskFaults.swift).
    let faults: DiskFaults
    /// What `queue.json` was last written from, and `status.json`'s last snapshot and bytes.
    private var publishedQueue: QueueKey?
    private var publishedSnapshot: StatusSnapshot?
    private var publishedStatus: [UInt8]?
    /// The bytes of the state and of its runtime copy, kept with what they were made from: a
    /// retry on a full disk serializes nothing again. lay.json's are kept only while it is behind.
    private var layBytes = SerializedOnce<PersistedState>()
    private var unsavedBytes = SerializedOnce<UnsavedCopy>()
    /// Where every file of the daemon is read and written (StateDisk.swift): the kernel's in
    /// production, a simulated one in a test.
    let disk: any StateDisk

    init(paths: Paths, faults: DiskFaults = DiskFaults(), disk: any StateDisk = SystemDisk.shared) {
        self.paths = paths
        self.faults = faults
        self.disk = disk
        self.history = HistoryFile(path: paths.historyFile, disk: disk)
    }

    /// Reads the persisted state. Missing is a fresh start. A file that cannot be trusted (torn by
    /// a power cut, a number out of range, a field of the wrong shape) is set aside as
    /// `lay.json.corrupt-<time>` and reported, and the daemon starts clean; the lay counter never
    /// goes below a number the history still names, so none is used twice (the systemd manager's
    /// timers raise it further once connected). Returns the state and the problems to report.
    static func readPersisted(
        _ paths: Paths, disk: any StateDisk, now: Instant
    ) -> (state: PersistedState, problems: [HouseholdProblem]) {
        var state = PersistedState()
        var problems: [HouseholdProblem] = []
        func setAside(_ why: String, field: String? = nil) {
            let aside =
                (try? disk.setAside(paths.layFile, now: now)).map { "set aside as '\($0)'" }
                ?? "could not be set aside"
            problems.append(
                HouseholdProblem(
                    file: paths.layFile, itemId: nil, field: field,
                    message: "\(why); \(aside), starting with no current lay"))
        }
        do {
            let bytes = try disk.read(paths.layFile, limit: 1 << 20, followLinks: false, regularOnly: true)
            do {
                state = try PersistedState(decoding: try JSONParser.parse(bytes))
            } catch let error as JSONParseError {
                setAside(bytes.isEmpty ? "is empty" : "is not valid JSON: \(error)")
            } catch let error as StateFileProblem {
                setAside(error.message, field: error.field)
            } catch {
                setAside("\(error)")
            }
        } catch {
            // No lay.json, or no state directory yet (reported by the writes): a fresh start.
            if error.errno != ENOENT && error.errno != ENOTDIR { setAside(error.reason) }
        }
        let (history, unreadable) = HistoryFile.readCounting(path: paths.historyFile, disk: disk)
        if unreadable > 0 {
            problems.append(
                HouseholdProblem(
                    file: paths.historyFile, itemId: nil, field: nil,
                    message: "\(unreadable) unreadable line(s) skipped (torn or out of range)"))
        }
        state.layCounter = max(state.layCounter, history.map(\.lay).max() ?? 0)
        return (state, problems)
    }

    /// Brings the history up to lay.json after a daemon was killed between writing one and the
    /// other (lay.json is written first, the history lines after): the current lay laid, an
    /// earlier one cleared, and a call kept but never posted (its post comes after its history
    /// line) dropped, and forgotten so that no withdrawal is recorded for it later. Returns the
    /// state to start from and the lines to append, which it does not write: they go through
    /// `StateWrites`, kept and retried like any history line when the disk refuses them.
    static func catchUpHistory(
        _ state: PersistedState, history: [HistoryRecord], now: Instant
    ) -> (PersistedState, [HistoryRecord]) {
        state.catchingUp(history: history, now: now)
    }

    func persist(_ state: PersistedState) throws(FileError) {
        try self.faults.check(self.paths.layFile)
        let bytes = self.layBytes.bytes(of: state) { $0.json.serializedFile() }
        try self.disk.writeAtomically(self.paths.layFile, bytes: bytes, durable: true)
        self.layBytes.forget()
    }

    /// Keeps the state in the runtime directory while lay.json cannot be written. tmpfs, so no
    /// sync: it only has to outlive the daemon, not the boot.
    func keepUnsaved(_ state: PersistedState) throws(FileError) {
        // The state directory as a file too: a restart that names it `STATE/` or through a link
        // still finds the copy its own.
        let copy = UnsavedCopy(state: state, identity: self.disk.identity(of: self.paths.stateDirectory))
        let bytes = self.unsavedBytes.bytes(of: copy) { copy in
            let kept = JSONValue.object(
                JSONObject([
                    ("stateDirectory", .string(self.paths.stateDirectory)),
                    ("stateDirectoryCanonical", .string(copy.identity.canonicalPath)),
                    ("stateDirectoryNode", copy.identity.node.map { .string($0) } ?? .null), ("state", copy.state.json),
                ]))
            return kept.serializedFile()
        }
        try self.faults.check(self.paths.unsavedLayFile)
        try self.disk.writeAtomically(self.paths.unsavedLayFile, bytes: bytes)
    }

    /// lay.json caught up: the runtime copy says nothing more.
    func forgetUnsaved() {
        self.unsavedBytes.forget()
        try? self.disk.removeFile(self.paths.unsavedLayFile)
        try? self.disk.removeFile(self.paths.unprovenMarkerFile)
    }

    /// The state a daemon of this boot kept while lay.json could not be written, when it was
    /// kept for this state directory (compared as a file, never as a string); nil when there is
    /// none or it cannot be read.
    static func readUnsaved(_ paths: Paths, disk: any StateDisk) -> PersistedState? {
        guard let bytes = try? disk.read(paths.unsavedLayFile, limit: 1 << 20, followLinks: false, regularOnly: true),
            let json = try? JSONParser.parse(bytes), let object = json.objectValue,
            let named = object["stateDirectory"]?.stringValue, let state = object["state"]
        else { return nil }
        // A copy from before the identity was kept has only the path it was given.
        let kept = FileIdentity(
            node: object["stateDirectoryNode"]?.stringValue,
            canonicalPath: object["stateDirectoryCanonical"]?.stringValue ?? FileIdentity.canonical(named))
        guard kept.isSame(as: disk.identity(of: paths.stateDirectory)) else { return nil }
        return try? PersistedState(decoding: state)
    }

    func record(_ records: [HistoryRecord]) throws(FileError) {
        try self.faults.check(self.paths.historyFile)
        try self.history.append(records)
    }

    /// The live queue as the snapshot `daysomectl pending` reads back.
    func queue(_ machine: DaemonMachine, backend: BackendKind) -> QueueSnapshot {
        var queue = self.envelope(machine, backend: backend)
        queue.pending.reserveCapacity(machine.laidCount)
        self.forEachEntry(machine) { queue.pending.append($0) }
        return queue
    }

    /// The queue with no entries: what is written around them.
    private func envelope(_ machine: DaemonMachine, backend: BackendKind) -> QueueSnapshot {
        QueueSnapshot(
            backend: backend.rawValue, display: machine.display, lay: machine.currentLay?.number, daemonRunning: true,
            publisher: QueueSnapshot.Publisher(
                pid: UInt64(getpid()), timeZone: machine.household?.load.household.zone.name),
            pending: [])
    }

    /// Each laid start as the queue's entry, in order.
    private func forEachEntry(_ machine: DaemonMachine, _ body: (QueueSnapshot.Entry) -> Void) {
        let zone = machine.household?.load.household.zone
        let lay = machine.currentLay?.number ?? 0
        // The wheel names its slot; with the systemd backend the manager holds the start, and
        // `daysomectl pending` reads it back from there, joining this record by instant.
        machine.forEachLaid { start, slot in
            // The zone's rules may have changed since the plan: its offset then decides the local time.
            let local = zone.map {
                $0.rules.offset(at: start.at.seconds) == start.local.offset ? start.local : $0.local(start.at)
            }
            body(
                QueueSnapshot.Entry(
                    lay: lay, at: start.at, local: local ?? start.local, itemIds: start.itemIds,
                    title: start.title, handle: slot.map { "wheel:\($0.rawValue)" } ?? "systemd",
                    expiresAt: start.expiresAt))
        }
    }

    /// Writes the live queue and the status, each through its snapshot type, each only when its
    /// bytes change: the queue is rebuilt only when what it is made of moved (`QueueKey`), the
    /// status is compared with what was written last. A dense week's queue is 2.5 MB: a flip of
    /// the lock or a server coming and going must not write it again.
    func publish(_ machine: DaemonMachine, backend: BackendKind, status: () -> StatusSnapshot) throws(FileError) {
        let key = QueueKey(machine)
        if key != self.publishedQueue {
            self.publishedQueue = nil
            // Each entry written as it is made: no list of a dense week's 10,080 entries first.
            let envelope = self.envelope(machine, backend: backend)
            try self.disk.writeAtomically(self.paths.queueFile, mode: 0o600, durable: false) { emit in
                envelope.serialize(
                    inPiecesOf: 64 * 1_024, count: machine.laidCount, entries: { self.forEachEntry(machine, $0) }, emit)
            }
            self.publishedQueue = key
            // The queue's bytes and the starts a clear let go of: given back, not kept resident
            // until the next lay (a dense week's lay left 5 MB of free heap behind).
            Heap.releaseFreeMemory()
        }
        // The snapshot the bytes are made from is compared first: most turns change nothing a
        // status shows, and building its JSON text was the most of what a turn cost (issue 45).
        let snapshot = status()
        guard snapshot != self.publishedSnapshot else { return }
        self.publishedSnapshot = nil
        let bytes = Array((snapshot.json.serialized(pretty: true) + "\n").utf8)
        if bytes != self.publishedStatus {
            self.publishedStatus = nil
            try self.disk.writeAtomically(self.paths.statusFile, bytes: bytes)
            self.publishedStatus = bytes
        }
        self.publishedSnapshot = snapshot
    }
}

/// What the runtime copy of the state is made of.
private struct UnsavedCopy: Equatable {
    let state: PersistedState
    let identity: FileIdentity
}
