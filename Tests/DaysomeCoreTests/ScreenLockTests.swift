// A locked tablet is away whatever the file says; on unlock the file decides again. Locked is
// what a locker says (logind's LockedHint, org.freedesktop.ScreenSaver, org.gnome.ScreenSaver);
// logind's Lock request never locks. The lockers, the requests and the file are combined in the
// pure core, so every interleaving is checked here, fast, on times the tests choose.

import DaysomeCore
import Testing

/// Microseconds of a made-up wall clock: `second(3)` is 3 s after its epoch.
private func second(_ value: Double) -> UInt64 { UInt64(value * 1_000_000) }

@Suite struct ScreenLockTests {
    @Test func aLockedSessionIsAwayWhateverTheFileSays() {
        var lock = ScreenLock()
        #expect(lock.fileSays(.foreground) == .foreground)
        #expect(lock.source(.logind, says: true, at: 0) == .away)
        #expect(lock.fileSays(.foreground) == .away)
        #expect(lock.locked)
    }

    @Test func onUnlockTheFileDecidesAgain() {
        var lock = ScreenLock(file: .foreground)
        _ = lock.source(.logind, says: true, at: 0)
        #expect(lock.source(.logind, says: false, at: 0) == .foreground)
        _ = lock.source(.screenSaver, says: true, at: 0)
        _ = lock.fileSays(.away)
        #expect(lock.source(.screenSaver, says: false, at: 0) == .away)
    }

    @Test func anyOneLockerSayingLockedIsEnough() {
        var lock = ScreenLock(file: .foreground)
        _ = lock.source(.logind, says: false, at: 0)
        #expect(lock.source(.screenSaver, says: true, at: 0) == .away)
        #expect(lock.source(.logind, says: false, at: 0) == .away)
        #expect(lock.source(.screenSaver, says: false, at: 0) == .foreground)
    }

    /// Phosh locks only through org.gnome.ScreenSaver and never sets LockedHint.
    @Test func theGnomeScreensaverIsALockerOfItsOwn() {
        var lock = ScreenLock(file: .foreground)
        _ = lock.source(.logind, says: false, at: 0)
        _ = lock.source(.screenSaver, says: nil, at: 0)
        #expect(lock.source(.gnomeScreenSaver, says: true, at: 0) == .away)
        #expect(lock.decidedBy == .gnomeScreenSaver)
        #expect(lock.source(.gnomeScreenSaver, says: false, at: 0) == .foreground)
        #expect(lock.decidedBy == nil)
    }

    /// Unlocked only when every locker that said locked says unlocked, each on its own interface.
    @Test func unlockedOnlyWhenEveryLockerThatSaidLockedSaysUnlocked() {
        var lock = ScreenLock(file: .foreground)
        _ = lock.source(.gnomeScreenSaver, says: true, at: 0)
        _ = lock.source(.logind, says: true, at: 0)
        #expect(lock.decidedBy == .logind)
        #expect(lock.source(.logind, says: false, at: 0) == .away, "the GNOME screensaver still says locked")
        #expect(lock.decidedBy == .gnomeScreenSaver)
        #expect(lock.source(.screenSaver, says: false, at: 0) == .away, "a locker that never locked cannot unlock")
        #expect(lock.source(.gnomeScreenSaver, says: false, at: 0) == .foreground)
    }

