// A daemon that could not run through a start's minute (SIGSTOP here; a starved or suspended
// process alike): the display's return and a lock 0.1 s later queue in its inotify queue and on
// its bus socket, and reach it in one burst at SIGCONT. The real daysomed, dunst and a stand-in
// org.gnome.ScreenSaver (Phosh's and GNOME Shell's locker). The burst's order is the kernel's and
// sd-event's, which no virtual clock shows; the same burst on the embedded Manager is
// EmbeddedTests' StallTests, and the machine's rule is StartsDueWhileTheDaemonCouldNotRunTests.

import DaysomeTestSupport
import Glibc
import Testing

@Suite("A daemon stopped through a start's minute", .timeLimit(.minutes(3)))
struct StallTests {
    /// The wall clock is what is under test: a start at a real minute, a real SIGSTOP across it.
    @Test func aReturnThenALockQueuedBehindASigstopStillCallsLunchDueWhileSheIsLocked() async throws {
        let session = try await TestWorld.start([.sessionBus, .notificationServer])
        let world = try LockWorld(session)
        defer {
            world.stop()
            session.stop()
        }
        _ = try await world.startScreenSaver(gnome: true)
        let minute = nextMinute(leaving: 10)
        try replaceFile(session.household, try nextMinutesHousehold(minute))
        try await session.signal("away")
        // No system bus: the stand-in screensaver alone locks.
        let daemon = try await session.startDaemon(environment: [
            "DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(session.directory.path)/no-system-bus"
        ])
        try await session.expectQueued(at: minute)

        await pause(untilWall: Double(minute) - 3)
        daemon.process.send(SIGSTOP)
        // Back at the day 1.2 s before lunch, locked 0.1 s later: lunch falls due while she is locked.
        await pause(untilWall: Double(minute) - 1.2)
        try await session.signal("foreground")
        await pause(0.1)
        try await world.setScreenSaverActive(true, gnome: true)
        await pause(untilWall: Double(minute) + 4)
        let resumed = monotonicSeconds()
        daemon.process.send(SIGCONT)

        let at = rfc3339(minute)
        let history: [HistoryEvent]
        do {
            history = try await poll("lunch to be called after SIGCONT", timeout: 5, interval: 0.05) {
                () -> [HistoryEvent]? in
                let history = try await session.history()
                return history.contains { $0.at == at && ($0.event == "delivered" || $0.event == "dropped") }
                    ? history : nil
            }
        } catch {
            throw HarnessError("\(error); history: \((try? await session.history()) ?? []); \(session.daemonStderr)")
        }
        print("[Stall] lunch decided \(Int((monotonicSeconds() - resumed) * 1_000)) ms after SIGCONT")
        #expect(
            history.filter { $0.at == at && $0.event == "delivered" }.count == 1,
            "lunch, due while she was locked, was neither posted nor named: \(history)")
        #expect(try await session.status().display?.rawValue == "away")

        // Her unlock: the file says foreground, and the call is taken away.
        try await world.setScreenSaverActive(false, gnome: true)
        _ = try await poll("lunch withdrawn at her unlock", timeout: 5, interval: 0.05) { () -> Bool? in
            try await session.history().contains { $0.at == at && $0.event == "withdrawn" } ? true : nil
        }
        #expect(try await session.pending().starts.isEmpty)
    }
}
