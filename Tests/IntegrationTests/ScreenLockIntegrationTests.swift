// A locked tablet is away, without the app's help: the real daysomed against a stand-in logind
// on a private system bus and a stand-in screensaver on the session bus. The file says
// `foreground` throughout unless a test says otherwise; only the lock decides.

import DaysomeCore
import DaysomeTestSupport
import Glibc
import Testing

/// One world at a time: each holds Xvfb, dunst and more, and a user has only 128 inotify
/// instances, shared with the other suites running meanwhile.
@Suite("daysomed follows the session's lock", .serialized, .timeLimit(.minutes(4)))
struct ScreenLockIntegrationTests {
    /// A session, its lock world, a far-away household (or `household`), and the daemon with the
    /// file saying foreground; `before` runs before the daemon starts (lockers it must ask).
    func start(
        logind: Bool = true, systemBus: Bool = true, household: String? = nil,
        before: (LockWorld) async throws -> Void = { _ in }
    ) async throws -> (TestWorld, LockWorld) {
        let session = try await TestWorld.start([.sessionBus, .notificationServer])
        let world = try LockWorld(session)
        do {
            if systemBus { try await world.startSystemBus(logind: logind) }
            try await before(world)
            try replaceFile(session.household, try household ?? farAwayHousehold())
            try await session.signal("foreground")
            let environment =
                systemBus
                ? world.daemonEnvironment
                : ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(session.directory.path)/\(LockWorld.systemBusName)"]
            try await session.startDaemon(environment: environment)
        } catch {
            world.stop()
            session.stop()
            throw error
        }
        return (session, world)
    }

    func lock(_ session: TestWorld) async throws -> StatusSnapshot.Lock {
        try #require(try await session.status().daemon?.lock, "status has no lock object")
    }

    func source(_ session: TestWorld, _ name: LockSource) async throws -> StatusSnapshot.Lock.Source? {
        try await self.lock(session).sources[name]
    }

    /// Waits until `source` is watched: its first answer reached the daemon.
    func watched(_ session: TestWorld, _ name: LockSource) async throws {
        _ = try await poll("\(name) to be watched", timeout: 10) { () -> Bool? in
            try await self.source(session, name)?.watched == true ? true : nil
        }
    }

    /// Seconds until `pending` is non-empty and the display away (laid), or empty and the display
    /// foreground (cleared), measured from now; fails after `limit`.
    func seconds(until laid: Bool, _ session: TestWorld, limit: Double) async throws -> Double {
        let start = monotonicSeconds()
        _ = try await poll(laid ? "the week to be laid" : "nothing to be pending", timeout: limit, interval: 0.02) {
            () -> Bool? in
            guard try await session.pending().starts.isEmpty != laid else { return nil }
            // The queue is published just before the status: wait for the status to agree too.
            return try await session.status().display?.rawValue == (laid ? "away" : "foreground") ? true : nil
        }
        return monotonicSeconds() - start
    }

