// The embedded world's notification server, and the session bus it is on, as the daemon's real
// notifier sees them through `NotificationsPeer`: method calls it answers on the loop's next
// iteration, signals it sends, and the bus driver's answers about who owns its name. Its knobs are
// the faults a real one has: it hangs and wakes, restarts and wipes its cards, stops, closes a
// card itself, is clicked, switches Do Not Disturb. It says it is swaync, whose Do Not Disturb
// holds every call but a critical one and is said on a signal at each switch.

import DaysomeCore
import DaysomeDaemon
import Glibc
import SystemdKit

/// A notification server on the session bus, and the daemon's connections to it.
public final class FakeNotificationServer {
    /// A card on its screen.
    public struct Card: Sendable, Equatable {
        public let id: UInt32
        public let summary: String
        public let body: String
        /// The start it calls, as the daemon said.
        public let at: Instant
        /// Whether its Do Not Disturb held it out of sight.
        public let held: Bool
        /// When the daemon sent its Notify.
        public let sentAt: Instant
        /// The same, by the tablet's monotonic clock: a wall clock stepped since cannot reorder it.
        public let sentMonotonic: UInt64
        /// When the server put it up: later than `sentAt` where it hung.
        public let postedAt: Instant
        /// The same, by the tablet's monotonic clock.
        public let postedMonotonic: UInt64
        /// When the call's card is over (`Start.expiresAt`): the daemon takes it down then.
        public let expiresAt: Instant
        /// Whether the daemon that posted it had died before the server answered (a hung server
        /// woke after a kill): no daemon holds its id, so none can close it.
        public let orphaned: Bool
        /// The Notify's expire timeout, in ms (-1: the server's default; 0: never): the server's
        /// own backstop, counted from when the card went up.
        public var expireTimeout: Int32 = -1
        /// Whether the connection that sent it had asked this server instance who it is and got
        /// no answer yet but timeouts (an instance hung since before they met): the daemon chose
        /// its urgency without its word.
        public var sentUnknowing = false
    }

    /// What it says of itself (`GetServerInformation`, `GetCapabilities`).
    static let description = ServerDescription(name: name, vendor: "erikreider", capabilities: ["actions", "body"])
    /// Its name: swaync's, as `OnEveryDesktop`'s tables know it.
    public static let name = "SwayNotificationCenter"
    /// The bus's id: an instance is named "fake :1.N".
    static let busId = "fake"
    /// The end of a card that is no call's (another app's, a replacement): never, for the run.
    static let forever = Instant(seconds: 4_102_444_800)
    /// dbus-daemon's reply timeout, in microseconds.
    static let busReplyTimeout: UInt64 = 25_000_000
    /// sd-bus's default timeout, for a call that names none.
    static let defaultTimeout: UInt64 = 25_000_000

    /// The unique name of the server running now; nil while none runs.
    public private(set) var uniqueName: String?
    /// The instance answering now, as the daemon names it (`fake :1.N`); nil while none runs.
    public var instance: String? { self.uniqueName.map { "\(Self.busId) \($0)" } }
    /// Every card on screen, oldest first.
    public private(set) var cards: [Card] = []
    /// The server another took the name over from (`takeOver`), while it still runs: its unique
    /// name, and the cards it still shows, which only it can close.
    public private(set) var replaced: (uniqueName: String, cards: [Card])?
    /// Every Notify it answered, in order: what "never twice" counts.
    public private(set) var notified: [Card] = []
    /// Every id the daemon closed.
    public private(set) var closed: [UInt32] = []
    /// The ids this instance was asked to close, handled or still held while it hangs.
    public private(set) var closeAsked: Set<UInt32> = []
    /// Whether it answers now; a hung server keeps each request until it wakes.
    public private(set) var hung = false
    /// Whether it keeps each Notify until it wakes, answering everything else.
    public private(set) var holdsNotifies = false
    /// Whether the bus answers NoReply for a Notify this server has held 25 s while hung
    /// (dbus-daemon's reply timeout): the daemon then cannot know whether the card shows, and the
    /// server may still put it up when it wakes, with an id no daemon learns.
    public var busTimesOut = false
    /// Whether a user manager answers for the session's environment; where none does, the daemon
    /// reads its own.
    public var userManagerAnswers = true
    /// Its Do Not Disturb switch.
    public private(set) var doNotDisturb: ServerDoNotDisturb = .off
    /// Requests it has not handled yet, while hung: each handles itself, or is told its caller
    /// was left without a reply when the server exits first.
    private var held: [(handle: () -> Void, exited: () -> Void, call: String?)] = []
    /// The calls whose Notify it holds now, unhandled (each as its start and summary): a card
    /// it may still put up when it wakes.
    public var heldNotifies: [String] { self.held.compactMap(\.call) }
    private var nextId: UInt32 = 1
    private var generation = 0
    /// The connected daemon's connection (a new daemon connects anew).
    private var connection: Connection?
    /// The tablet's clocks (realtime, monotonic) in µs: a server that wakes while no daemon runs
    /// still puts its cards up at the tablet's time.
    var clock: () -> (realtime: UInt64, monotonic: UInt64) = { (0, 0) }

