// A daemon whose loop did not run through a start's minute (SIGSTOP, a starved process): what
// queued meanwhile is dispatched in one burst at `resume`, by priority, as sd-event does at
// SIGCONT. The real Manager and its loop sources; DaemonMachine+CaughtUp.swift decides. The real
// SIGSTOP twin is IntegrationTests' StallTests.

import DaysomeCore
import DaysomeDaemon
import Testing

@Suite("A stalled daemon, on the embedded tablet")
struct StallTests {
    @Test func aReturnThenALockReadInOneBurstAfterAStallCallsLunchDueWhileShesLocked() throws {
        let tablet = try tablet("stall-lock", at: "2026-06-01T11:50:00Z")
        defer { tablet.remove() }
        tablet.lock(.gnomeScreenSaver, false)
        tablet.advance(to: at("2026-06-01T11:59:00Z"))
        tablet.loop.stall()
        // Back at the day at 11:59:59.9, then locked 0.1 s later; lunch falls due while locked.
        tablet.loop.advance(by: 59_900_000)
        try tablet.writeDisplay("foreground")
        tablet.loop.advance(by: 100_000)
        tablet.lock(.gnomeScreenSaver, true)
        tablet.advance(to: at("2026-06-01T12:01:00Z"))
        #expect(tablet.server.cards.isEmpty, "nothing runs while stalled")
        tablet.loop.resume()
        #expect(tablet.shown == ["Lunch"], "lunch was neither posted nor named before the fix")
        #expect(tablet.events(.delivered).map(\.at) == [at("2026-06-01T12:00:00Z")])
        // Her unlock: the file decides again, and the call is taken away.
        tablet.lock(.gnomeScreenSaver, false)
        #expect(tablet.shown.isEmpty)
        #expect(tablet.events(.withdrawn).map(\.at) == [at("2026-06-01T12:00:00Z")])
    }

    @Test func lunchDueWhileStalledAndReadWithHerReturnIsNamedInHistoryNeverShown() throws {
        let tablet = try tablet("stall-return", at: "2026-06-01T11:50:00Z")
        defer { tablet.remove() }
        tablet.advance(to: at("2026-06-01T11:59:00Z"))
        tablet.loop.stall()
        // Away through lunch's minute, back at 12:00:30, read when the loop runs at 12:01.
        tablet.advance(to: at("2026-06-01T12:00:30Z"))
        try tablet.writeDisplay("foreground")
        tablet.advance(to: at("2026-06-01T12:01:00Z"))
        tablet.loop.resume()
        #expect(tablet.server.notified.isEmpty, "never over the day")
        let dropped = tablet.events(.dropped)
        #expect(dropped.map(\.at) == [at("2026-06-01T12:00:00Z")], "lunch was given up without a word")
        #expect(dropped.first?.reason?.contains("after this start's minute") == true)
        #expect(try tablet.queue().pending.isEmpty)
    }
}
