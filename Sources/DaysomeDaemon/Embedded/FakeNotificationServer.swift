// The embedded world's notification server: the notifier and the server behind it in one object,
// as the daemon sees them through `Notifier`. Its replies come back on the loop's next iteration,
// as a bus's do; its knobs are the faults a real one has: it hangs and wakes, restarts and wipes
// its cards, stops, is taken over, closes a card itself, is clicked, switches Do Not Disturb.

import DaysomeCore
import Glibc
import SystemdKit

/// A notification server and its notifier, on the embedded world's loop.
public final class FakeNotificationServer: Notifier {
    /// A card on its screen.
    public struct Card: Sendable, Equatable {
        public let id: UInt32
        public let summary: String
        public let body: String
        /// The start it calls, as the daemon said.
        public let at: Instant
        /// Whether a Do Not Disturb held it out of sight.
        public let held: Bool
        /// When the daemon sent its Notify.
        public let sentAt: Instant
        /// The same, by the tablet's monotonic clock: a wall clock stepped since cannot reorder it.
        public let sentMonotonic: UInt64
        /// When the server put it up: later than `sentAt` where it hung.
        public let postedAt: Instant
        /// When the call's card is over (`Start.expiresAt`): the daemon takes it down then.
        public let expiresAt: Instant
        /// Whether the daemon that posted it had died before the server answered (a hung server
        /// woke after a kill): no daemon holds its id, so none can close it.
        public let orphaned: Bool
    }

    /// A server that sends no word when its switch moves is read before calls; this one signals.
    let readsDoNotDisturb = true
    private(set) var server = ServerInfo(name: "fake", present: true, capabilities: ["body"])
    /// The instance answering now (`fake :1.N`, a new N per start); nil while none runs.
    public private(set) var instance: String?
    /// Every card on screen, oldest first.
    public private(set) var cards: [Card] = []
    /// Every Notify it answered, in order: what "never twice" counts.
    public private(set) var notified: [Card] = []
    /// Every id the daemon closed.
    public private(set) var closed: [UInt32] = []
    /// Whether it answers now; a hung server keeps each reply until it wakes.
    public private(set) var hung = false
    /// Whether the bus answers NoReply for a Notify this server has held 25 s while hung
    /// (dbus-daemon's reply timeout): the daemon then cannot know whether the card shows, and the
    /// server may still put it up when it wakes, with an id no daemon learns.
    public var busTimesOut = false
    /// dbus-daemon's reply timeout, in microseconds.
    static let busReplyTimeout: UInt64 = 25_000_000
    /// The Do Not Disturb it reports, respected only where the household asks.
    public private(set) var doNotDisturb: ServerDoNotDisturb = .off
    /// Requests it has not handled yet, while hung.
    private var held: [() -> Void] = []
    private var nextId: UInt32 = 1
    private var generation = 1
    /// The daemon connected now, and its loop; a new daemon connects anew (`attach`).
    private var loop: (any Loop)?
    private weak var manager: Manager?
    /// Counts the daemon's connections: a reply to an older one goes nowhere (its process died).
    private var connection = 0
    private var replies: [any LoopSource] = []

    init() {
        self.server.doNotDisturbSource = .followed
        self.server.doNotDisturb = .off
        self.instance = "fake :1.\(self.generation)"
    }

    /// A new daemon connected: its words go to `manager`, on `loop`.
    func attach(loop: any Loop, manager: Manager) {
        self.connection += 1
        self.loop = loop
        self.manager = manager
        self.replies = []
    }

    /// The tablet's time, as the connected daemon's loop has it.
    private var now: Instant { Instant(seconds: Int64((self.loop?.now(CLOCK_REALTIME) ?? 0) / 1_000_000)) }

    /// The daemon's process died: its connection with it, and every reply owed to it.
    func detach() {
        self.connection += 1
        self.loop = nil
        self.manager = nil
        self.replies = []
    }

    // MARK: Notifier