    init() {
        self.startAnew()
    }

    /// Whether the session bus takes connections (`busGoes`, `busBack`).
    public private(set) var busUp = true

    /// A new connection from a daemon on `loop`; an older one is closed (its process died). The
    /// bus refuses it while it is down.
    func connect(loop: any Loop) throws(Errno) -> any NotificationsPeer {
        guard self.busUp else { throw Errno(rawValue: ECONNREFUSED) }
        self.connection?.open = false
        let connection = Connection(server: self, loop: loop)
        self.connection = connection
        return connection
    }

    /// The daemon's process died: its connection with it, and every reply owed to it.
    func detach() {
        self.connection?.open = false
        self.connection = nil
    }

    /// The tablet's time.
    private var now: Instant { Instant(seconds: Int64(self.clock().realtime / 1_000_000)) }

    // MARK: What the server does with a request

    /// The server handles a request now, or when it wakes.
    private func handle(
        _ request: @escaping () -> Void, exited: @escaping () -> Void = {}, isNotify: Bool = false,
        call: String? = nil
    ) {
        if self.hung || (isNotify && self.holdsNotifies) {
            self.held.append((request, exited, call))
        } else {
            request()
        }
    }

    /// A Notify: the card goes up (held out of sight where its Do Not Disturb holds that urgency)
    /// and its id goes back, unless the caller's connection is gone or the bus gave up waiting.
    fileprivate func notify(
        _ call: NotifyCall, from connection: Connection, sentAt: Instant, sentMonotonic: UInt64, unknowing: Bool,
        answered: @escaping (Result<Notifications.Answer, BusError>) -> Void, gaveUp: @escaping () -> Bool
    ) {
        let replacing = call.replacesID
        if replacing != 0 { self.cards.removeAll { $0.id == replacing } }
        let id = replacing != 0 ? replacing : self.nextId
        self.nextId = max(self.nextId, id + 1)
        let urgency = call.hints.first { $0.0 == "urgency" }.flatMap { hint -> UInt8? in
            if case .byte(let value) = hint.1 { return value }
            return nil
        }
        // swaync's Do Not Disturb lets only a critical call through.
        let holds = self.doNotDisturb == .on && urgency != CallUrgency.critical.rawValue
        let card = Card(
            id: id, summary: call.summary, body: call.body, at: call.start?.at ?? Instant(seconds: 0), held: holds,
            sentAt: sentAt, sentMonotonic: sentMonotonic, postedAt: self.now, postedMonotonic: self.clock().monotonic,
            expiresAt: call.start?.expiresAt ?? Self.forever, orphaned: gaveUp() || !connection.open,
            expireTimeout: call.expireTimeout, sentUnknowing: unknowing)
        self.cards.append(card)
        self.notified.append(card)
        connection.reply(answered, .success(Notifications.Answer(id: id, server: self.uniqueName)))
    }

