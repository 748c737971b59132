// The session's lock, on the embedded daemon: a locker's word makes the display away though the
// file says foreground; a logind Lock request is never a lock; an unlock lets the file decide
// again, as it was written meanwhile. The lockers speak on the fake session's buses
// (FakeSessionLock), which the real lock watch follows; their D-Bus wire stays in
// ScreenLockIntegrationTests.

import DaysomeCore
import DaysomeDaemon
import DaysomeFiles
import DaysomeWorld
import Testing

@Suite("The session's lock, on the embedded daemon")
struct LockTests {
    @Test func aLockedSessionIsAwayThoughTheFileSaysForeground() throws {
        let tablet = try tablet("locked", at: "2026-06-01T10:00:00Z", display: "foreground")
        defer { tablet.remove() }
        #expect(try tablet.queue().pending.isEmpty, "laid over the display before any lock")

        tablet.lock(.logind, true)
        #expect(try tablet.queue().pending.isEmpty == false)
        let lock = try #require(try tablet.status().daemon?.lock)
        #expect(try tablet.status().display == .away)
        #expect(lock.locked)
        #expect(lock.fileSays == .foreground)
        #expect(lock.decidedBy == .logind)
        #expect(tablet.text(tablet.paths.displayState).hasPrefix("foreground"), "the daemon wrote the file")

        tablet.lock(.logind, false)
        #expect(try tablet.queue().pending.isEmpty)
        #expect(try tablet.status().display == .foreground)
    }

    /// A kiosk has no locker: `loginctl lock-session` only sends the session's `Lock` request and
    /// nothing locks; she still sees the day. The design changed here: a request used to make the
    /// display away by itself, and the daemon laid calls over the day she was looking at.
    @Test func aLockRequestNoLockerAnswersLocksNothingAndStatusSaysItWentUnanswered() throws {
        let tablet = try tablet("unanswered", at: "2026-06-01T10:00:00Z", display: "foreground")
        defer { tablet.remove() }
        // logind answers (unlocked), as on a kiosk: it is watched, and no locker answers a request.
        tablet.lock(.logind, false)
        tablet.lock(.logindLockSignal, true)
        #expect(try tablet.status().daemon?.lock.request?.state == .waiting)
        // The answer window is 2 s: still waiting a microsecond before it closes.
        tablet.loop.advance(by: LockRequest.answerWindow - 1)
        #expect(try tablet.status().daemon?.lock.request?.state == .waiting)
        tablet.loop.advance(by: 1)
        let request = try #require(try tablet.status().daemon?.lock.request)
        #expect(request.state == .unanswered)
        #expect(request.at == at("2026-06-01T10:00:00Z"))
        #expect(try tablet.queue().pending.isEmpty, "a request no locker answered laid calls over the day")
        #expect(try tablet.status().display == .foreground)
        let lock = try #require(try tablet.status().daemon?.lock)
        #expect(!lock.locked)
        #expect(lock.decidedBy == nil)
        #expect(lock.sources[.logindLockSignal]?.locked == false)
        let text = try tablet.statusText()
        #expect(text.contains("no locker answered: she still sees the day"), "\(text)")
        #expect(text.contains("Lockers watched: logind; the file decides"), "\(text)")

        // The file alone decides meanwhile: her leaving lays the week, her return clears it.
        try tablet.writeDisplay("away")
        #expect(try tablet.queue().pending.isEmpty == false)
        try tablet.writeDisplay("foreground")
        #expect(try tablet.queue().pending.isEmpty)
        tablet.lock(.logindLockSignal, false)
        #expect(try tablet.status().daemon?.lock.request == nil)
    }

    /// A request from before a restart never locks: neither the signal the old daemon heard nor
    /// the file an older daemon kept it in. The design changed here: such a request used to keep
    /// a kiosk away across the restart.
    @Test func aLockRequestFromBeforeARestartLocksNothing() throws {
        let tablet = try tablet("old-request", at: "2026-06-01T10:00:00Z", display: "foreground")
        defer { tablet.remove() }
        tablet.lock(.logindLockSignal, true)
        tablet.killDaemon()
        // What a 0.2.0 daemon left in its runtime directory for a standing request.
        let kept = tablet.paths.runtimeDirectory + "/lock-request"
        try FileIO.writeAtomically(kept, "/org/freedesktop/login1/session/c1\n")
        try tablet.startDaemon()
        tablet.advance(seconds: 5)
        #expect(try tablet.status().display == .foreground, "a remembered request locked")
        #expect(try tablet.queue().pending.isEmpty)
        let lock = try #require(try tablet.status().daemon?.lock)
        #expect(lock.decidedBy == nil)
        #expect(lock.request == nil)
        #expect(!FileIO.exists(kept), "the old daemon's kept request was left behind")
    }

