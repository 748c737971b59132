// A call with no server to take it, on the embedded daemon: it waits unseen, status says why
// until a server took it, it is posted the moment one appears, and within rule 2's grace window
// only; beyond it, it is dropped with the reason, never delivered. Why no server can be started
// (no display in the session) and that the bus never starts one are the real Notifier's, on a
// real bus: ServerActivationTests.

import DaysomeCore
import DaysomeDaemon
import DaysomeWorld
import Testing

@Suite("A call waiting for a server, on the embedded daemon")
struct ServerWaitTests {
    @Test func aCallDueWithNoServerWaitsUnseenAndIsPostedTheMomentAServerAppears() throws {
        let tablet = try tablet("no-server", at: "2026-06-01T11:59:50Z")
        defer { tablet.remove() }
        tablet.server.stop()
        tablet.advance(to: at("2026-06-01T12:00:03Z"))
        #expect(tablet.events(.delivered).isEmpty, "delivered with no server: \(tablet.history())")
        let waiting = try #require(try tablet.status().notificationServer.waiting)
        #expect(waiting.contains("waiting for a server"), "\(waiting)")

        tablet.server.start()
        tablet.advance(seconds: 0)
        #expect(tablet.shown == ["Lunch"], "not posted the moment a server appeared")
        #expect(tablet.events(.delivered).map(\.at) == [at("2026-06-01T12:00:00Z")])
        #expect(try tablet.status().notificationServer.waiting == nil)
    }

    @Test func whyACallWaitsStaysInStatusUntilTheServerThatAppearedTookIt() throws {
        let tablet = try tablet("why-waits", at: "2026-06-01T11:59:50Z")
        defer { tablet.remove() }
        tablet.server.stop()
        tablet.advance(to: at("2026-06-01T12:00:03Z"))
        let reason = try #require(try tablet.status().notificationServer.waiting)

        // A server appears, answers the daemon's probe, and holds its answer to Notify.
        tablet.server.holdNotifies()
        tablet.server.start()
        tablet.advance(seconds: 1)
        let probed = try tablet.status().notificationServer
        #expect(probed.present && probed.name == FakeNotificationServer.name, "\(probed)")
        #expect(tablet.events(.delivered).isEmpty, "taken before status was read: the test proves nothing")
        #expect(probed.waiting == reason, "probed, not yet taken: \(probed)")

        tablet.server.wake()
        tablet.advance(seconds: 1)
        #expect(tablet.events(.delivered).map(\.at) == [at("2026-06-01T12:00:00Z")])
        let taken = try tablet.status().notificationServer
        #expect(taken.waiting == nil, "the call was taken, and status still says it waits: \(taken)")
    }

    @Test func aCallNoServerTookWithinTheGraceWindowIsDroppedWithTheReasonNeverDelivered() throws {
        let tablet = try tablet("grace-no-server", at: "2026-06-01T11:59:50Z", arguments: ["--grace", "4"])
        defer { tablet.remove() }
        tablet.server.stop()
        tablet.advance(to: at("2026-06-01T12:00:02Z"))
        let waiting = try #require(try tablet.status().notificationServer.waiting)
        #expect(tablet.events(.dropped).isEmpty, "dropped inside the grace window")
        tablet.advance(to: at("2026-06-01T12:00:10Z"))
        let dropped = tablet.events(.dropped).filter { $0.at == at("2026-06-01T12:00:00Z") }
        #expect(dropped.count == 1, "\(tablet.history())")
        #expect(dropped.first?.reason?.contains(waiting) == true, "\(dropped)")
        #expect(tablet.events(.delivered).isEmpty, "\(tablet.history())")
        // Nothing waits any more: status no longer says why calls wait.
        let server = try tablet.status().notificationServer
        #expect(server.waiting == nil, "the call was dropped, and status still says it waits: \(server)")
        // A server that appears now is not sent the dropped call.
        tablet.server.start()
        tablet.advance(seconds: 1)
        #expect(tablet.server.notified.isEmpty)
    }

    @Test func statusTextSaysACallWaitsForAServerAndWhyUntilNoneWaits() throws {
        let tablet = try tablet("waits-text", at: "2026-06-01T11:59:50Z", arguments: ["--grace", "4"])
        defer { tablet.remove() }
        tablet.server.stop()
        tablet.advance(to: at("2026-06-01T12:00:01Z"))
        let text = try tablet.statusText()
        let line = text.split(separator: "\n").first { $0.contains("A call waits for a server: ") } ?? ""
        // The same reason as --json's notificationServer.waiting.
        let waiting = try tablet.status().notificationServer.waiting ?? "-"
        #expect(!line.isEmpty && line.hasSuffix(waiting), "\(line) / \(waiting)")
        tablet.advance(to: at("2026-06-01T12:00:10Z"))
        #expect(!tablet.events(.dropped).isEmpty)
        let after = try tablet.statusText()
        #expect(!after.contains("A call waits"), "nothing waits, and status still says a call does: \(after)")
    }

    /// Why a call waits names the environment that had no display: the user manager's where it
    /// answered, the daemon's own where no manager did, never the manager's then.
    @Test func whyACallWaitsNamesTheEnvironmentThatWasReadForADisplay() throws {
        for answers in [true, false] {
            let tablet = try tablet("no-display-\(answers)", at: "2026-06-01T11:59:50Z")
            defer { tablet.remove() }
            tablet.server.userManagerAnswers = answers
            tablet.server.stop()
            tablet.advance(to: at("2026-06-01T12:00:03Z"))
            let waiting = try #require(try tablet.status().notificationServer.waiting)
            let whose = answers ? PostRoute.DisplayWitness.userManager : .daemonsOwnEnvironment
            #expect(waiting == PostRoute.noDisplayReason(whose), "\(waiting)")
            #expect(waiting.contains("user manager's environment") == answers, "\(waiting)")
            let line = try tablet.statusText().split(separator: "\n").first { $0.contains("A call waits") } ?? ""
            #expect(
                line.hasSuffix(
                    answers
                        ? "in the user manager's environment): waiting for a server"
                        : "in the daemon's own environment; no user manager answered): waiting for a server"), "\(line)"
            )
        }
    }
}