    /// A CloseNotification at the server another took the name over from: its card goes, and it
    /// says so (reason 3).
    fileprivate func closeReplaced(_ id: UInt32) {
        guard let replaced = self.replaced, replaced.cards.contains(where: { $0.id == id }) else { return }
        self.replaced?.cards.removeAll { $0.id == id }
        self.connection?.notificationClosed(id, reason: .closedByCall, by: replaced.uniqueName)
    }

    /// A CloseNotification: the card goes, and the server says so (reason 3).
    fileprivate func close(_ id: UInt32) {
        self.closed.append(id)
        guard self.cards.contains(where: { $0.id == id }) else { return }
        self.cards.removeAll { $0.id == id }
        self.connection?.notificationClosed(id, reason: .closedByCall, by: self.uniqueName)
    }

    /// A method call to the server's name: handled now or when it wakes, answered with `answer`;
    /// the bus answers itself where no server owns the name, and a caller that waits at most
    /// `timeout` µs gets a timeout first where the server is slower.
    fileprivate func call<T>(
        from connection: Connection, timeout: UInt64, reply: @escaping (Result<T, BusError>) -> Void,
        _ answer: @escaping () -> T
    ) {
        guard self.uniqueName != nil else {
            connection.reply(reply, .failure(Self.noOwner))
            return
        }
        let once = connection.once(reply, timeout: timeout)
        self.handle({ once(.success(answer())) }, exited: { once(.failure(Self.leftWithoutReply)) })
    }

    static let noOwner = BusError(
        name: BusError.nameHasNoOwner, message: "The name org.freedesktop.Notifications has no owner", errno: ENXIO)
    static let leftWithoutReply = BusError(
        name: "org.freedesktop.DBus.Error.NoReply",
        message: "Message recipient disconnected from message bus without replying", errno: ETIMEDOUT)
    static let timedOut = BusError(
        name: "org.freedesktop.DBus.Error.NoReply", message: "Did not receive a reply (timeout)", errno: ETIMEDOUT)

    // MARK: Knobs

    /// Stops answering: every request waits until `wake`.
    public func hang() {
        self.hung = true
    }

    /// Answers what it is asked about itself, but keeps each Notify until `wake` (a shell busy
    /// drawing while its notification service answers).
    public func holdNotifies() {
        self.holdsNotifies = true
    }

    /// Answers again: every request it held is handled in order, and its reply sent.
    public func wake() {
        self.hung = false
        self.holdsNotifies = false
        let requests = self.held
        self.held = []
        for request in requests { request.handle() }
        self.settle()
    }

    /// Exits and is started again: its cards are gone, the requests it held are left without a
    /// reply, and the bus says the name lost its owner and found another. `atOnce`: the new one
    /// takes the name before the daemon has read that the old one went (a busy daemon, a server
    /// its service manager restarts in a moment).
    public func restart(atOnce: Bool = false) {
        self.exit()
        if !atOnce { self.settle() }
        self.startAnew()
        self.connection?.ownerChanged(old: nil, new: self.uniqueName)
        self.settle()
    }

    /// Another server takes the name over (started with replacement) while this one runs on,
    /// its cards still on screen: the bus says the name changed owner, and the old unique name
    /// stays connected until `replacedExits`. Only a server that answers is taken over here, and
    /// one at a time: a second takeover waits until the first replaced server has exited.
    public func takeOver() {
        guard let old = self.uniqueName, !self.hung, !self.holdsNotifies, self.replaced == nil else { return }
        self.replaced = (old, self.cards)
        self.cards = []
        self.startAnew()
        self.connection?.ownerChanged(old: old, new: self.uniqueName)
        self.settle()
    }

    /// The server another took the name over from exits: its cards go with it.
    public func replacedExits() {
        guard let old = self.replaced?.uniqueName else { return }
        self.replaced = nil
        self.connection?.left(old)
        self.settle()
    }

    /// The machine lost power: the server is gone with its cards and what it held, and the next
    /// boot starts another; no daemon hears it (none runs).
    public func reboot() {
        self.detach()
        self.busUp = true
        self.held = []
        self.cards = []
        self.replaced = nil
        self.hung = false
        self.holdsNotifies = false
        self.startAnew()
    }

