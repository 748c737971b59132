// The lock watch itself on the embedded daemon: the real LockWatch asks and follows the fake
// session's logind and screensavers (FakeSessionLock) as it does the buses. A locker that goes
// away, logind that leaves and comes back, a screensaver that starts after the daemon: each is
// one asynchronous call or signal on the virtual clock. The wire formats stay in
// ScreenLockIntegrationTests.

import DaysomeCore
import DaysomeDaemon
import DaysomeFiles
import DaysomeWorld
import SystemdKit
import Testing

@Suite("The lock watch, on the embedded daemon")
struct LockWatchTests {
    /// Rule 1 across a crash: a locker that went away while active says nothing any more, so
    /// the file, which says foreground, decides again, and nothing is laid over the day.
    @Test func aLockerThatGoesAwayWhileLockedNoLongerHoldsTheDisplayAway() throws {
        let tablet = try tablet("saver-gone", at: "2026-06-01T10:00:00Z", display: "foreground")
        defer { tablet.remove() }
        tablet.lock(.gnomeScreenSaver, true)
        #expect(try tablet.status().display == .away)
        #expect(try tablet.queue().pending.isEmpty == false)

        tablet.lock(.gnomeScreenSaver, nil)
        #expect(try tablet.status().display == .foreground)
        #expect(try tablet.queue().pending.isEmpty, "a crashed locker kept the week laid over the day")
        let source = try #require(try tablet.status().daemon?.lock.sources[.gnomeScreenSaver])
        #expect(!source.watched)
        #expect(source.detail == "the GNOME screensaver went away", "\(source)")
    }

    /// logind leaving takes its word and its session's requests with it; back, and locked, it is
    /// asked again from the user down, and its lock holds.
    @Test func logindGoneLetsTheFileDecideAndLogindBackLockedIsHeardAgain() throws {
        let tablet = try tablet("logind-back", at: "2026-06-01T10:00:00Z", display: "foreground")
        defer { tablet.remove() }
        #expect(try tablet.status().daemon?.lock.sources[.logind]?.watched == true, "logind was not asked at start")
        tablet.lock(.logind, true)
        #expect(try tablet.status().display == .away)

        tablet.lock(.logind, nil)
        #expect(try tablet.status().display == .foreground)
        #expect(try tablet.queue().pending.isEmpty)
        let gone = try #require(try tablet.status().daemon?.lock)
        #expect(gone.sources[.logind]?.watched == false)
        #expect(gone.sources[.logindLockSignal]?.watched == false)
        // A request needs logind: none comes while it is away.
        tablet.lock(.logindLockSignal, true)
        #expect(try tablet.status().daemon?.lock.request == nil)

        tablet.lock(.logind, true)
        #expect(try tablet.status().display == .away)
        #expect(try tablet.status().daemon?.lock.decidedBy == .logind)
        #expect(try tablet.queue().pending.isEmpty == false)
        #expect(tablet.logged("logind went away").count == 1, "\(tablet.log.map(\.message))")
    }

    /// A system bus that restarts drops logind's word: the file decides meanwhile, the watch
    /// tries again on a backoff timer (1 s, then longer; never a loop), and once connected asks
    /// logind from the user down, so a session locked meanwhile is away again.
    @Test func aSystemBusThatRestartsIsConnectedAgainAndALockMadeMeanwhileHolds() throws {
        let tablet = try tablet("system-bus", at: "2026-06-01T10:00:00Z", display: "foreground")
        defer { tablet.remove() }
        tablet.session.busGoes(system: true)
        tablet.loop.runPending()
        let lost = try #require(try tablet.status().daemon?.lock.sources[.logind])
        #expect(!lost.watched)
        #expect(lost.detail == "lost the system bus", "\(lost)")
        #expect(tablet.logged("Lost the connection to the system bus").count == 1)

        // Down for 4 s: the tries at 1 s and 3 s fail; the one after connects.
        tablet.lock(.logind, true)
        tablet.loop.advance(by: 4_000_000)
        #expect(try tablet.status().display == .foreground, "a lock no bus carried was heard")
        #expect(tablet.logged("Reconnected to the system bus").isEmpty)
        tablet.session.busBack(system: true)
        tablet.loop.advance(by: 3_000_000)
        #expect(tablet.logged("Reconnected to the system bus").count == 1, "\(tablet.log.map(\.message))")
        #expect(try tablet.status().display == .away)
        #expect(try tablet.status().daemon?.lock.decidedBy == .logind)
        #expect(try tablet.queue().pending.isEmpty == false)
    }

