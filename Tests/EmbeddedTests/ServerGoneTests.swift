// A server that leaves with a call's card and does not come back: the call waits for the
// desktop's own server (the notifier says so at once, within the post, as the real one does), and
// is ended at its end like any other, never left half-posted.

import DaysomeCore
import DaysomeDaemon
import Testing

@Suite("A server gone with a call's card, on the embedded daemon")
struct ServerGoneTests {
    @Test func aCallWhoseServerLeftWithItsCardIsEndedAtItsEndWhenNoServerComesBack() throws {
        let tablet = try tablet("server-gone", at: "2026-06-01T11:59:00Z")
        defer { tablet.remove() }
        tablet.advance(to: at("2026-06-01T12:00:10Z"))
        #expect(tablet.shown == ["Lunch"])
        tablet.server.stop()
        tablet.advance(seconds: 0)
        // No server for the rest of lunch, and past its end.
        tablet.advance(to: at("2026-06-01T13:00:00Z"))
        let history = tablet.history().filter { $0.at == at("2026-06-01T12:00:00Z") }.map {
            "\($0.time.rfc3339) \($0.event.rawValue): \($0.reason ?? "")"
        }
        #expect(history.count == 2 && history.last?.hasPrefix("2026-06-01T12:45:00Z withdrawn") == true, "\(history)")
        let status = try tablet.status()
        #expect(status.notificationServer.waiting == nil, "still waiting: \(status.notificationServer)")
        // A server that comes back an hour later shows nothing stale.
        tablet.server.start()
        tablet.advance(seconds: 1)
        #expect(tablet.server.cards.isEmpty, "\(tablet.server.cards)")
    }
}