    /// The session bus goes down (`systemctl --user restart dbus`): the server, a GLib program
    /// whose bus connection exits it when it closes, goes with its cards; the bus answers each
    /// request it held with "Connection terminated" and tells the daemon its connection dropped.
    /// No NameOwnerChanged comes: the bus that would say it is gone.
    public func busGoes() {
        guard self.busUp else { return }
        self.busUp = false
        let requests = self.held
        self.held = []
        self.cards = []
        self.replaced = nil
        self.hung = false
        self.holdsNotifies = false
        self.uniqueName = nil
        for request in requests { request.exited() }
        self.connection?.drop()
        self.settle()
    }

    /// The session bus is back, and the desktop starts its server on it anew: no cards, its ids
    /// from 1. The daemon hears of it only once it has connected again.
    public func busBack() {
        guard !self.busUp else { return }
        self.busUp = true
        self.startAnew()
    }

    /// Exits and stays away: calls wait for a server.
    public func stop() {
        self.exit()
        self.settle()
    }

    /// A server owns the name again after `stop`: calls that waited go to it.
    public func start() {
        guard self.uniqueName == nil else { return }
        self.startAnew()
        self.connection?.ownerChanged(old: nil, new: self.uniqueName)
        self.settle()
    }

    /// The running server exits: its cards go, and so does every request it held (the bus tells
    /// each caller); the bus says its name lost its owner, then that its unique name left.
    private func exit() {
        guard let old = self.uniqueName else { return }
        let requests = self.held
        self.held = []
        self.cards = []
        self.hung = false
        self.holdsNotifies = false
        self.uniqueName = nil
        for request in requests { request.exited() }
        self.connection?.ownerChanged(old: old, new: nil)
        self.connection?.left(old)
    }

    /// A new instance, with nothing of the old one's (one hung before its start is hung from it):
    /// its ids start again at 1, as a real server's do.
    private func startAnew() {
        self.nextId = 1
        self.closeAsked = []
        self.generation += 1
        self.uniqueName = ":1.\(self.generation)"
    }

    /// The card `id` closed on the server's side: expired (1) or dismissed by her (2).
    public func closeItself(_ id: UInt32, reason: UInt32 = 2) {
        guard self.cards.contains(where: { $0.id == id }) else { return }
        self.cards.removeAll { $0.id == id }
        self.connection?.notificationClosed(
            id, reason: Notifications.CloseReason(rawValue: reason), by: self.uniqueName)
        self.settle()
    }

    /// Another app's card on this server (its `at` means nothing): the daemon must never close
    /// it. Returns its id, from the same counter as the daemon's.
    @discardableResult
    public func showAnotherAppsCard(_ summary: String) -> UInt32 {
        let id = self.nextId
        self.nextId += 1
        self.cards.append(
            Card(
                id: id, summary: summary, body: "", at: Instant(seconds: 0), held: false, sentAt: self.now,
                sentMonotonic: self.clock().monotonic, postedAt: self.now, postedMonotonic: self.clock().monotonic,
                expiresAt: Self.forever,
                orphaned: false))
        return id
    }

    /// She clicked the card `id` (its default action).
    public func click(_ id: UInt32) {
        self.connection?.actionInvoked(id, key: "default", by: self.uniqueName)
        self.settle()
    }

    /// Her Do Not Disturb switch, said on the server's signal.
    public func setDoNotDisturb(_ on: Bool) {
        self.doNotDisturb = on ? .on : .off
        self.connection?.doNotDisturbChanged(self.doNotDisturb)
        self.settle()
    }

    /// Whether `uniqueName` is still connected: the server answering now, or one another took
    /// the name over from.
    func runs(_ uniqueName: String) -> Bool {
        uniqueName == self.uniqueName || uniqueName == self.replaced?.uniqueName
    }

    /// The daemon handles what the bus brought it, as a real one does as soon as it arrives.
    private func settle() {
        self.connection?.settle()
    }
}

