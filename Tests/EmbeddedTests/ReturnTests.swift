// Her return, on the embedded daemon: no catch-up for a start she was in front for (rule 3), and
// a call shown before a return made while no daemon ran is taken back by the next one (rule 1).

import DaysomeCore
import DaysomeDaemon
import Testing

@Suite("Her return, on the embedded daemon")
struct ReturnTests {
    /// A meal at 12:00 and a drink at 12:01, as the real tests' next two minutes.
    static let twoMinutes = household([
        Item(id: "first", label: "Soup time", time: "12:00"),
        Item(id: "second", label: "A drink", time: "12:01", kind: "drink"),
    ])

    @Test func noCatchUpAfterAReturn() throws {
        let tablet = try tablet("no-catch-up", at: "2026-06-01T11:59:50Z", household: Self.twoMinutes)
        defer { tablet.remove() }
        #expect(try tablet.queue().pending.first?.at == at("2026-06-01T12:00:00Z"))
        // In the foreground across the minute: the display chimed for it.
        try tablet.writeDisplay("foreground")
        #expect(try tablet.queue().pending.isEmpty)
        tablet.advance(to: at("2026-06-01T12:00:01Z"))
        try tablet.writeDisplay("away")
        let queue = try tablet.queue()
        #expect(queue.display == .away)
        #expect(queue.pending.allSatisfy { $0.at > at("2026-06-01T12:00:00Z") }, "\(queue.pending)")
        #expect(queue.pending.first?.at == at("2026-06-01T12:01:00Z"), "\(queue.pending)")
        tablet.advance(seconds: 2)
        #expect(tablet.server.notified.isEmpty)
        // Silence after a return: no bell for the start she was in front for.
        #expect(tablet.bells == 0)
        #expect(tablet.events(.delivered).isEmpty, "\(tablet.history())")
        #expect(tablet.events(.cleared).count == 1, "\(tablet.history())")
    }

    @Test func aReturnAndALeavingWhileTheDaemonWasDownWithdrawWhatItShowed() throws {
        let tablet = try tablet("down-back-away", at: "2026-06-01T11:59:50Z", household: Self.twoMinutes)
        defer { tablet.remove() }
        tablet.advance(to: at("2026-06-01T12:00:05Z"))
        #expect(tablet.shown == ["Soup time"])
        tablet.killDaemon()
        // She comes back and leaves again while no daemon runs; the call must not outlive the return.
        try tablet.writeDisplay("foreground")
        tablet.advance(seconds: 1)
        try tablet.writeDisplay("away")
        tablet.advance(seconds: 1)
        try tablet.startDaemon()
        tablet.advance(seconds: 1)
        #expect(tablet.shown.isEmpty, "the call shown before the return stayed: \(tablet.server.cards)")
        #expect(tablet.events(.withdrawn).map(\.at) == [at("2026-06-01T12:00:00Z")], "\(tablet.history())")
        let queue = try tablet.queue()
        #expect(queue.display == .away)
        #expect(queue.pending.first?.at == at("2026-06-01T12:01:00Z"), "\(queue.pending)")
    }
    /// Her return written while the daemon's inotify queue is full: the kernel drops the named
    /// event and queues a nameless overflow in its place. The display file is read again on it,
    /// and the call shown over the day is taken away at once, not at the next start.
    @Test func herReturnLostInAnInotifyOverflowStillWithdrawsTheCallAtOnce() throws {
        let tablet = try tablet("overflow-return", at: "2026-06-01T11:59:50Z", household: Self.twoMinutes)
        defer { tablet.remove() }
        tablet.advance(to: at("2026-06-01T12:00:05Z"))
        #expect(tablet.shown == ["Soup time"])
        try tablet.writeDisplayLostInOverflow("foreground")
        #expect(tablet.shown.isEmpty, "the call stayed over the day after her return: \(tablet.server.cards)")
        let queue = try tablet.queue()
        #expect(queue.display == .foreground)
        #expect(queue.pending.isEmpty, "\(queue.pending.count) starts pending")
        #expect(tablet.events(.withdrawn).map(\.at) == [at("2026-06-01T12:00:00Z")], "\(tablet.history())")
    }

    /// Her return lands while the call's post is out (the server has not answered yet): whatever
    /// the server then shows, nothing stays on screen, and history says delivered only with withdrawn.
    @Test func aReturnWhileTheCallsPostIsOutLeavesNothingShown() throws {
        let tablet = try tablet("post-out", at: "2026-06-01T11:59:50Z", household: Self.twoMinutes)
        defer { tablet.remove() }
        tablet.server.holdNotifies()
        tablet.advance(to: at("2026-06-01T12:00:00Z"))
        try tablet.writeDisplay("foreground")
        tablet.server.wake()
        tablet.advance(seconds: 2)
        #expect(tablet.server.notified.count == 1, "the post was not out at the return: the test proves nothing")
        #expect(tablet.shown.isEmpty, "\(tablet.server.cards)")
        let history = tablet.history().filter { $0.at == at("2026-06-01T12:00:00Z") }
        let delivered = history.contains { $0.event == .delivered }
        let withdrawn = history.contains { $0.event == .withdrawn }
        #expect(delivered == withdrawn, "a call delivered at the return must be withdrawn: \(history)")
        #expect(try tablet.queue().pending.isEmpty)
    }

    /// Her return lands in the very second of the call, before the fire: nothing is posted.
    @Test func aReturnInTheCallsOwnSecondBeforeItsFireSendsNothing() throws {
        let tablet = try tablet("same-second", at: "2026-06-01T11:59:50Z", household: Self.twoMinutes)
        defer { tablet.remove() }
        tablet.advance(to: at("2026-06-01T11:59:59Z"))
        tablet.loop.advance(by: 999_999)
        try tablet.writeDisplay("foreground")
        tablet.advance(seconds: 2)
        #expect(tablet.server.notified.isEmpty, "\(tablet.server.notified)")
        #expect(tablet.events(.delivered).isEmpty)
    }
}