    /// Each way a tablet is locked, in turn on one daemon and its lockers, the file saying
    /// foreground throughout: logind's LockedHint; a Lock request its locker answered, ended by her
    /// password; a screen blanked but not locked (nothing); the fd.o screensaver started after the
    /// daemon; an unlock while the daemon was stopped; a new graphical session; and the system bus
    /// restarted under it. Each phase prints what it measured before it is judged.
    // real-process twin of EmbeddedTests.LockTests.aLockedSessionIsAwayThoughTheFileSaysForeground
    // real-process twin of EmbeddedTests.LockTests.aLockerThatUnlocksOnHerPasswordEndsTheLockRequestItAnswered
    // real-process twin of EmbeddedTests.RestartTests.anUnlockWhileTheDaemonWasStoppedLetsTheFileDecideAfterTheRestart
    @Test func aLockedSessionIsAwayWithinASecondThoughTheFileSaysForegroundWhicheverLockerSaysSo() async throws {
        let (session, world) = try await start()
        defer {
            world.stop()
            session.stop()
        }
        // logind's LockedHint: away within a second, the file untouched; unlocked: the file decides.
        try await self.watched(session, .logind)
        #expect(try await session.pending().starts.isEmpty, "laid over the display before any lock")
        try await world.setLocked(true)
        let laid = try await self.seconds(until: true, session, limit: 1)
        print("[ScreenLock] locked (logind LockedHint): laid \(Int(laid * 1_000)) ms later")
        #expect(try await session.status().display?.rawValue == "away")
        #expect(try await self.lock(session).locked == true)
        #expect(try await self.lock(session).fileSays == .foreground)
        #expect(readFile(session.displayState).hasPrefix("foreground"), "the daemon must not write the file")
        try await world.setLocked(false)
        let cleared = try await self.seconds(until: false, session, limit: 1)
        print("[ScreenLock] unlocked: nothing pending \(Int(cleared * 1_000)) ms later")

        // A Lock request its locker answered; her password unlocks the locker: status's lock line
        // must not go on saying the request stands (the detail follows the lock).
        try await self.watched(session, .logindLockSignal)
        try await world.logind("/org/freedesktop/login1/session/c1", "org.freedesktop.login1.Session.Lock", [])
        try await world.setLocked(true)
        _ = try await self.seconds(until: true, session, limit: 1)
        let requested = try await session.ctl(["status"] + session.daemonPaths).stdout
        // The request and the locker that answered it (the design's rule: a request is not a lock).
        #expect(requested.contains("Lock request: lock requested at "), "\(requested)")
        try await world.setLocked(false)
        _ = try await self.seconds(until: false, session, limit: 1)
        let signal = try #require(try await self.source(session, .logindLockSignal))
        #expect(signal.locked == false, "\(signal)")
        #expect(!(signal.detail ?? "").hasPrefix("Lock requested"), "the Lock request still stands: \(signal)")
        let text = try await session.ctl(["status"] + session.daemonPaths).stdout
        let line = text.split(separator: "\n").first { $0.hasPrefix("Lock: ") } ?? ""
        print("[ScreenLock] after the locker unlocked: \(line)")
        #expect(line.hasPrefix("Lock: unlocked;"), "\(text)")
        #expect(!line.contains("Lock requested"), "\(line)")
        #expect(!text.contains("Lock request: "), "the answered request outlived the unlock: \(text)")

        // A screen blanked but not locked changes nothing.
        try await world.logind(
            "/org/freedesktop/login1/session/c1", "org.freedesktop.login1.Session.SetIdleHint", ["true"])
        await pause(1.5)
        #expect(try await session.pending().starts.isEmpty, "a blanked screen laid calls over the display")
        #expect(try await session.status().display?.rawValue == "foreground")
        try await world.logind(
            "/org/freedesktop/login1/session/c1", "org.freedesktop.login1.Session.SetIdleHint", ["false"])

        // The fd.o screensaver, started after the daemon asked GetActive: its signal still counts.
        try await world.startScreenSaver()
        try await world.setScreenSaverActive(true)
        let saver = try await self.seconds(until: true, session, limit: 1)
        print("[ScreenLock] screensaver ActiveChanged(true): laid \(Int(saver * 1_000)) ms later")
        #expect(try await self.source(session, .screenSaver)?.locked == true)
        try await world.setScreenSaverActive(false)
        _ = try await self.seconds(until: false, session, limit: 1)

        // The locker unlocked while no daemon ran (her password: LockedHint false, no Unlock): the
        // restarted daemon asks the locker before its first decision, and the file decides.
        try await world.requestLock(true)
        try await world.setLocked(true)
        _ = try await self.seconds(until: true, session, limit: 1)
        try await session.killDaemon()
        try await world.setLocked(false)
        try await session.waitUntilRunning(try session.restartDaemon())
        #expect(try await session.status().display?.rawValue == "foreground", "still locked after the restart")
        #expect(try await session.pending().starts.isEmpty, "calls laid over the day after the restart")
        #expect(try await self.lock(session).decidedBy == nil, "the file decides")

        // A new graphical session is followed: the old one's lock no longer counts.
        try await self.watched(session, .logind)
        try await world.logind("/org/freedesktop/login1/user/_\(getuid())", "org.example.StandIn.SetDisplay", ["c2"])
        _ = try await poll("the daemon to follow session c2", timeout: 5) { () -> Bool? in
            try await self.source(session, .logind)?.detail?.hasSuffix("/c2") == true ? true : nil
        }
        try await world.setLocked(true, session: "c1")
        await pause(1)
        #expect(try await session.pending().starts.isEmpty, "the old session's lock still counted")
        try await world.setLocked(true, session: "c2")
        _ = try await self.seconds(until: true, session, limit: 1)

        // The system bus restarting drops logind's word (the file decides meanwhile); the daemon
        // reconnects on its backoff and follows the lock again, saying the loss once.
        world.stopSystemBus()
        _ = try await self.seconds(until: false, session, limit: 2)
        await pause(3)
        try await world.startSystemBus()
        _ = try await poll("the daemon to follow logind again", timeout: 15) { () -> Bool? in
            try await self.source(session, .logind)?.watched == true ? true : nil
        }
        try await world.setLocked(true)
        _ = try await self.seconds(until: true, session, limit: 1)
        let lost = session.daemonStderr.split(separator: "\n").filter {
            $0.contains("Lost the connection to the system bus")
        }
        #expect(lost.count == 1, "\(session.daemonStderr)")
    }

    /// Probing never starts a server (no D-Bus auto-start): asking the screensaver whether it is
    /// active must not start one that the bus could activate.
    @Test func askingTheScreensaverNeverStartsOne() async throws {
        let session = try await TestWorld.start([.sessionBus, .notificationServer])
        let world = try LockWorld(session)
        defer {
            world.stop()
            session.stop()
        }
        let marker = "\(session.directory.path)/screensaver-was-started"
        let address = try await world.startActivatingSessionBus(marker: marker)
        try await world.startSystemBus()
        try replaceFile(session.household, try farAwayHousehold())
        try await session.signal("foreground")
        try await session.startDaemon(
            notifier: "log", environment: world.daemonEnvironment.merging(["DBUS_SESSION_BUS_ADDRESS": address]) { $1 })
        var detail: String?
        do {
            _ = try await poll("status to say there is no screensaver", timeout: 10) { () -> Bool? in
                detail = try await self.source(session, .screenSaver)?.detail
                return detail == "no screensaver on the session bus" ? true : nil
            }
        } catch {
            Issue.record("status says \(detail ?? "nothing") for the screensaver: \(session.daemonStderr)")
            throw error
        }
        await pause(0.5)
        #expect(access(marker, F_OK) != 0, "the daemon's GetActive started the screensaver")
        // The bus would have started it: a plain call does.
        _ = try await world.getActiveAutoStarting(address)
        _ = try await poll("a plain call to auto-start the screensaver", timeout: 5) { () -> Bool? in
            access(marker, F_OK) == 0 ? true : nil
        }
    }

