// The display the daemon acts on: what the display state file says, unless a locker says the
// session is locked. A locked tablet is away whatever the file says; on unlock the file decides
// again. Locked is what a locker says: logind's `LockedHint` and the two screensaver interfaces.
// logind's `Lock` request is only a request: it never locks by itself, and where no locker
// answers it within `LockRequest.answerWindow` status says so. Pure: the daemon feeds it each
// word in any order with the time it came, and acts on `effective`; nothing is remembered across
// a restart, so a request from before one can never lock.

/// Where the daemon learns that the session is locked, or that a lock was asked for.
public enum LockSource: String, Sendable, CaseIterable {
    /// logind's `LockedHint` of the user's graphical session, on the system bus: a locker.
    case logind
    /// `org.freedesktop.ScreenSaver`'s `ActiveChanged`/`GetActive`, on the session bus: a locker.
    case screenSaver
    /// logind's `Lock` and `Unlock` signals of the user's graphical session: requests to the
    /// session's locker, never a lock (a kiosk with no locker stays in her sight).
    case logindLockSignal
    /// `org.gnome.ScreenSaver`'s `ActiveChanged`/`GetActive`, on the session bus (Phosh, GNOME
    /// Shell): a locker. Last, so that status keeps the order it has always written.
    case gnomeScreenSaver

    /// Whether what this source says is a lock (rather than a request for one).
    public var isLocker: Bool { self != .logindLockSignal }

    /// The sources whose word locks, in the order `decidedBy` names them.
    public static var lockers: [LockSource] { Self.allCases.filter(\.isLocker) }
}

/// A `Lock` request of logind, and what came of it.
public struct LockRequest: Sendable, Equatable {
    /// How long a locker has to confirm a request before status says no locker answered.
    public static let answerWindow: UInt64 = 2_000_000

    /// What came of a request, as of a given time.
    public enum State: Sendable, Equatable {
        /// Asked less than `answerWindow` ago, and no locker has said locked yet.
        case waiting
        /// A locker said locked while the request stood.
        case answered(by: LockSource)
        /// No locker said locked within `answerWindow`: nothing is locked, she still sees the day.
        case unanswered
    }

    /// When it came, in microseconds of the daemon's wall clock.
    public var at: UInt64
    /// The locker that said locked while it stood, if one did.
    public var answeredBy: LockSource?

    /// The instant the answer window closes.
    public var deadline: UInt64 { self.at + Self.answerWindow }

    /// What came of it at `now` (microseconds of the same clock as `at`).
    public func state(now: UInt64) -> State {
        if let answeredBy { return .answered(by: answeredBy) }
        return now < self.deadline ? .waiting : .unanswered
    }
}

/// The file's state combined with what the lockers say.
public struct ScreenLock: Sendable, Equatable {
    /// What the display state file said last (missing is away).
    public private(set) var file: DisplayState
    /// Each locker's last word: true locked, false unlocked; absent when it said nothing
    /// (not watched, no session, no screensaver), which counts as unlocked.
    private var lockers: [LockSource: Bool] = [:]
    /// Whether logind's requests are followed (a session to follow them on).
    private var followingRequests = false
    /// The `Lock` request that stands, until an `Unlock` request, the unlock of the lock that
    /// answered it, or the session it was for going away.
    public private(set) var request: LockRequest?

    public init(file: DisplayState = .away) {
        self.file = file
    }

    /// True while any locker says the session is locked. A request never counts.
    public var locked: Bool { self.lockers.values.contains(true) }

    /// What one source says now, or nil when it says nothing. A request source is never locked:
    /// false while its requests are followed.
    public func locked(by source: LockSource) -> Bool? {
        source.isLocker ? self.lockers[source] : (self.followingRequests ? false : nil)
    }

    /// The display the daemon acts on: away while locked, else the file's state.
    public var effective: DisplayState { self.locked ? .away : self.file }

    /// Records what the file says; returns the effective display.
    public mutating func fileSays(_ state: DisplayState) -> DisplayState {
        self.file = state
        return self.effective
    }

    /// Records what a source says at `now` (microseconds of the daemon's wall clock); returns the
    /// effective display. For a locker, nil means it is gone or has no session. For
    /// `logindLockSignal`, true is a `Lock` request, false an `Unlock` request (or the requests
    /// of a new session followed), nil that no session's requests are followed.
    public mutating func source(_ source: LockSource, says locked: Bool?, at now: UInt64) -> DisplayState {
        guard source.isLocker else {
            self.followingRequests = locked != nil
            if locked == true {
                // A screen already locked answers the request at once.
                self.request = LockRequest(at: now, answeredBy: self.decidedBy)
            } else {
                self.request = nil
            }
            return self.effective
        }
        let wasLocked = self.locked
        self.lockers[source] = locked
        if locked == true, self.request != nil, self.request?.answeredBy == nil {
            self.request?.answeredBy = source
        }
        // The lock that answered the request is over (her password, Phosh's keypad; logind sends
        // no Unlock then): so is the request.
        if wasLocked, !self.locked, self.request?.answeredBy != nil {
            self.request = nil
        }
        return self.effective
    }

    /// The locker that keeps the session locked now (the first in `LockSource.lockers` order),
    /// or nil when the file decides: what `status` names as the decider.
    public var decidedBy: LockSource? {
        LockSource.lockers.first { self.lockers[$0] == true }
    }

    /// When status must be published again because a request's answer window closes, or nil.
    public var requestDeadline: UInt64? {
        guard let request = self.request, request.answeredBy == nil else { return nil }
        return request.deadline
    }
}