extension FakeNotificationServer {
    /// One daemon's connection: its subscriptions, and the replies and signals on their way to it.
    final class Connection: NotificationsPeer {
        private unowned let server: FakeNotificationServer
        private let loop: any Loop
        /// Replies and signals on their way to the daemon.
        private let delivery: BusDelivery
        private var subscriptions: [WeakSubscription] = []

        init(server: FakeNotificationServer, loop: any Loop) {
            self.server = server
            self.loop = loop
            self.delivery = BusDelivery(loop: loop)
        }

        /// False once its process died: nothing reaches it any more.
        var open: Bool {
            get { self.delivery.open }
            set { self.delivery.open = newValue }
        }
        /// The bus dropped it: every call fails at once, as sd-bus's do on a closed connection.
        private(set) var dropped = false
        /// The server instances (unique names) that answered a probe this connection sent, and
        /// those that let one time out.
        private var probesAnswered: Set<String> = []
        private var probesFailed: Set<String> = []

        /// The bus went away: what is on its way still arrives, then Disconnected; after that every
        /// call fails with ENOTCONN before it leaves.
        func drop() {
            guard !self.dropped else { return }
            self.signal { if case .disconnected(let handler) = $0 { handler() } }
            self.dropped = true
        }

        /// What a call on a dropped connection gets, at once.
        static let notConnected = BusError(Errno(rawValue: ENOTCONN)).asUnsent

        let busId = FakeNotificationServer.busId

        // MARK: Delivery

        /// Runs `work` on the daemon's loop's next iteration, or `after` µs, while the connection is
        /// open.
        @discardableResult
        private func onLoop(after usec: UInt64? = nil, _ work: @escaping () -> Void) -> (any LoopSource)? {
            self.delivery.onLoop(after: usec, description: usec == nil ? "bus-message" : "bus-timeout", work)
        }

        func reply<T>(_ completion: @escaping (Result<T, BusError>) -> Void, _ result: Result<T, BusError>) {
            self.onLoop { completion(result) }
        }

        /// The reply to one call, sent at most once: by the server, or by a timeout of `usec` µs
        /// (`Bus.noTimeout`: none) that comes first.
        func once<T>(
            _ completion: @escaping (Result<T, BusError>) -> Void, timeout usec: UInt64
        )
            -> (Result<T, BusError>) -> Void
        {
            var done = false
            var timeout: (any LoopSource)?
            if usec != Bus.noTimeout {
                timeout = self.onLoop(after: usec == 0 ? FakeNotificationServer.defaultTimeout : usec) {
                    guard !done else { return }
                    done = true
                    completion(.failure(FakeNotificationServer.timedOut))
                }
            }
            return { [weak self] result in
                guard !done else { return }
                done = true
                // Answered in time: its timeout is over.
                if let source = timeout {
                    source.cancel()
                    self?.delivery.forget(source)
                    timeout = nil
                }
                self?.reply(completion, result)
            }
        }

        func settle() {
            guard self.open, let loop = self.loop as? ManualLoop else { return }
            loop.runPending()
        }

        // MARK: Signals

        private func signal(_ deliver: @escaping (FakeSubscription.Kind) -> Void) {
            // A dropped connection hears nothing more of the bus it was on, nor of the next one.
            guard !self.dropped else { return }
            self.subscriptions.removeAll { $0.subscription == nil }
            let now = self.subscriptions
            // A subscription dropped before the signal is dispatched hears nothing, as a slot sd-bus freed.
            self.onLoop {
                for weak in now { if let subscription = weak.subscription { deliver(subscription.kind) } }
            }
        }

        func ownerChanged(old: String?, new: String?) {
            self.signal { if case .ownerChanged(let handler) = $0 { handler(old, new) } }
        }

        func left(_ uniqueName: String) {
            self.signal { if case .leaving(uniqueName, let handler) = $0 { handler() } }
        }

        func notificationClosed(_ id: UInt32, reason: Notifications.CloseReason, by sender: String?) {
            self.signal { if case .closed(let handler) = $0 { handler(id, reason, sender) } }
        }