    /// With a locker, the Lock request is answered by LockedHint; her password unlocks through
    /// the locker, which clears LockedHint and sends no Unlock: the file must decide again.
    @Test func aLockerThatUnlocksOnHerPasswordEndsTheLockRequestItAnswered() throws {
        let tablet = try tablet("password", at: "2026-06-01T10:00:00Z", display: "foreground")
        defer { tablet.remove() }
        tablet.lock(.logindLockSignal, true)
        tablet.lock(.logind, true)
        #expect(try tablet.status().daemon?.lock.request?.state == .answered)
        #expect(try tablet.status().daemon?.lock.request?.answeredBy == .logind)
        #expect(try tablet.queue().pending.isEmpty == false)
        // Her password: the locker clears LockedHint, and logind sends no Unlock.
        tablet.lock(.logind, false)
        #expect(try tablet.queue().pending.isEmpty)
        #expect(try tablet.status().display == .foreground)
        #expect(try tablet.status().daemon?.lock.request == nil)
    }

    @Test func anUnlockLetsTheFileDecideAgainAsItWasWrittenWhileLocked() throws {
        let tablet = try tablet("file-decides", at: "2026-06-01T10:00:00Z", display: "foreground")
        defer { tablet.remove() }
        // Locked, then the display says away and foreground again behind the lock, then away:
        // after the unlock the file's last word (away) stands.
        tablet.lock(.logind, true)
        #expect(try tablet.queue().pending.isEmpty == false)
        try tablet.writeDisplay("away")
        try tablet.writeDisplay("foreground")
        try tablet.writeDisplay("away")
        tablet.lock(.logind, false)
        tablet.advance(seconds: 1)
        #expect(try tablet.status().display == .away)
        #expect(try tablet.queue().pending.isEmpty == false, "an unlock cleared what the file still says is away")

        // A lock, a foreground write behind it, an unlock: the file's word stands once unlocked.
        tablet.lock(.logind, true)
        try tablet.writeDisplay("foreground")
        tablet.lock(.logind, false)
        tablet.advance(seconds: 1)
        #expect(try tablet.status().display == .foreground)
        #expect(try tablet.queue().pending.isEmpty)
    }

    /// `loginctl lock-session` on Phosh: Phosh answers on org.gnome.ScreenSaver; her PIN on its
    /// keypad unlocks it with ActiveChanged(false), and logind sends no Unlock and never moves
    /// LockedHint. The display is hers again at once: a call that falls due then is not made.
    @Test func aLockRequestThenAnUnlockOnPhoshsKeypadIsNeverACallOverTheDay() throws {
        let tablet = try tablet("phosh", at: "2026-06-01T11:59:50Z", display: "foreground")
        defer { tablet.remove() }
        tablet.lock(.logindLockSignal, true)
        tablet.lock(.gnomeScreenSaver, true)
        #expect(try tablet.queue().pending.isEmpty == false)
        let request = try #require(try tablet.status().daemon?.lock.request)
        #expect(request.state == .answered)
        #expect(request.answeredBy == .gnomeScreenSaver)

        // Her PIN on Phosh's keypad: ActiveChanged(false), and logind sends no Unlock.
        tablet.lock(.gnomeScreenSaver, false)
        #expect(try tablet.queue().pending.isEmpty)
        #expect(try tablet.status().daemon?.lock.request == nil)
        tablet.advance(to: at("2026-06-01T12:00:02Z"))
        #expect(tablet.server.notified.isEmpty, "a call went over the day")
        #expect(tablet.events(.delivered).isEmpty, "a call went over the day")
    }

    @Test func eachLockerAloneMakesTheDisplayAwayAndItsUnlockLetsTheFileDecide() throws {
        let tablet = try tablet("lockers", at: "2026-06-01T10:00:00Z", display: "foreground")
        defer { tablet.remove() }
        for source in LockSource.lockers {
            tablet.lock(source, true)
            #expect(try tablet.status().display == .away, "\(source)")
            #expect(try tablet.status().daemon?.lock.decidedBy == source)
            #expect(try tablet.queue().pending.isEmpty == false, "\(source)")
            tablet.lock(source, false)
            #expect(try tablet.status().display == .foreground, "\(source)")
            #expect(try tablet.queue().pending.isEmpty, "\(source)")
        }
    }
}
