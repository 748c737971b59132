// A Notify that got no answer in time has an unknown outcome: a hung server may show the call when
// it wakes. The call stays posting (never a second card for one start while the first may appear),
// its late id is taken, or closed at once where she returned meanwhile, and only the server's
// leaving proves it unseen, so that it may be posted again.

import DaysomeCore
import Testing

private let timedOut = "org.freedesktop.DBus.Error.NoReply: Method call timed out"

@Suite("A post whose outcome is unknown")
struct UnknownOutcomeTests {
    let morning = instant("2026-06-01T08:00:00Z")
    let lunch = instant("2026-06-01T12:00:00Z")
    let server = "boot bus :1.5"

    /// Lunch posted at its minute to a server that holds its answer; sd-bus's default timeout
    /// (25 s) then says NoReply while the server still owns the name.
    func lunchTimedOut() -> (VirtualDaemon, DeliveryKey) {
        var daemon = VirtualDaemon(lunchAndTea(), now: self.morning, display: .away)
        daemon.send(.serverIdentified(self.server))
        daemon.holdReplies = true
        daemon.run(until: self.lunch)
        let key = DeliveryKey(lay: 1, at: self.lunch)
        daemon.run(until: self.lunch.adding(seconds: 25))
        daemon.send(.postFailed(key, reason: timedOut, failure: .outcomeUnknown))
        return (daemon, key)
    }

    @Test("A post that outlived its timeout is never posted again while its server may still show it")
    func aTimedOutPostIsNeverPostedAgainWhileItsServerMayShowIt() {
        var (daemon, key) = self.lunchTimedOut()
        // Past the whole grace window: no retry, no drop, no history line claiming either.
        daemon.run(until: self.lunch.adding(seconds: 400))
        #expect(daemon.posts.count == 1, "posted again: \(daemon.posts.map(\.at))")
        #expect(daemon.events(.dropped).isEmpty, "\(daemon.history)")
        #expect(daemon.events(.delivered).isEmpty, "\(daemon.history)")
        #expect(daemon.machine.awaitsAServer)
        // The server wakes and answers: the call is delivered once, and closed at its end as usual.
        daemon.heldPosts = []
        daemon.jump(to: self.lunch.adding(seconds: 43))
        daemon.reply(key)
        #expect(daemon.events(.delivered).count == 1)
        #expect(daemon.shown.count == 1)
        daemon.run(until: instant("2026-06-01T12:45:00Z"))
        #expect(daemon.shown.isEmpty)
        #expect(daemon.posts.count == 1)
    }

