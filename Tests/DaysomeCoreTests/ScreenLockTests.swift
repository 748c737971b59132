// A locked tablet is away whatever the file says; on unlock the file decides again. The lock
// and the file are combined in the pure core, so every interleaving is checked here, fast.

import DaysomeCore
import Testing

@Suite struct ScreenLockTests {
    @Test func aLockedSessionIsAwayWhateverTheFileSays() {
        var lock = ScreenLock()
        #expect(lock.fileSays(.foreground) == .foreground)
        #expect(lock.source(.logind, says: true) == .away)
        #expect(lock.fileSays(.foreground) == .away)
        #expect(lock.locked)
    }

    @Test func onUnlockTheFileDecidesAgain() {
        var lock = ScreenLock(file: .foreground)
        _ = lock.source(.logind, says: true)
        #expect(lock.source(.logind, says: false) == .foreground)
        _ = lock.source(.screenSaver, says: true)
        _ = lock.fileSays(.away)
        #expect(lock.source(.screenSaver, says: false) == .away)
    }

    @Test func anyOneSourceSayingLockedIsEnough() {
        var lock = ScreenLock(file: .foreground)
        _ = lock.source(.logind, says: false)
        #expect(lock.source(.screenSaver, says: true) == .away)
        #expect(lock.source(.logind, says: false) == .away)
        #expect(lock.source(.screenSaver, says: false) == .foreground)
    }

    @Test func noSourceAtAllLeavesTheFileAloneToDecide() {
        var lock = ScreenLock()
        #expect(lock.fileSays(.foreground) == .foreground)
        #expect(lock.source(.logind, says: nil) == .foreground)
        #expect(lock.source(.screenSaver, says: nil) == .foreground)
        #expect(lock.locked(by: .logind) == nil)
        #expect(lock.fileSays(.away) == .away)
    }

    @Test func aSourceThatGoesAwayWhileLockedNoLongerHoldsTheDisplayAway() {
        var lock = ScreenLock(file: .foreground)
        _ = lock.source(.logind, says: true)
        #expect(lock.source(.logind, says: nil) == .foreground)
    }

    @Test func aKioskLockedByLogindsLockRequestIsAwayUntilItsUnlockRequest() {
        var lock = ScreenLock(file: .foreground)
        // No locker: LockedHint stays false throughout, as on an openbox and dunst kiosk.
        _ = lock.source(.logind, says: false)
        #expect(lock.source(.logindLockSignal, says: true) == .away)
        #expect(lock.decidedBy == .logindLockSignal)
        #expect(lock.source(.logind, says: false) == .away, "a LockedHint that never turned kept the lock")
        #expect(lock.source(.logindLockSignal, says: false) == .foreground)
        #expect(lock.decidedBy == nil)
    }

    @Test func aLockerUnlockedOnHerPasswordEndsTheLockRequestItAnswered() {
        var lock = ScreenLock(file: .foreground)
        _ = lock.source(.logind, says: false)
        _ = lock.source(.logindLockSignal, says: true)
        _ = lock.source(.logind, says: true)
        #expect(lock.decidedBy == .logind)
        // The locker sets LockedHint false; logind sends no Unlock for a password.
        #expect(lock.source(.logind, says: false) == .foreground)
        #expect(lock.locked(by: .logindLockSignal) == false)
    }

    /// A lock, an unlock and a file write, in every order: the end state depends only on the
    /// last word of each, never on which arrived first.
    @Test func aLockAndAnUnlockRacingAFileWriteEndInTheRightState() {
        enum Step: CaseIterable { case lock, unlock, foreground, away }
        func apply(_ steps: [Step]) -> ScreenLock {
            var lock = ScreenLock()
            for step in steps {
                switch step {
                case .lock: _ = lock.source(.logind, says: true)
                case .unlock: _ = lock.source(.logind, says: false)
                case .foreground: _ = lock.fileSays(.foreground)
                case .away: _ = lock.fileSays(.away)
                }
            }
            return lock
        }
        for first in Step.allCases {
            for second in Step.allCases {
                for third in Step.allCases {
                    let steps = [first, second, third]
                    let lastLock = steps.last { $0 == .lock || $0 == .unlock }
                    let lastFile = steps.last { $0 == .foreground || $0 == .away }
                    let expected: DisplayState =
                        lastLock == .lock ? .away : (lastFile == .foreground ? .foreground : .away)
                    #expect(apply(steps).effective == expected, "\(steps)")
                }
            }
        }
    }
}