        func actionInvoked(_ id: UInt32, key: String, by sender: String?) {
            self.signal { if case .actionInvoked(let handler) = $0 { handler(id, key, sender) } }
        }

        func doNotDisturbChanged(_ state: ServerDoNotDisturb) {
            self.signal { if case .doNotDisturb(let handler) = $0 { handler(state) } }
        }

        private func subscribe(_ kind: FakeSubscription.Kind) -> FakeSubscription {
            let subscription = FakeSubscription(kind: kind)
            self.subscriptions.append(WeakSubscription(subscription: subscription))
            return subscription
        }

        // MARK: NotificationsPeer

        func onDisconnected(_ handler: @escaping () -> Void) throws(Errno) -> AnyObject {
            self.subscribe(.disconnected(handler))
        }

        func subscribeActionInvoked(_ handler: @escaping (UInt32, String, String?) -> Void) throws(Errno) -> AnyObject {
            self.subscribe(.actionInvoked(handler))
        }

        func subscribeNotificationClosed(
            _ handler: @escaping (UInt32, Notifications.CloseReason, String?) -> Void
        ) throws(Errno) -> AnyObject {
            self.subscribe(.closed(handler))
        }

        func subscribeOwnerChanged(_ handler: @escaping (String?, String?) -> Void) throws(Errno) -> AnyObject {
            self.subscribe(.ownerChanged(handler))
        }

        func subscribeLeaving(_ uniqueName: String, _ handler: @escaping () -> Void) throws(Errno) -> AnyObject {
            self.subscribe(.leaving(uniqueName, handler))
        }

        func isOnBus(_ uniqueName: String, completion: @escaping (Bool?) -> Void) {
            guard !self.dropped else { return completion(nil) }
            let running = self.server.runs(uniqueName)
            self.onLoop { completion(running) }
        }

        func isOnBus(_ uniqueName: String) throws(BusError) -> Bool {
            guard !self.dropped else { throw Self.notConnected }
            return self.server.runs(uniqueName)
        }

        func serverOwner() throws(BusError) -> String? {
            guard !self.dropped else { throw Self.notConnected }
            return self.server.uniqueName
        }

        func serverOwner(completion: @escaping (Result<String?, BusError>) -> Void) {
            guard !self.dropped else { return completion(.failure(Self.notConnected)) }
            self.reply(completion, .success(self.server.uniqueName))
        }

        func probeServer(completion: @escaping (Result<ServerDescription, BusError>) -> Void) {
            guard !self.dropped else { return completion(.failure(Self.notConnected)) }
            let asked = self.server.uniqueName ?? ""
            let counted = { [weak self] (result: Result<ServerDescription, BusError>) in
                if case .success = result {
                    self?.probesAnswered.insert(asked)
                } else {
                    self?.probesFailed.insert(asked)
                }
                completion(result)
            }
            self.server.call(from: self, timeout: 10_000_000, reply: counted) { FakeNotificationServer.description }
        }

        func post(
            _ call: NotifyCall, timeout: UInt64, answered: @escaping (Result<Notifications.Answer, BusError>) -> Void
        ) {
            guard !self.dropped else { return answered(.failure(Self.notConnected)) }
            guard self.server.uniqueName != nil else {
                // Nothing here for the bus to start.
                self.reply(
                    answered,
                    .failure(
                        BusError(
                            name: "org.freedesktop.DBus.Error.ServiceUnknown",
                            message: "The name org.freedesktop.Notifications was not provided by any .service files",
                            errno: ENOENT)))
                return
            }
            let server = self.server
            let sentAt = server.now
            let sentMonotonic = self.loop.now(CLOCK_MONOTONIC)
            let running = server.uniqueName ?? ""
            let unknowing = !self.probesAnswered.contains(running) && self.probesFailed.contains(running)
            // Once the bus said NoReply, the server's late answer reaches nobody.
            var gaveUp = false
            var handled = false
            if (server.hung || server.holdsNotifies) && server.busTimesOut {
                self.onLoop(after: FakeNotificationServer.busReplyTimeout) {
                    guard !handled else { return }
                    gaveUp = true
                    answered(.failure(FakeNotificationServer.timedOut))
                }
            }
            // The request holds its connection: a Notify the server holds is still handled when it
            // wakes after the sender died (it was in the server's queue), its card up and its reply
            // lost with the sender (`orphaned`).
            server.handle(
                {
                    handled = true
                    server.notify(
                        call, from: self, sentAt: sentAt, sentMonotonic: sentMonotonic, unknowing: unknowing,
                        answered: { result in if !gaveUp { answered(result) } }, gaveUp: { gaveUp })
                },
                exited: { [weak self] in
                    // The bus answers once: its NoReply for the exit, or the one for its timeout.
                    guard !gaveUp, !handled else { return }
                    handled = true
                    self?.reply(answered, .failure(FakeNotificationServer.leftWithoutReply))
                }, isNotify: true, call: "\((call.start?.at ?? Instant(seconds: 0)).rfc3339) \(call.summary)")
        }

