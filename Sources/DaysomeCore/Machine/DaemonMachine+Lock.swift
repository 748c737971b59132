// A lock is what a locker says, and it is the machine's to combine with the display's file: a
// locked session is away whatever the file says, and on unlock the file decides again
// (`ScreenLock`). The daemon, the embedded world and the model feed each word here and execute
// what comes back, so a lock is decided one way in all three (the model once mirrored the
// daemon's `lockChanged` by hand).

extension DaemonMachine {
    /// `source`'s new word, at `micros` of the daemon's wall clock (a locker: locked, unlocked,
    /// or nil for gone; logind's requests: true a `Lock` request, false an `Unlock` one, nil no
    /// session's requests followed). Before the first
    /// decision it is only recorded: that decision combines the file and the lock itself. After
    /// it, a change of locked has the display's file read again (`.readDisplay`): it may have
    /// been written while the session was locked.
    public mutating func lockSaid(_ source: LockSource, _ locked: Bool?, at micros: UInt64) -> [MachineAction] {
        let wasLocked = self.screenLock.locked
        _ = self.screenLock.source(source, says: locked, at: micros)
        guard self.decidedStart, wasLocked != self.screenLock.locked else { return [] }
        return [
            .log(
                .notice,
                self.screenLock.locked
                    ? "The session is locked (\(source.rawValue)); the display is away"
                    : "The session is unlocked; the display state file decides again"),
            .readDisplay,
        ]
    }
}