    @Test("A late id of a call taken back by her return is closed at once, and nothing is left shown")
    func aLateIdAfterHerReturnIsClosedAtOnce() {
        var (daemon, key) = self.lunchTimedOut()
        daemon.jump(to: self.lunch.adding(seconds: 30))
        daemon.send(.display(.foreground))
        daemon.heldPosts = []
        daemon.jump(to: self.lunch.adding(seconds: 40))
        daemon.reply(key)
        #expect(daemon.shown.isEmpty, "the late card stayed over the display")
        #expect(
            daemon.actions.last { if case .close = $0 { true } else { false } }
                == .close(key, notificationId: 1, server: self.server))
        #expect(daemon.posts.count == 1)
        // History tells what the server did, in order: it took the call, and it was taken away.
        let told = daemon.history.filter { $0.at == self.lunch }.map(\.event)
        #expect(told == [.delivered, .withdrawn], "\(daemon.history)")
    }

    @Test("A late id of a call replaced by a newer one, or expired, is closed at once")
    func aLateIdAfterItsCallLeftIsClosedAtOnce() {
        var (daemon, key) = self.lunchTimedOut()
        daemon.heldPosts = []
        // Its card's time is over before the server answers.
        daemon.run(until: instant("2026-06-01T12:45:00Z"))
        daemon.reply(key)
        #expect(daemon.shown.isEmpty)
        #expect(daemon.history.filter { $0.at == self.lunch }.map(\.event) == [.delivered, .expired])
    }

    @Test("A server that left without answering proves the call unseen: it is posted again once, in the window")
    func aServerThatLeftProvesTheCallUnseen() {
        var (daemon, _) = self.lunchTimedOut()
        daemon.heldPosts = []
        daemon.holdReplies = false
        daemon.jump(to: self.lunch.adding(seconds: 40))
        daemon.send(.serverRestarted(answering: "boot bus :1.9"))
        #expect(daemon.posts.count == 2)
        #expect(daemon.events(.delivered).count == 1)
        #expect(daemon.shown.count == 1)
        daemon.run(until: self.lunch.adding(seconds: 400))
        #expect(daemon.posts.count == 2)
    }

    @Test("A card she dismissed, whose id the bus's timeout kept from the daemon, is that post: never shown again")
    func aDismissedCardWhoseAnswerNeverCameIsNeverPostedAgain() {
        var (daemon, _) = self.lunchTimedOut()
        // The server woke and made card 7; its answer reached nobody. She dismisses it.
        daemon.jump(to: self.lunch.adding(seconds: 40))
        daemon.send(.serverClosed(notificationId: 7, reason: 2, server: self.server))
        #expect(daemon.history.filter { $0.at == self.lunch }.map(\.event) == [.delivered, .withdrawn])
        #expect(!daemon.machine.awaitsAServer)
        daemon.holdReplies = false
        daemon.send(.serverRestarted(answering: "boot bus :1.9"))
        daemon.run(until: self.lunch.adding(seconds: 400))
        #expect(daemon.posts.count == 1, "lunch posted again after she dismissed it")
    }

    @Test("A close someone asked for (3), or an expiry (1), never stands for a post whose answer never came")
    func aCloseOfAnOldCardIsNotTakenForTheUnansweredPost() {
        var (daemon, key) = self.lunchTimedOut()
        daemon.jump(to: self.lunch.adding(seconds: 40))
        // A card of ours closed by CloseNotification long ago, said only now by the woken server;
        // and another app's card that timed out.
        daemon.send(.serverClosed(notificationId: 3, reason: 3, server: self.server))
        daemon.send(.serverClosed(notificationId: 9, reason: 1, server: self.server))
        #expect(daemon.events(.delivered).isEmpty, "\(daemon.history)")
        #expect(daemon.machine.awaitsAServer)
        // The server's answer still comes, and is taken as usual.
        daemon.heldPosts = []
        daemon.reply(key)
        #expect(daemon.events(.delivered).count == 1)
        #expect(daemon.shown.count == 1)
    }

    @Test("A dismissal, with lunch taken back and tea still wanted, names tea: a restart never shows tea again")
    func aDismissalNamesTheOneWantedPostAmongThoseUnanswered() {
        var (daemon, _) = self.lunchTimedOut()
        // Lunch's card time ends while its post is still unanswered (taken back), and tea's post
        // times out as well: the woken server made both cards.
        let tea = instant("2026-06-01T18:30:00Z")
        daemon.run(until: tea.adding(seconds: 25))
        #expect(daemon.posts.count == 2)
        daemon.send(.postFailed(DeliveryKey(lay: 1, at: tea), reason: timedOut, failure: .outcomeUnknown))
        daemon.send(.serverClosed(notificationId: 7, reason: 2, server: self.server))
        #expect(daemon.history.filter { $0.at == tea }.map(\.event) == [.delivered, .withdrawn])
        daemon.holdReplies = false
        daemon.send(.serverRestarted(answering: "boot bus :1.9"))
        daemon.run(until: tea.adding(seconds: 400))
        #expect(daemon.posts.count == 2, "tea posted again after the woken server showed it")
    }

    @Test("A dismissal from another server instance never stands for the post whose answer never came")
    func aCloseFromAnotherInstanceIsNotTakenForTheUnansweredPost() {
        var (daemon, _) = self.lunchTimedOut()
        daemon.jump(to: self.lunch.adding(seconds: 40))
        daemon.send(.serverClosed(notificationId: 7, reason: 2, server: "boot bus :1.77"))
        #expect(daemon.events(.delivered).isEmpty, "\(daemon.history)")
        #expect(daemon.machine.awaitsAServer)
    }

    @Test("NoReply after the server already left (the bus's word for a callee gone) is posted again, not waited on")
    func aNoReplyFromAServerAlreadyGoneIsPostedAgain() {
        var daemon = VirtualDaemon(lunchAndTea(), now: self.morning, display: .away)
        daemon.send(.serverIdentified(self.server))
        daemon.holdReplies = true
        daemon.run(until: self.lunch)
        let key = DeliveryKey(lay: 1, at: self.lunch)
        daemon.jump(to: self.lunch.adding(seconds: 10))
        daemon.send(.serverRestarted(answering: "boot bus :1.9"))
        #expect(daemon.posts.count == 1, "a post in flight is kept across the restart")
        daemon.heldPosts = []
        daemon.holdReplies = false
        let gone =
            "org.freedesktop.DBus.Error.NoReply: Message recipient disconnected from message bus without replying"
        daemon.send(.postFailed(key, reason: gone, failure: .outcomeUnknown))
        daemon.run(until: self.lunch.adding(seconds: 12))
        #expect(daemon.posts.count == 2)
        #expect(daemon.events(.delivered).count == 1)
    }

    @Test("Bus errors with no answer in time are an unknown outcome, not a failure")
    func classification() {
        #expect(PostFailure(busErrorName: "org.freedesktop.DBus.Error.NoReply") == .outcomeUnknown)
        #expect(PostFailure(busErrorName: "org.freedesktop.DBus.Error.Timeout") == .outcomeUnknown)
        #expect(PostFailure(busErrorName: "System.Error.ETIMEDOUT") == .outcomeUnknown)
        #expect(PostFailure(busErrorName: "System.Error.ECONNRESET") == .serverUnavailable)
    }
}
