// The decisions a daemon makes at start-up, before its loop runs, from what it read: whether the
// state it read is on record with every call made before the restart, the history lines a kill
// left unwritten, and the first decision itself with the display state file's time. The daemon's
// Manager reads the files and the lockers and executes what comes back; the simulator runs the
// same code against its fakes, so a restart is decided one way in both.

/// Where a daemon's calls are kept, as it records it in its runtime directory before each call
/// (RuntimeRecord in the daemon): the order is how much a restart can prove from it.
public enum CallsKept: String, Sendable, Comparable {
    /// Neither lay.json nor the runtime copy took the state: what was called is on no disk.
    case nowhere
    /// lay.json refused the state; the runtime copy holds it.
    case runtimeCopy = "runtime copy"
    /// lay.json holds every call made.
    case layFile = "lay.json"

    private var rank: Int {
        switch self {
        case .nowhere: 0
        case .runtimeCopy: 1
        case .layFile: 2
        }
    }

    public static func < (lhs: CallsKept, rhs: CallsKept) -> Bool { lhs.rank < rhs.rank }
}

/// Whether the state read at start-up holds every call made before the restart (never twice).
/// Proof is a positive record: where a daemon of this boot ran on this state directory, only its
/// record saying where its calls are kept proves anything, so a record that could not be written
/// (or was never written) proves nothing, whatever the runtime directory did.
public enum StateProof {
    /// - Parameters:
    ///   - kept: where the daemon of this boot that ran here before recorded its calls kept; nil
    ///     when it left no record (it could not write one, or predates the record).
    ///   - legacyMarker: the runtime directory holds the empty `lay.unproven` an older daemon
    ///     made when neither lay.json nor the runtime copy could take a write.
    ///   - unsavedRead: a copy kept in the runtime directory was read (and merged): it is the record.
    ///   - sameBoot: a daemon of this boot ran on this runtime directory with this state directory.
    ///   - layToResume: the state read holds a lay.
    ///   - stateDirectoryTakesAWrite: asked only on a new boot with a lay to resume: whether the
    ///     state directory takes the state's write now. One that refuses it may have refused the
    ///     last call's record too.
    public static func proven(
        kept: CallsKept?, legacyMarker: Bool = false, unsavedRead: Bool, sameBoot: Bool, layToResume: Bool,
        stateDirectoryTakesAWrite: () -> Bool
    ) -> Bool {
        if legacyMarker { return false }
        if sameBoot {
            switch kept {
            case .layFile?: return true
            // A copy that was kept but not read (unreadable, or matched to no directory) proves nothing.
            case .runtimeCopy?: return unsavedRead
            case .nowhere?, nil: return false
            }
        }
        if unsavedRead { return true }
        guard layToResume else { return true }
        return stateDirectoryTakesAWrite()
    }
}

extension PersistedState {
    /// Brings the history up to lay.json after a daemon was killed between writing one and the
    /// other (lay.json is written first, the history lines after): the current lay laid, an
    /// earlier one cleared, and a call kept but never posted (its post comes after its history
    /// line) dropped, and forgotten so that no withdrawal is recorded for it later. Returns the
    /// state to start from and the lines to append.
    public func catchingUp(history: [HistoryRecord], now: Instant) -> (PersistedState, [HistoryRecord]) {
        var laid: Set<UInt64> = []
        var cleared: Set<UInt64> = []
        var told: Set<DeliveryKey> = []
        for record in history {
            switch record.event {
            case .laid: laid.insert(record.lay)
            case .cleared: cleared.insert(record.lay)
            case .delivered, .dropped: if let at = record.at { told.insert(DeliveryKey(lay: record.lay, at: at)) }
            default: break
            }
        }
        let note = "written at start-up: the daemon stopped before it wrote this line"
        var added: [HistoryRecord] = []
        for lay in laid.subtracting(cleared).sorted() where lay != self.lay?.number {
            added.append(HistoryRecord(time: now, event: .cleared, lay: lay, reason: note))
        }
        if let lay = self.lay, !laid.contains(lay.number), !cleared.contains(lay.number) {
            added.append(HistoryRecord(time: lay.from, event: .laid, lay: lay.number, reason: note))
        }
        var kept = self
        for call in self.delivered where !told.contains(call.key) {
            if call.notificationId != nil {
                // A server took it (its id was kept) and the daemon stopped before history said so:
                // it is on screen, kept to be closed at its expiry or on her return.
                added.append(
                    HistoryRecord(
                        time: now, event: .delivered, lay: call.key.lay, at: call.key.at, itemIds: call.itemIds,
                        reason: note))
                continue
            }
            added.append(
                HistoryRecord(
                    time: now, event: .dropped, lay: call.key.lay, at: call.key.at, itemIds: call.itemIds,
                    reason: "the daemon stopped before a notification server's answer reached it"))
            kept.delivered.removeAll { $0.key == call.key }
        }
        return (kept, added)
    }
}