    func post(
        _ start: Start, replacing: UInt32, now: Instant, mayStartServer: Bool, stillWanted: @escaping () -> Bool,
        completion: @escaping (Result<PostAnswer, NotifierError>) -> Void
    ) {
        // The real notifier's route: at once where the post may not start a server, and from the
        // loop where it first asks whether the session has a display. This world has no bus to
        // start a server, so its session is one without a display.
        switch PostRoute.whenPosting(serverOwnsTheName: self.instance != nil, mayStartServer: mayStartServer) {
        case .send:
            break
        case .wait(let reason):
            self.server.waiting = reason
            completion(.failure(NotifierError(message: reason, failure: .serverUnavailable)))
            return
        case .askWhetherTheSessionHasADisplay:
            self.onLoop { [weak self] in
                guard let self else { return }
                switch PostRoute.afterAsking(sessionHasDisplay: false, serverOwnsTheName: self.instance != nil) {
                case .wait(let reason):
                    self.server.waiting = reason
                    completion(.failure(NotifierError(message: reason, failure: .serverUnavailable)))
                case .send, .askWhetherTheSessionHasADisplay:
                    // A server took the name meanwhile: posted as to any server.
                    self.post(
                        start, replacing: replacing, now: now, mayStartServer: mayStartServer,
                        stillWanted: stillWanted, completion: completion)
                }
            }
            return
        }
        let respect = self.manager?.respectsDoNotDisturb ?? false
        let connection = self.connection
        // The daemon reads the server's switch first, and asks just before the Notify goes out
        // whether the call is still wanted (a return meanwhile sends nothing).
        self.onLoop { [weak self] in
            guard let self else { return }
            guard stillWanted() else {
                completion(.failure(NotifierError(message: "taken back before it was posted")))
                return
            }
            let sentAt = self.now
            let sentMonotonic = self.loop?.now(CLOCK_MONOTONIC) ?? 0
            // Once the bus said NoReply, the server's late answer reaches nobody.
            var timedOut = false
            var handled = false
            if self.hung && self.busTimesOut {
                self.onLoop(after: Self.busReplyTimeout) {
                    guard !handled, connection == self.connection else { return }
                    timedOut = true
                    completion(
                        .failure(
                            NotifierError(
                                message: "Did not receive a reply (the bus's reply timeout)",
                                failure: PostFailure(busErrorName: "org.freedesktop.DBus.Error.NoReply"))))
                }
            }
            self.handle {
                handled = true
                let instance = self.instance
                if replacing != 0 { self.cards.removeAll { $0.id == replacing } }
                let id = replacing != 0 ? replacing : self.nextId
                if replacing == 0 { self.nextId += 1 }
                let text = Content.notification(start, markup: false)
                let holds = self.doNotDisturb == .on && respect
                let card = Card(
                    id: id, summary: text.summary, body: text.body, at: start.at, held: holds, sentAt: sentAt,
                    sentMonotonic: sentMonotonic, postedAt: self.now, expiresAt: start.expiresAt,
                    orphaned: timedOut || connection != self.connection)
                self.cards.append(card)
                self.notified.append(card)
                let answer = PostAnswer(
                    id: id, instance: instance, held: holds ? "Do Not Disturb is on" : nil, bellHeld: holds)
                guard connection == self.connection, !timedOut else { return }
                self.onLoop { completion(.success(answer)) }
            }
        }
    }

    func close(_ id: UInt32, on instance: String?) {
        // An id of another instance means nothing here: only its giver can close it.
        guard instance == nil || instance == self.instance else { return }
        self.handle {
            self.closed.append(id)
            self.cards.removeAll { $0.id == id }
        }
    }

    func noCallWaits() {
        self.server.waiting = nil
    }

    func holdsTheBell() -> Bool {
        (self.manager?.respectsDoNotDisturb ?? false) && self.doNotDisturb == .on
    }

    func readDoNotDisturbForTheBell(then: @escaping () -> Void) {
        self.onLoop(then)
    }