    @Test func noSourceAtAllLeavesTheFileAloneToDecide() {
        var lock = ScreenLock()
        #expect(lock.fileSays(.foreground) == .foreground)
        for source in LockSource.allCases { #expect(lock.source(source, says: nil, at: 0) == .foreground) }
        #expect(lock.locked(by: .logind) == nil)
        #expect(lock.locked(by: .logindLockSignal) == nil)
        #expect(lock.fileSays(.away) == .away)
    }

    @Test func aLockerThatGoesAwayWhileLockedNoLongerHoldsTheDisplayAway() {
        var lock = ScreenLock(file: .foreground)
        _ = lock.source(.logind, says: true, at: 0)
        #expect(lock.source(.logind, says: nil, at: 0) == .foreground)
        _ = lock.source(.gnomeScreenSaver, says: true, at: 0)
        #expect(lock.source(.gnomeScreenSaver, says: nil, at: 0) == .foreground)
    }

    /// A kiosk with no locker: `loginctl lock-session` sends a Lock request and nothing locks.
    @Test func aLockRequestNeverLocksByItself() {
        var lock = ScreenLock(file: .foreground)
        _ = lock.source(.logind, says: false, at: 0)
        _ = lock.source(.logindLockSignal, says: false, at: 0)
        #expect(lock.source(.logindLockSignal, says: true, at: second(10)) == .foreground)
        #expect(!lock.locked)
        #expect(lock.locked(by: .logindLockSignal) == false, "a request source is never locked")
        #expect(lock.decidedBy == nil)
        #expect(lock.request?.state(now: second(30)) == .unanswered)
        #expect(lock.effective == .foreground)
    }

    @Test func aRequestNoLockerConfirmsWithinTwoSecondsIsUnanswered() {
        var lock = ScreenLock(file: .foreground)
        _ = lock.source(.logindLockSignal, says: true, at: second(10))
        #expect(lock.request?.state(now: second(10)) == .waiting)
        #expect(lock.request?.state(now: second(11.999_999)) == .waiting)
        #expect(lock.request?.state(now: second(12)) == .unanswered)
        #expect(lock.requestDeadline == second(12), "the daemon republishes status at the 2 s mark")
    }

    @Test func aRequestALockerConfirmsIsAnsweredByThatLocker() {
        var lock = ScreenLock(file: .foreground)
        _ = lock.source(.logindLockSignal, says: true, at: second(10))
        #expect(lock.source(.gnomeScreenSaver, says: true, at: second(10.4)) == .away)
        #expect(lock.request?.state(now: second(20)) == .answered(by: .gnomeScreenSaver))
        #expect(lock.requestDeadline == nil, "an answered request needs no timer")
    }

    @Test func aRequestWhileAlreadyLockedIsAnsweredAtOnce() {
        var lock = ScreenLock(file: .foreground)
        _ = lock.source(.logind, says: true, at: second(1))
        _ = lock.source(.logindLockSignal, says: true, at: second(10))
        #expect(lock.request?.state(now: second(10)) == .answered(by: .logind))
    }

    /// Phosh answers `loginctl lock-session`; her PIN on its keypad unlocks it and logind sends
    /// no Unlock: the display is hers again and the request is over.
    @Test func aRequestThenAnUnlockByTheGnomeLockerWithNoLogindUnlockLetsTheFileDecide() {
        var lock = ScreenLock(file: .foreground)
        _ = lock.source(.logind, says: false, at: 0)
        _ = lock.source(.logindLockSignal, says: true, at: second(10))
        _ = lock.source(.gnomeScreenSaver, says: true, at: second(10.2))
        #expect(lock.effective == .away)
        #expect(lock.source(.gnomeScreenSaver, says: false, at: second(40)) == .foreground)
        #expect(lock.request == nil)
        #expect(lock.locked(by: .logindLockSignal) == false)
    }

    @Test func aLockerUnlockedOnHerPasswordEndsTheLockRequestItAnswered() {
        var lock = ScreenLock(file: .foreground)
        _ = lock.source(.logind, says: false, at: 0)
        _ = lock.source(.logindLockSignal, says: true, at: second(1))
        _ = lock.source(.logind, says: true, at: second(1.5))
        #expect(lock.decidedBy == .logind)
        #expect(lock.source(.logind, says: false, at: second(9)) == .foreground)
        #expect(lock.request == nil)
    }

    @Test func anUnlockRequestEndsAnUnansweredRequest() {
        var lock = ScreenLock(file: .foreground)
        _ = lock.source(.logindLockSignal, says: true, at: second(1))
        _ = lock.source(.logindLockSignal, says: false, at: second(30))
        #expect(lock.request == nil)
        #expect(lock.requestDeadline == nil)
    }

    /// A request is a signal logind keeps no state of: a session no longer followed (logind
    /// gone, a new session, a restart) forgets it, so none from before a restart can count.
    @Test func aRequestIsForgottenWithTheSessionItWasFor() {
        var lock = ScreenLock(file: .foreground)
        _ = lock.source(.logindLockSignal, says: true, at: second(1))
        _ = lock.source(.logindLockSignal, says: nil, at: second(2))
        #expect(lock.request == nil)
        #expect(lock.locked(by: .logindLockSignal) == nil)
        // A new ScreenLock (the daemon restarted) knows of no request at all.
        #expect(ScreenLock(file: .foreground).request == nil)
    }

    /// Lockers' words and file writes in every order of up to four steps: the end state depends
    /// only on each locker's last word and the file's last word, never on which arrived first.
    @Test func lockersAndFileWritesInEveryInterleavingEndInTheRightState() {
        enum Step: CaseIterable {
            case logindLock, logindUnlock, gnomeLock, gnomeUnlock, saverLock, saverUnlock, foreground, away
        }
        let steps = Step.allCases
        var checked = 0
        for length in 1...4 {
            var indices = [Int](repeating: 0, count: length)
            while true {
                let sequence = indices.map { steps[$0] }
                var lock = ScreenLock()
                var said: [LockSource: Bool] = [:]
                var file = DisplayState.away
                for (index, step) in sequence.enumerated() {
                    let at = second(Double(index))
                    switch step {
                    case .logindLock: _ = lock.source(.logind, says: true, at: at)
                    case .logindUnlock: _ = lock.source(.logind, says: false, at: at)
                    case .gnomeLock: _ = lock.source(.gnomeScreenSaver, says: true, at: at)
                    case .gnomeUnlock: _ = lock.source(.gnomeScreenSaver, says: false, at: at)
                    case .saverLock: _ = lock.source(.screenSaver, says: true, at: at)
                    case .saverUnlock: _ = lock.source(.screenSaver, says: false, at: at)
                    case .foreground: _ = lock.fileSays(.foreground)
                    case .away: _ = lock.fileSays(.away)
                    }
                    switch step {
                    case .logindLock, .logindUnlock: said[.logind] = step == .logindLock
                    case .gnomeLock, .gnomeUnlock: said[.gnomeScreenSaver] = step == .gnomeLock
                    case .saverLock, .saverUnlock: said[.screenSaver] = step == .saverLock
                    case .foreground: file = .foreground
                    case .away: file = .away
                    }
                }
                let expected: DisplayState = said.values.contains(true) ? .away : file
                #expect(lock.effective == expected, "\(sequence)")
                checked += 1
                var position = length - 1
                while position >= 0 {
                    indices[position] += 1
                    if indices[position] < steps.count { break }
                    indices[position] = 0
                    position -= 1
                }
                if position < 0 { break }
            }
        }
        #expect(checked == 8 + 64 + 512 + 4_096)
    }

    /// The same sequences with Lock and Unlock requests slipped in anywhere (up to five steps):
    /// the display is what it is without them. A request never moves the display.
    @Test func requestsInEveryInterleavingNeverMoveTheDisplay() {
        enum Step: CaseIterable { case request, unrequest, gnomeLock, gnomeUnlock, logindLock, foreground, away }
        let steps = Step.allCases
        for length in 1...5 {
            var indices = [Int](repeating: 0, count: length)
            while true {
                let sequence = indices.map { steps[$0] }
                var with = ScreenLock(file: .foreground)
                var without = ScreenLock(file: .foreground)
                for (index, step) in sequence.enumerated() {
                    let at = second(Double(index) * 0.75)
                    switch step {
                    case .request: _ = with.source(.logindLockSignal, says: true, at: at)
                    case .unrequest: _ = with.source(.logindLockSignal, says: false, at: at)
                    case .gnomeLock:
                        _ = with.source(.gnomeScreenSaver, says: true, at: at)
                        _ = without.source(.gnomeScreenSaver, says: true, at: at)
                    case .gnomeUnlock:
                        _ = with.source(.gnomeScreenSaver, says: false, at: at)
                        _ = without.source(.gnomeScreenSaver, says: false, at: at)
                    case .logindLock:
                        _ = with.source(.logind, says: true, at: at)
                        _ = without.source(.logind, says: true, at: at)
                    case .foreground:
                        _ = with.fileSays(.foreground)
                        _ = without.fileSays(.foreground)
                    case .away:
                        _ = with.fileSays(.away)
                        _ = without.fileSays(.away)
                    }
                    #expect(with.effective == without.effective, "\(sequence.prefix(index + 1))")
                    #expect(with.decidedBy == without.decidedBy, "\(sequence.prefix(index + 1))")
                }
                // What came of the last request: answered by a locker that said locked after it (or
                // already did), unanswered 2 s after it otherwise, or gone with an unlock.
                if let request = with.request, request.answeredBy == nil {
                    #expect(!with.locked, "a request stood unanswered while locked: \(sequence)")
                    #expect(request.state(now: request.at + LockRequest.answerWindow) == .unanswered)
                }
                var position = length - 1
                while position >= 0 {
                    indices[position] += 1
                    if indices[position] < steps.count { break }
                    indices[position] = 0
                    position -= 1
                }
                if position < 0 { break }
            }
        }
    }
}
