// Starts whose minute passed while the daemon could not run (stopped, stalled, suspended, or
// killed and started again). What queued meanwhile is read in one burst, in the order read, not
// the order it happened: a return written 0.1 s before a lock reads as a return, then a lock. So a
// start due when a return is read is held, not dropped, until the loop has read everything that
// queued (`.caughtUp`), and then judged by what she could see at its minute, where the daemon
// can know it (the display file's time), and by what she sees now:
// - a display write read after its minute (the file changed while nothing could call it): she
//   may have seen the day then (rule 3), so it is not called, and history says so;
// - away now, inside the grace window: called, as a restart inside grace calls it (rule 2);
// - in front now: not called (rule 1 first), and history says she was back before the daemon
//   could call it.
// Every such start gets a call or a history line: none is given up without a word.

/// A start held until the loop caught up, with the lay that planned it.
struct OwedStart: Sendable, Equatable {
    let lay: UInt64
    let start: Start
}

extension DaemonMachine {
    /// Her return the daemon read last (a `foreground` write, or a write no daemon read replayed
    /// as a return at a restart), when it came after `start`'s minute: she was back at the day
    /// before anything called the start, so she may have seen it at its minute. An `away` the app
    /// writes again while she is away says nothing of the sort (a launcher's `--if-pid`, a late
    /// manager timer without exact alarms), and never counts. A write stamped later than `now`
    /// tells nothing: the clock was set back since (a tablet without a battery clock), and taking
    /// it at its word would silence every start until then.
    func displayWrittenAfter(_ start: Start, now: Instant) -> Instant? {
        guard let written = self.returnSeenAt, written.seconds > start.at.seconds, written <= now else {
            return nil
        }
        return written
    }

    /// The history line for a start not called because the display was written after its minute.
    func writtenAfterItsMinute(_ start: Start, written: Instant, lay: UInt64, now: Instant) -> MachineAction {
        .record(
            HistoryRecord(
                time: now, event: .dropped, lay: lay, at: start.at, itemIds: start.itemIds,
                reason:
                    "the display wrote its state at \(written.rfc3339), after this start's minute, before the "
                    + "daemon could call it: she may have seen the day then"))
    }

    /// Holds due starts read with a return, until the loop has read what queued with it.
    mutating func hold(_ due: [Start], lay: UInt64) -> [MachineAction] {
        let wasHolding = !self.owed.isEmpty
        self.owed += due.map { OwedStart(lay: lay, start: $0) }
        return wasHolding ? [] : [.judgeWhenCaughtUp]
    }

    /// Judges the held starts by what she sees now (the file and the lock combined): while she is
    /// away the latest is called within the grace window (rule 2); each other one is named in history.
    mutating func judgeOwed(now: Instant) -> [MachineAction] {
        let owed = self.owed
        self.owed = []
        guard !owed.isEmpty else { return [] }
        if self.display == .away, let lay = self.persisted.lay {
            // In the family's words as they are now (an edit read in the same burst), under the
            // lay in force now: the one that held them was cleared by the return.
            var actions: [MachineAction] = []
            var planned: [Start] = []
            for held in owed {
                if let start = self.plannedNow(held.start) {
                    planned.append(start)
                } else {
                    actions.append(
                        .record(
                            HistoryRecord(
                                time: now, event: .dropped, lay: held.lay, at: held.start.at,
                                itemIds: held.start.itemIds,
                                reason: "the household in force no longer plans this start")))
                }
            }
            return actions + self.handleDue(planned, now: now, lay: lay.number) + [.persist]
        }
        let reason =
            self.display == .away
            ? "she is away, but no lay is in force now (notifications in other apps are off)"
            : "she was back at the day display before the daemon could call it"
        var actions: [MachineAction] = owed.map { held in
            .record(
                HistoryRecord(
                    time: now, event: .dropped, lay: held.lay, at: held.start.at, itemIds: held.start.itemIds,
                    reason: reason))
        }
        actions.append(.persist)
        return actions
    }
}