        func close(id: UInt32, server uniqueName: String?) {
            guard !self.dropped else { return }
            if let uniqueName, uniqueName == self.server.replaced?.uniqueName {
                self.server.closeReplaced(id)
                return
            }
            // An id of another instance means nothing here: only its giver can close it.
            guard let running = self.server.uniqueName, uniqueName == nil || uniqueName == running else { return }
            self.server.closeAsked.insert(id)
            self.server.handle { [weak server = self.server] in server?.close(id) }
        }

        func sessionEnvironment(completion: @escaping (Result<[String], BusError>) -> Void) {
            guard !self.dropped, self.server.userManagerAnswers else { return completion(.failure(Self.notConnected)) }
            // A session with no display: nothing the bus could start a server on.
            self.reply(completion, .success(["HOME=/home/her", "LANG=C.UTF-8"]))
        }

        func readDoNotDisturb(
            _ query: DoNotDisturbQuery, timeout: UInt64,
            completion: @escaping (Result<ServerDoNotDisturb, BusError>) -> Void
        ) {
            guard !self.dropped else { return completion(.failure(Self.notConnected)) }
            self.server.call(from: self, timeout: timeout, reply: completion) { [unowned server = self.server] in
                server.doNotDisturb
            }
        }

        func followDoNotDisturb(
            serverName: String, changed: @escaping (ServerDoNotDisturb?) -> Void, settled: @escaping () -> Void
        ) -> any DoNotDisturbFollowing {
            let followed = OnEveryDesktop.doNotDisturbFollow(serverName: serverName) != nil
            let subscription = FakeDoNotDisturbFollowing(
                serverName: serverName, followed: followed,
                subscription: followed ? self.subscribe(.doNotDisturb(changed)) : nil)
            settled()
            return subscription
        }

        func followShowBanners(
            environment: [String: String], changed: @escaping (ServerDoNotDisturb) -> Void
        )
            -> AnyObject?
        {
            // No GSettings here: only GNOME Shell and Phosh keep their switch there.
            nil
        }
    }

    /// What a connection's subscription hears.
    final class FakeSubscription {
        enum Kind {
            case actionInvoked((UInt32, String, String?) -> Void)
            case closed((UInt32, Notifications.CloseReason, String?) -> Void)
            case ownerChanged((String?, String?) -> Void)
            case leaving(String, () -> Void)
            case doNotDisturb((ServerDoNotDisturb?) -> Void)
            case disconnected(() -> Void)
        }
        let kind: Kind

        init(kind: Kind) {
            self.kind = kind
        }
    }

    /// A subscription lasts while its subscriber keeps it.
    struct WeakSubscription {
        weak var subscription: FakeSubscription?
    }

    /// The subscription to the fake's Do Not Disturb signal.
    final class FakeDoNotDisturbFollowing: DoNotDisturbFollowing {
        let serverName: String
        let followed: Bool
        private let subscription: FakeSubscription?

        init(serverName: String, followed: Bool, subscription: FakeSubscription?) {
            self.serverName = serverName
            self.followed = followed
            self.subscription = subscription
        }
    }
}
