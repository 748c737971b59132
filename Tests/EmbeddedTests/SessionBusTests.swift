// The session bus restarting (`systemctl --user restart dbus`), on the embedded daemon: the
// notification server goes with it and its cards, and the daemon's connection drops. Calls due
// meanwhile wait, and the daemon reconnects on its backoff (1 s, doubling to 5 s), hears a new
// bus (every server instance on the old one gone) and posts what is still due, once. The real
// bus's restart stays in the fault storm and `theSeedsLayIs…ARealStartAtTheNextMinute…` (SystemdIntegrationTests).

import DaysomeCore
import DaysomeDaemon
import DaysomeFiles
import Testing

@Suite("The session bus restarting, on the embedded daemon")
struct SessionBusTests {
    /// Lunch is on screen when the bus goes: it went with the server, and once the bus and the
    /// desktop's server are back the daemon shows it again, once, and her return takes it down.
    @Test func lunchOnScreenWhenTheSessionBusRestartsIsShownOnceOnTheNewServerAndHerReturnTakesItDown() throws {
        let tablet = try tablet("session-bus-wiped", at: "2026-06-01T11:59:00Z")
        defer { tablet.remove() }
        tablet.advance(to: at("2026-06-01T12:00:10Z"))
        #expect(tablet.shown == ["Lunch"])
        tablet.sessionBus(up: false)
        tablet.advance(seconds: 3)
        #expect(tablet.shown.isEmpty)
        #expect(try tablet.status().notificationServer.present == false, "a server is said to answer on no bus")
        // The notifier's connection, and the lock watch's own to the screensavers.
        #expect(tablet.logged("Lost the connection to the session bus; reconnecting").count == 1)
        #expect(tablet.logged("Lost the connection to the session bus (screen lock)").count == 1)

        tablet.sessionBus(up: true)
        tablet.advance(seconds: 6)
        let reconnected = tablet.logged("Reconnected to the session bus")
        #expect(
            reconnected.count == 2 && reconnected.filter { $0.hasSuffix("(screen lock)") }.count == 1, "\(reconnected)")
        #expect(tablet.shown == ["Lunch"], "lunch was not shown again on the new server: \(tablet.log.map(\.message))")
        #expect(tablet.server.notified.count == 2, "\(tablet.server.notified)")
        tablet.advance(seconds: 30)
        #expect(tablet.server.notified.count == 2, "shown a third time: \(tablet.server.notified)")
        try tablet.writeDisplay("foreground")
        tablet.advance(seconds: 1)
        #expect(tablet.shown.isEmpty, "a card stayed over the day: \(tablet.server.cards)")
        #expect(tablet.exitCode == nil)
    }

    /// Lunch falls due while the bus is down: it waits (never silent), and is posted once the
    /// daemon is connected again, within its window; delivered once (never twice).
    @Test func aCallDueWhileTheSessionBusIsDownIsPostedOnceTheDaemonIsConnectedAgain() throws {
        let tablet = try tablet("session-bus-due", at: "2026-06-01T11:59:00Z")
        defer { tablet.remove() }
        tablet.advance(to: at("2026-06-01T11:59:50Z"))
        tablet.sessionBus(up: false)
        tablet.advance(to: at("2026-06-01T12:00:40Z"))
        #expect(tablet.server.notified.isEmpty)
        #expect(tablet.events(.delivered).isEmpty, "\(tablet.history())")

        tablet.sessionBus(up: true)
        tablet.advance(seconds: 20)
        #expect(tablet.shown == ["Lunch"], "\(tablet.log.map(\.message))")
        #expect(tablet.server.notified.count == 1, "\(tablet.server.notified)")
        #expect(tablet.events(.delivered).count == 1, "\(tablet.history())")
        tablet.advance(seconds: 60)
        #expect(tablet.server.notified.count == 1, "posted twice: \(tablet.server.notified)")
    }

    /// The daemon cannot start without its session bus (it exits, and its service manager starts
    /// it again): started once the bus is back, it lays and calls as ever.
    @Test func aDaemonStartedAfterTheSessionBusCameBackCallsAsEver() throws {
        let tablet = try tablet("session-bus-start", at: "2026-06-01T11:58:00Z", start: false)
        defer { tablet.remove() }
        tablet.sessionBus(up: false)
        #expect(throws: (any Error).self) { try tablet.startDaemon() }
        tablet.sessionBus(up: true)
        try tablet.startDaemon()
        tablet.advance(to: at("2026-06-01T12:00:05Z"))
        #expect(tablet.shown == ["Lunch"])
    }
}
