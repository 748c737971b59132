// The display the daemon acts on: what the display state file says, unless the session is
// locked. A locked tablet is away whatever the file says; on unlock the file decides again.
// Pure: the daemon feeds it the file's state and each lock source's state, in any order, and
// acts on `effective`. Because it keeps both latest values, a lock, an unlock and a file write
// arriving in any interleaving end in the same state.

/// Where the daemon learns that the session is locked.
public enum LockSource: String, Sendable, CaseIterable {
    /// logind's `LockedHint` of the user's graphical session, on the system bus.
    case logind
    /// `org.freedesktop.ScreenSaver`'s `ActiveChanged`, on the session bus.
    case screenSaver
    /// logind's `Lock` and `Unlock` signals of the user's graphical session: a kiosk has no
    /// locker, so `loginctl lock-session` leaves `LockedHint` unset and these are all it says.
    case logindLockSignal
}

/// The file's state combined with the lock.
public struct ScreenLock: Sendable, Equatable {
    /// What the display state file said last (missing is away).
    public private(set) var file: DisplayState
    /// Each source's last word: true locked, false unlocked; absent when it said nothing
    /// (not watched, no session, no screensaver), which counts as unlocked.
    private var sources: [LockSource: Bool] = [:]

    public init(file: DisplayState = .away) {
        self.file = file
    }

    /// True while any source says the session is locked.
    public var locked: Bool { self.sources.values.contains(true) }

    /// What one source said last, or nil when it said nothing.
    public func locked(by source: LockSource) -> Bool? { self.sources[source] }

    /// The display the daemon acts on: away while locked, else the file's state.
    public var effective: DisplayState { self.locked ? .away : self.file }

    /// Records what the file says; returns the effective display.
    public mutating func fileSays(_ state: DisplayState) -> DisplayState {
        self.file = state
        return self.effective
    }

    /// Records what a source says (nil: it is gone or has no session); returns the effective display.
    public mutating func source(_ source: LockSource, says locked: Bool?) -> DisplayState {
        // A locker that unlocks on her password turns `LockedHint` from true to false and no
        // `Unlock` comes: the lock request it answered is over too, or the display would stay
        // away for ever. A kiosk's `LockedHint` never turns, so its lock request stands.
        if source == .logind, locked == false, self.sources[.logind] == true, self.sources[.logindLockSignal] == true {
            self.sources[.logindLockSignal] = false
        }
        self.sources[source] = locked
        return self.effective
    }

    /// The source that keeps the session locked now (the first in `LockSource` order), or nil
    /// when the file decides: what `status` names as the decider.
    public var decidedBy: LockSource? {
        LockSource.allCases.first { self.sources[$0] == true }
    }
}