extension DaemonMachine {
    /// The first decision after a (re)start, from what the display state file said (`file`, its
    /// last write `fileWrittenAt`) combined with what each locker answered (`lockSaid`, asked
    /// before the file was read: a restart while locked keeps what is on screen and stays away).
    ///
    /// When the display wrote its state after the remembered lay's last handled start, while no
    /// daemon ran, she came back (and left again) meanwhile: the display chimed for what fell due
    /// then (rule 3), and what was shown must go (rule 1). The return is replayed, unpublished (a
    /// tester never reads it as the daemon's state), then the file's word.
    public mutating func startAfterRestart(
        file: DisplayState, fileWrittenAt: Instant?,
        household: Result<LoadedHousehold, HouseholdFileError>, lastGood: LoadedHousehold?, stateProven: Bool,
        now: Instant
    ) -> [MachineAction] {
        let display = self.screenLock.fileSays(file)
        let seen = self.persisted.displaySeenAt
        // The daemon writes the machine's state as it is after the step: any write of this step
        // keeps the file's time too; a step with none gets one.
        let noted = self.displayWritten(at: fileWrittenAt)
        var actions: [MachineAction]
        // A write an earlier daemon read (the display saying away again while it ran) is no return.
        if display == .away, let lay = self.currentLay, let written = fileWrittenAt, written > lay.handledThrough,
            seen.map({ written > $0 }) ?? true
        {
            let replayed = [
                MachineAction.log(
                    .notice,
                    "The display state changed at \(written.rfc3339) while the daemon was stopped; treating it as a return, then an away"
                )
            ]
            // Whether what was called before the restart is on record holds for the whole
            // start-up: the starts the return held are judged after the away, inside it.
            self.callsBeforeRestartUnproven = !stateProven
            defer { self.callsBeforeRestartUnproven = false }
            self.returnSeenAt = written
            let returned = self.started(display: .foreground, household: household, lastGood: lastGood, now: now)
            actions =
                replayed + MachineAction.unpublished(returned) + self.handled(.display(display), now: now)
                + self.handle(.caughtUp, now: now)
        } else {
            actions = self.start(
                display: display, household: household, lastGood: lastGood, stateProven: stateProven, now: now)
        }
        if !actions.contains(.persist) { actions = noted + actions }
        return actions
    }
}

extension DaemonMachine {
    /// The daemon read the display state file, last written at `writtenAt`: kept, so that a
    /// restart replays a return only for a write no daemon read. Returns the state's write when
    /// the time moved on (a display saying away twice changes nothing else).
    public mutating func displayWritten(at writtenAt: Instant?) -> [MachineAction] {
        guard let writtenAt, self.persisted.displaySeenAt.map({ writtenAt > $0 }) ?? true else { return [] }
        self.persisted.displaySeenAt = writtenAt
        return [.persist]
    }
}

extension DaemonMachine {
    /// The display's word from the file written at `writtenAt`, combined with the lock (away
    /// while a locker says locked): handled, and that write kept so that a restart never takes it
    /// for a return made while no daemon ran. It is kept by the step's own state write where the
    /// step has one: one fsync per flip, not two.
    public mutating func displayRead(_ said: DisplayState, writtenAt: Instant?, now: Instant) -> [MachineAction] {
        let before = self.screenLock.file
        if said == .foreground, let writtenAt {
            self.returnSeenAt = writtenAt
        }
        let display = self.screenLock.fileSays(said)
        let noted = self.displayWritten(at: writtenAt)
        var actions = self.handled(.display(display), now: now)
        // Status shows the file's word as soon as it is written, also while a lock keeps her away
        // and nothing else changes.
        if self.screenLock.file != before && !actions.contains(.publish) { actions.append(.publish) }
        return actions.contains(.persist) ? actions : noted + actions
    }
}

extension MachineAction {
    /// Actions without their publication: for a step whose state is not the settled one yet.
    public static func unpublished(_ actions: [MachineAction]) -> [MachineAction] {
        actions.filter {
            if case .publish = $0 { return false }
            return true
        }
    }
}