    /// With no system bus the file decides, and the daemon says why once; a system bus that comes
    /// later (its socket made where the daemon's address names it) is followed at once, and its
    /// lock heard. Then Phosh's lockers, asked by the next daemon at its start: Phosh locks only
    /// through org.gnome.ScreenSaver (no LockedHint), and gsd's proxy answers NotSupported for
    /// org.freedesktop.ScreenSaver, so the GNOME screensaver is followed on its own. Last, with a
    /// system bus that has no logind, the file alone decides.
    @Test
    func withNoSystemBusTheFileDecidesUntilOneComesPhoshsGnomeScreensaverAloneLocksAndWithoutLogindTheFileAloneDecides()
        async throws
    {
        let (session, world) = try await start(systemBus: false)
        defer {
            world.stop()
            session.stop()
        }
        _ = try await poll("status to say why logind is not watched", timeout: 5) { () -> String? in
            try await self.source(session, .logind)?.detail.flatMap {
                $0.hasPrefix("no system bus") ? $0 : nil
            }
        }
        #expect(try await self.source(session, .logind)?.watched == false)
        #expect(try await session.pending().starts.isEmpty)
        try await session.signal("away")
        _ = try await self.seconds(until: true, session, limit: 1)
        try await session.signal("foreground")
        _ = try await self.seconds(until: false, session, limit: 1)
        await pause(1)
        let said = session.daemonStderr.split(separator: "\n").filter { $0.contains("Screen lock: no system bus") }
        #expect(said.count == 1, "said \(said.count) times: \(session.daemonStderr)")
        #expect(try await session.status().running == true)

        // The system bus comes (dbus started after the daemon): its socket appearing is heard, and
        // logind's lock lays the week over the file's foreground.
        try await world.startSystemBus()
        _ = try await poll("the daemon to follow logind on the bus that came", timeout: 10) { () -> Bool? in
            try await self.source(session, .logind)?.watched == true ? true : nil
        }
        try await world.setLocked(true)
        _ = try await self.seconds(until: true, session, limit: 1)
        try await world.setLocked(false)
        _ = try await self.seconds(until: false, session, limit: 1)

        // Phosh's lockers, started before the next daemon: it asks both at its start.
        try await session.killDaemon()
        let proxy = try await world.startScreenSaver(notSupported: true)
        let gnome = try await world.startScreenSaver(gnome: true)
        try await session.startDaemon(environment: world.daemonEnvironment)
        try await self.watched(session, .gnomeScreenSaver)
        let answer = try #require(try await self.source(session, .screenSaver))
        #expect(answer.watched == false)
        #expect(answer.detail?.contains("NotSupported") == true, "\(answer)")
        #expect(try await session.pending().starts.isEmpty)
        try await world.setScreenSaverActive(true, gnome: true)
        let gnomeLaid = try await self.seconds(until: true, session, limit: 1)
        print("[ScreenLock] org.gnome.ScreenSaver ActiveChanged(true): laid \(Int(gnomeLaid * 1_000)) ms later")
        #expect(try await self.lock(session).decidedBy == .gnomeScreenSaver)
        #expect(try await self.source(session, .logind)?.locked == false, "LockedHint was set")
        let lockers = try await session.ctl(["status"] + session.daemonPaths)
        #expect(
            lockers.stdout.contains("Lockers watched: logind, gnomeScreenSaver; decided by gnomeScreenSaver"),
            "\(lockers.stdout)")
        try await world.setScreenSaverActive(false, gnome: true)
        let gnomeCleared = try await self.seconds(until: false, session, limit: 1)
        print(
            "[ScreenLock] org.gnome.ScreenSaver ActiveChanged(false): nothing pending \(Int(gnomeCleared * 1_000)) ms "
                + "later")
        gnome.stop()
        proxy.stop()

        // A system bus without logind, for the next daemon.
        try await session.killDaemon()
        world.stopSystemBus()
        try await world.startSystemBus(logind: false)
        try await session.startDaemon(environment: world.daemonEnvironment)
        _ = try await poll("status to say logind has no user", timeout: 5) { () -> Bool? in
            try await self.source(session, .logind)?.detail?.hasPrefix("logind has no user")
                == true ? true : nil
        }
        try await session.signal("away")
        _ = try await self.seconds(until: true, session, limit: 1)
        try await session.signal("foreground")
        _ = try await self.seconds(until: false, session, limit: 1)
    }
}