    /// The server handles a request now, or when it wakes.
    private func handle(_ request: @escaping () -> Void) {
        if self.hung {
            self.held.append(request)
        } else {
            request()
        }
    }

    /// Runs `work` on the daemon's loop's next iteration (a reply off the bus), or `after`
    /// microseconds; the source is kept until it ran, as the loop holds it only while kept.
    private func onLoop(after usec: UInt64? = nil, _ work: @escaping () -> Void) {
        guard let loop = self.loop else { return }
        var source: (any LoopSource)?
        let run = { [weak self] in
            self?.replies.removeAll { $0 === source }
            // The source holds this closure, and the closure the source: let go once it ran.
            source = nil
            work()
        }
        if let usec {
            source = try? loop.timer(clock: CLOCK_MONOTONIC, after: usec, description: "bus-reply-timeout", run)
        } else {
            source = try? loop.deferred(description: "server-reply", run)
        }
        if let source { self.replies.append(source) }
    }

    // MARK: Knobs

    /// Stops answering: every reply waits until `wake`.
    public func hang() {
        self.hung = true
    }

    /// Answers again: every request it held is handled in order, and its reply sent.
    public func wake() {
        self.hung = false
        let requests = self.held
        self.held = []
        for request in requests { request() }
    }

    /// Exits and is started again: its cards are gone, and so are the requests it held.
    public func restart() {
        self.startAnew()
        self.manager?.handle(.serverRestarted)
        self.manager?.serverLearned()
    }

    /// The machine lost power: the server is gone with its cards and what it held, and the next
    /// boot starts another; no daemon is told (none runs).
    public func reboot() {
        self.startAnew()
        self.connection += 1
        self.manager = nil
    }

    /// A new instance, with nothing of the old one's.
    private func startAnew() {
        self.cards = []
        self.held = []
        self.hung = false
        self.generation += 1
        self.instance = "fake :1.\(self.generation)"
        self.server.present = true
    }

    /// Exits and stays away: calls wait for a server.
    public func stop() {
        self.cards = []
        self.held = []
        self.instance = nil
        self.server.present = false
        self.manager?.handle(.serverRestarted)
    }

    /// A server owns the name again after `stop`: calls that waited go to it.
    public func start() {
        guard self.instance == nil else { return }
        self.generation += 1
        self.instance = "fake :1.\(self.generation)"
        self.server.present = true
        self.manager?.syncServerIdentity()
        self.manager?.serverLearned()
    }

    /// The card `id` closed on the server's side: expired (1) or dismissed by her (2).
    public func closeItself(_ id: UInt32, reason: UInt32 = 2) {
        guard self.cards.contains(where: { $0.id == id }) else { return }
        self.cards.removeAll { $0.id == id }
        self.manager?.serverClosed(id, reason: reason, by: self.instance)
    }

    /// Another app's card on this server (its `at` means nothing): the daemon must never close
    /// it. Returns its id, from the same counter as the daemon's.
    @discardableResult
    public func showAnotherAppsCard(_ summary: String) -> UInt32 {
        let id = self.nextId
        self.nextId += 1
        let forever = Instant(seconds: 4_102_444_800)
        self.cards.append(
            Card(
                id: id, summary: summary, body: "", at: Instant(seconds: 0), held: false, sentAt: self.now,
                sentMonotonic: self.loop?.now(CLOCK_MONOTONIC) ?? 0, postedAt: self.now, expiresAt: forever,
                orphaned: false))
        return id
    }

    /// She clicked the card `id`.
    public func click(_ id: UInt32) {
        self.manager?.clicked(id, by: self.instance)
    }

    /// Her Do Not Disturb switch, said on the server's signal.
    public func setDoNotDisturb(_ on: Bool) {
        self.doNotDisturb = on ? .on : .off
        self.server.doNotDisturb = self.doNotDisturb
        self.manager?.serverLearned()
    }
}