    /// A lock is what a locker says, also for a daemon that started while the system bus was
    /// away: nothing is asked on a timer meanwhile (no wakeups), and the moment the bus's socket
    /// is made the watch connects and asks logind, so a session locked meanwhile is away.
    @Test func aSystemBusThatStartsAfterTheDaemonIsFollowedTheMomentItsSocketAppears() throws {
        let tablet = try tablet("system-bus-late", at: "2026-06-01T10:00:00Z", display: "foreground", start: false)
        defer { tablet.remove() }
        tablet.session.busGoes(system: true)
        try tablet.startDaemon()
        let missing = try #require(try tablet.status().daemon?.lock.sources[.logind])
        #expect(!missing.watched)
        #expect(missing.detail?.hasPrefix("no system bus") == true, "\(missing)")

        tablet.lock(.logind, true)
        let before = tablet.loop.dispatched.count
        tablet.loop.advance(by: 60_000_000)
        #expect(try tablet.status().display == .foreground, "a lock no bus carried was heard")
        let woke = tablet.loop.dispatched.dropFirst(before)
        #expect(!woke.contains("reconnect"), "a timer tries the missing bus: \(woke)")
        tablet.session.busBack(system: true)
        tablet.loop.runPending()
        #expect(tablet.logged("the system bus appeared").count == 1, "\(tablet.log.map(\.message))")
        #expect(try tablet.status().display == .away)
        #expect(try tablet.status().daemon?.lock.decidedBy == .logind)
        #expect(try tablet.queue().pending.isEmpty == false)
        tablet.lock(.logind, false)
        #expect(try tablet.status().display == .foreground)
        #expect(try tablet.queue().pending.isEmpty)
    }

    /// She logs out and in again while locked: the new session is followed, asked, and is
    /// unlocked, so the file decides; a lock of the new session is heard, and the old session's
    /// word is gone with it.
    @Test func aNewSessionIsFollowedAndItsOwnLockDecides() throws {
        let tablet = try tablet("new-session", at: "2026-06-01T10:00:00Z", display: "foreground")
        defer { tablet.remove() }
        tablet.lock(.logind, true)
        #expect(try tablet.status().display == .away)
        let first = tablet.session.sessionPath

        tablet.session.newSession()
        tablet.loop.runPending()
        #expect(try tablet.status().display == .foreground, "the old session's lock held the display away")
        #expect(try tablet.queue().pending.isEmpty)
        let source = try #require(try tablet.status().daemon?.lock.sources[.logind])
        #expect(source.detail == "session \(tablet.session.sessionPath)" && tablet.session.sessionPath != first)

        tablet.lock(.logind, true)
        #expect(try tablet.status().display == .away)
        #expect(try tablet.status().daemon?.lock.decidedBy == .logind)
    }

    /// Phosh's or GNOME's screensaver may start after the daemon: its name's new owner is asked,
    /// and its word then holds.
    @Test func aScreenSaverThatStartsAfterTheDaemonIsAskedAndItsLockHolds() throws {
        let tablet = try tablet("saver-late", at: "2026-06-01T10:00:00Z", display: "foreground")
        defer { tablet.remove() }
        let before = try #require(try tablet.status().daemon?.lock.sources[.screenSaver])
        #expect(!before.watched)
        #expect(before.detail == "no screensaver on the session bus", "\(before)")

        tablet.lock(.screenSaver, true)
        #expect(try tablet.status().display == .away)
        #expect(try tablet.status().daemon?.lock.decidedBy == .screenSaver)
        tablet.lock(.screenSaver, false)
        #expect(try tablet.status().display == .foreground)
        #expect(try tablet.queue().pending.isEmpty)
    }
}
