// How a call reaches her: the notifier posts and closes every notification itself, over one
// long-lived connection (GNOME lets only the posting connection close one, and ignores expire
// timeouts). `log` (LogNotifier.swift) writes calls to the journal where no server runs.

import DaysomeCore
import Glibc
import SystemdKit

/// What the daemon knows of the notification server, and what it does for it.
struct ServerInfo: Sendable, Equatable {
    var name: String?
    var present: Bool
    var capabilities: [String]
    /// The urgency the next call gets there, and why (`OnEveryDesktop.urgency`).
    var choice: UrgencyChoice? = nil
    /// What the server last said of its Do Not Disturb (followed live, or read just before a call:
    /// `doNotDisturbSource` tells which).
    var doNotDisturb: ServerDoNotDisturb = .unknown
    /// How the daemon knows it.
    var doNotDisturbSource: DoNotDisturbKnowledge = .unreadable
    /// Its vendor (`GetServerInformation`), for the quirks that name and vendor tell apart.
    var vendor: String? = nil
    /// Why calls wait for a server: kept from the post that found none until the calls it held
    /// back are posted or dropped (`Notifier.noCallWaits`), whatever probes learn meanwhile.
    var waiting: String? = nil
}

/// Posts and closes calls; replies come back through the loop.
protocol Notifier: AnyObject {
    /// What the server says of itself (refreshed when it restarts).
    var server: ServerInfo { get }
    /// Which server instance answers now (the bus's id and the server's unique name on it), nil
    /// when none runs: a notification id means something only to the instance that gave it.
    var instance: String? { get }
    /// Posts a call, in place of the call `replacing` still on screen (0 for none); `completion`
    /// gets the server's id or why it failed. A post may wait on the loop for an answer that
    /// decides it (is there a display to start a server for, which server runs, is a Do Not
    /// Disturb on): `leavesAt` is asked just before the Notify goes out, and says the time it
    /// leaves at, or nil where it may not leave any more (her return meanwhile, or a clock stepped
    /// out of its window): then nothing is sent at all, and it fails as `withheld`. Whatever
    /// happens meanwhile, `completion` runs once.
    /// Without `mayStartServer` a post never has the bus start a server: it waits for one.
    func post(
        _ start: Start, replacing: UInt32, mayStartServer: Bool, leavesAt: @escaping () -> Instant?,
        completion: @escaping (Result<PostAnswer, NotifierError>) -> Void)
    /// Closes a call the daemon posted, on the server instance that gave its id (`instance`'s form;
    /// nil for the one answering now): another may own the name since.
    func close(_ id: UInt32, on instance: String?)
    /// No call waits for a server any more (each was posted, or dropped): why they waited is over.
    func noCallWaits()
    /// Whether it asks a server for its Do Not Disturb (the bell then waits for the answer).
    var readsDoNotDisturb: Bool { get }
    /// Reads the server's Do Not Disturb afresh where a respected one could hold the bell, then
    /// runs `then` from the loop: for a bell with no call before it (`daysomectl try`).
    func readDoNotDisturbForTheBell(then: @escaping () -> Void)
    /// Whether a respected Do Not Disturb holds the bell now.
    func holdsTheBell() -> Bool
}

extension Notifier {
    var readsDoNotDisturb: Bool { false }

    func readDoNotDisturbForTheBell(then: @escaping () -> Void) {
        then()
    }

    func holdsTheBell() -> Bool { false }

    /// Posts a call that takes no other's place.
    func post(_ start: Start, now: Instant, completion: @escaping (Result<PostAnswer, NotifierError>) -> Void) {
        self.post(start, replacing: 0, mayStartServer: true, leavesAt: { now }, completion: completion)
    }

    func noCallWaits() {}
}

/// A server took a call: its id, and the instance that gave it (`Notifier.instance`'s form), which
/// may no longer be the one answering now.
struct PostAnswer: Sendable, Equatable {
    let id: UInt32
    let instance: String?
    /// Why the server holds the card out of sight, where it says so (`OnEveryDesktop.held`).
    var held: String? = nil
    /// A respected Do Not Disturb was on when the call went out: the bell waits with the banner.
    var bellHeld = false
}

/// Why a post failed, in the server's or the bus's words.
struct NotifierError: Error, Sendable {
    let message: String
    /// Whether no server answered (worth posting again) or the server refused the call.
    var failure: PostFailure = .refused
}

/// org.freedesktop.Notifications, through its peer (NotificationsPeer.swift): the session bus,
/// or the embedded world's fake server.
final class FreedesktopNotifier: Notifier {
    let readsDoNotDisturb = true
    private let peer: any NotificationsPeer
    private(set) var server = ServerInfo(name: nil, present: false, capabilities: [])
    private(set) var instance: String?
    private var subscriptions: [AnyObject] = []

    /// Whether a Do Not Disturb holds calls back: the household's choice, else the daemon's `--dnd`.
    private let respectDoNotDisturb: () -> Bool
    /// The daemon's own environment: where the session's display is looked for when no user
    /// manager answers on the bus.
    private let environment: [String: String]
    /// Runs when a probe's answer changed what is known of the server (status publishes it).
    private let learned: () -> Void
    /// Runs when a server another took the name over from leaves the bus, with its instance.
    private let left: (String) -> Void
    /// Servers another took the name over from, that still ran then: watched until they leave.
    private var previousServers: [String: AnyObject] = [:]
    /// The unique name that owned the server's name, while the bus is asked whether it still
    /// runs: until the machine knows, an id it gave is closed or replaced only there.
    private var changingFrom: String?
    /// Who owns the name, as the bus last said: a server may take it before the answer about
    /// the one before it came (its service manager restarted it at once).
    private var owner: String?
    /// Where a probe that found the server not yet answering is tried again.
    private let loop: any Loop
    private var retry: (any LoopSource)?
    private var retries = 0
    /// The name and vendor of the server that answered last. A call posted while none runs
    /// (MATE's quits when idle, and the post starts it again) is made for that one, since it is
    /// what the bus starts: its urgency, and the reason status gives, are that server's.
    private var lastServer: (name: String?, vendor: String?) = (nil, nil)
    /// The subscription to the running server's Do Not Disturb signal, while it answers.
    private var doNotDisturbWatch: (any DoNotDisturbFollowing)?
    /// The watch on GSettings' `show-banners`, while GNOME Shell or Phosh answers.
    private var bannersWatch: AnyObject?

    /// Subscribes to the server's signals; `ownerChanged` runs when the name changed owner, with
    /// the instance before and whether the bus said it still runs (the machine tells a restart
    /// from a takeover), and `left` when one that still ran then leaves the bus; `closedByServer` when
    /// a server closed a card itself (with its reason), `clicked` when she activates a call (its
    /// `default` action), each with the instance that said so, and `learned` when a probe answered.
    init(
        peer: any NotificationsPeer, loop: any Loop, environment: [String: String],
        respectDoNotDisturb: @escaping () -> Bool,
        closedByServer: @escaping (UInt32, UInt32, String?) -> Void, clicked: @escaping (UInt32, String?) -> Void,
        ownerChanged: @escaping (String, Bool?) -> Void, left: @escaping (String) -> Void,
        appeared: @escaping () -> Void, learned: @escaping () -> Void, askOwnerNow: Bool = true
    ) throws(Errno) {
        self.peer = peer
        self.environment = environment
        self.respectDoNotDisturb = respectDoNotDisturb
        self.learned = learned
        self.left = left
        self.loop = loop
        // Each signal names the instance that sent it: a server another took the name over from
        // still sends them, for its own ids.
        let instance = { (name: String) in "\(peer.busId) \(name)" }
        let sentBy = { (sender: String?) in sender.map(instance) }
        self.subscriptions.append(
            try peer.subscribeActionInvoked { id, key, sender in
                if key == "default" { clicked(id, sentBy(sender)) }
            })
        self.subscriptions.append(
            try peer.subscribeNotificationClosed { id, reason, sender in
                // Reason 3 is our own CloseNotification; the others are the server's or her doing.
                if reason != .closedByCall { closedByServer(id, reason.rawValue, sentBy(sender)) }
            })
        self.subscriptions.append(
            try peer.subscribeOwnerChanged { [weak self] old, new in
                guard let self else { return }
                self.owner = new
                guard let old else {
                    // While the bus is asked about the owner before it, that answer comes first:
                    // the daemon hears what became of the old one's cards (restarted, taken over),
                    // and learns then which instance answers, this one.
                    guard self.changingFrom == nil else { return }
                    // A server that appears where none was (a post activated it, or the session
                    // started one) voids no id, and calls waiting for a server go to it at once.
                    self.instance = new.map(instance)
                    if new != nil {
                        self.refresh()
                        appeared()
                    }
                    return
                }
                // The old owner exited (a restart: its cards went with it), or it still runs while
                // another took the name over (its cards stay, and only it can close them). The bus
                // driver answers after it has handled an exit, so the answer tells them apart; the
                // machine decides which it was. One that still runs is watched until it leaves.
                self.changingFrom = old
                self.peer.isOnBus(old) { [weak self] running in
                    guard let self else { return }
                    if self.changingFrom == old { self.changingFrom = nil }
                    self.instance = self.owner.map(instance)
                    if self.owner == nil { self.serverGone() } else { self.refresh() }
                    let previous = instance(old)
                    if running == true {
                        self.previousServers[old] = try? self.peer.subscribeLeaving(old) { left(previous) }
                    }
                    ownerChanged(previous, running)
                }
            })
        // The bus driver says whether a server runs, and which; asking never starts one. At
        // start-up, before the loop runs, the answer is waited for: the first decision needs to
        // know which instance stamped the ids kept across the restart. On a reconnect, from the
        // loop, it comes back when it comes.
        guard askOwnerNow else {
            peer.serverOwner { [weak self] result in
                // A change of owner the bus said meanwhile is newer than this answer.
                guard let self, self.instance == nil, self.changingFrom == nil, case .success(let owner?) = result
                else { return }
                self.owner = owner
                self.instance = instance(owner)
                self.refresh()
                appeared()
            }
            return
        }
        self.owner = (try? peer.serverOwner()).flatMap { $0 }
        self.instance = self.owner.map(instance)
        if self.instance != nil {
            self.server.present = true
            self.refresh()
        }
    }

    /// Whether the server instance `earlier` (`instance`'s form: "busId uniqueName"), which
    /// stamped ids an earlier daemon kept, still runs: asked at start-up, before the loop runs.
    /// One that runs is watched until it leaves, its cards with it. False where it was on another
    /// bus (that bus, and every connection on it, is gone); nil where the bus cannot tell.
    func stillRuns(_ earlier: String) -> Bool? {
        let parts = earlier.split(separator: " ", maxSplits: 1).map(String.init)
        guard parts.count == 2, parts[0] != "?", self.peer.busId != "?" else { return nil }
        guard parts[0] == self.peer.busId else { return false }
        let uniqueName = parts[1]
        // Watched before it is asked about: a server that leaves in between is still heard.
        let left = self.left
        let watch = try? self.peer.subscribeLeaving(uniqueName) { left(earlier) }
        guard let running = try? self.peer.isOnBus(uniqueName) else { return nil }
        if running, self.previousServers[uniqueName] == nil { self.previousServers[uniqueName] = watch }
        return running
    }

    /// The server (or the bus under it) went away: nothing can be posted until one is back.
    func serverGone() {
        self.server = ServerInfo(name: nil, present: false, capabilities: [], waiting: self.server.waiting)
        self.doNotDisturbWatch = nil
        self.bannersWatch = nil
    }

    /// Asks the running server for its name and capabilities, from the loop, without ever
    /// starting a server; `then` runs once the answer is in, whatever it says (also where this
    /// notifier is gone by then).
    func refresh(then: (() -> Void)? = nil) {
        self.server.present = true
        self.peer.probeServer { [weak self] result in
            defer { then?() }
            guard let self else { return }
            switch result {
            case .success(let info):
                self.retries = 0
                // A server that answers a probe has not taken the calls that wait yet: still waiting.
                // The same server keeps what it said of its Do Not Disturb until it says more.
                let same = info.name == self.server.name
                self.server = ServerInfo(
                    name: info.name, present: true, capabilities: info.capabilities,
                    doNotDisturb: same ? self.server.doNotDisturb : .unknown,
                    doNotDisturbSource: same ? self.server.doNotDisturbSource : .unreadable, vendor: info.vendor,
                    waiting: self.server.waiting)
                self.lastServer = (info.name, info.vendor)
                self.server.choice = self.choose()
                self.followDoNotDisturb()
            case .failure:
                // A slow server (GNOME's proxy on a busy machine) may answer the next probe. Whether
                // one owns the name is known from NameOwnerChanged: no blocking call on the loop.
                let running = self.instance != nil
                self.server = ServerInfo(
                    name: nil, present: running, capabilities: [], waiting: self.server.waiting)
                if running { self.probeAgain() }
            }
            self.learned()
        }
    }

    /// A server that owns its name but does not answer yet (GNOME's notification service just
    /// after it starts) is asked again a second later, up to five times.
    private func probeAgain() {
        guard self.retries < 5 else { return }
        self.retries += 1
        self.retry = try? self.loop.timer(clock: CLOCK_MONOTONIC, after: 1_000_000, description: "server probe") {
            [weak self] in
            self?.refresh()
        }
    }

    /// The urgency a call gets on this server now, and why.
    private func choose() -> UrgencyChoice {
        OnEveryDesktop.urgency(
            serverName: self.server.name ?? self.lastServer.name, vendor: self.server.vendor ?? self.lastServer.vendor,
            doNotDisturb: self.server.doNotDisturb,
            respectDoNotDisturb: self.respectDoNotDisturb())
    }

    /// Subscribes to the running server's Do Not Disturb signal (once per server), then reads
    /// its value: subscribing first, so that a switch between the two is never lost.
    private func followDoNotDisturb() {
        guard let name = self.server.name else { return }
        if OnEveryDesktop.followsShowBanners(serverName: name) {
            self.followShowBanners()
            return
        }
        self.bannersWatch = nil
        if self.doNotDisturbWatch?.serverName != name {
            self.doNotDisturbWatch = self.peer.followDoNotDisturb(
                serverName: name,
                changed: { [weak self] state in
                    guard let self, self.server.name == name else { return }
                    guard let state else {
                        self.readDoNotDisturb()
                        return
                    }
                    self.server.doNotDisturb = state
                    self.server.choice = self.choose()
                    self.learned()
                },
                settled: { [weak self] in
                    guard let self, self.server.name == name else { return }
                    self.server.doNotDisturbSource = self.doNotDisturbSource()
                    self.learned()
                })
        }
        self.server.doNotDisturbSource = self.doNotDisturbSource()
        self.readDoNotDisturb()
    }

    /// GNOME Shell and Phosh keep their switch in GSettings, not on the bus: followed there.
    private func followShowBanners() {
        self.doNotDisturbWatch = nil
        if self.bannersWatch == nil {
            let name = self.server.name
            self.bannersWatch = self.peer.followShowBanners(environment: self.environment) { [weak self] state in
                guard let self, self.server.name == name, state != self.server.doNotDisturb else { return }
                self.server.doNotDisturb = state
                self.server.choice = self.choose()
                self.learned()
            }
        }
        self.server.doNotDisturbSource = self.bannersWatch == nil ? .unreadable : .followed
    }

    /// How the running server's Do Not Disturb is known: followed where its signal is
    /// subscribed, read before calls where only a query tells it, unreadable elsewhere.
    private func doNotDisturbSource() -> DoNotDisturbKnowledge {
        if self.doNotDisturbWatch?.followed == true { return .followed }
        return OnEveryDesktop.doNotDisturbQuery(serverName: self.server.name) == nil ? .unreadable : .readBeforeCalls
    }

    /// Reads the server's Do Not Disturb where the bus can tell it (`OnEveryDesktop.doNotDisturbQuery`:
    /// dunst's `paused`, xfce4-notifyd's xfconf setting, swaync's `GetDnd`, mako's modes), in the
    /// background; `then` runs once the answer (or its absence: a frozen server, a timeout) is in.
    private func readDoNotDisturb(then: @escaping () -> Void = {}) {
        guard let query = OnEveryDesktop.doNotDisturbQuery(serverName: self.server.name) else {
            then()
            return
        }
        // Short: a frozen server delays the call it decides by this much at most, never the loop.
        self.peer.readDoNotDisturb(query, timeout: 500_000) { [weak self] result in
            // Whatever it says now, `unknown` included (mako with a mode of the user's own):
            // an earlier answer is no longer its word.
            let answer: ServerDoNotDisturb?
            switch result {
            case .success(let state): answer = state
            case .failure(let error) where query.neverSetError != nil && error.name == query.neverSetError:
                answer = .off
            case .failure: answer = nil
            }
            if let self, let state = answer {
                self.server.doNotDisturb = state
                self.server.choice = self.choose()
                self.learned()
            }
            then()
        }
    }

    /// Whether the session has a display a notification server could be started on: a non-empty
    /// `DISPLAY` or `WAYLAND_DISPLAY` in the user manager's environment (what a bus-activated
    /// server gets; the graphical session imports them there), else in the daemon's own where no
    /// manager answers (`SessionDisplay`).
    private func sessionHasDisplay(_ completion: @escaping (Bool, PostRoute.DisplayWitness) -> Void) {
        let own = SessionDisplay.isNamed(in: self.environment)
        self.peer.sessionEnvironment { result in
            switch result {
            case .success(let variables):
                completion(SessionDisplay.isNamed(inEntries: variables), .userManager)
            case .failure:
                completion(own, .daemonsOwnEnvironment)
            }
        }
    }

    func post(
        _ start: Start, replacing: UInt32, mayStartServer: Bool, leavesAt: @escaping () -> Instant?,
        completion: @escaping (Result<PostAnswer, NotifierError>) -> Void
    ) {
        let post = PendingPost(
            start: start, replacing: replacing, leavesAt: leavesAt, madeFor: self.owner, completion: completion)
        self.follow(
            PostRoute.whenPosting(
                serverOwnsTheName: self.instance != nil, serverHasSaidWhoItIs: self.serverHasSaidWhoItIs,
                mayStartServer: mayStartServer),
            post)
    }

    /// Whether the running server has said who it is. One gone with its bus (`serverGone`) cannot
    /// be asked: the Notify's own failure says so.
    private var serverHasSaidWhoItIs: Bool { self.server.name != nil || !self.server.present }

    /// Takes `post` along its route (`PostRoute`): each question is asked on the loop, and its
    /// answer routes the post on.
    private func follow(_ route: PostRoute, _ post: PendingPost) {
        switch route {
        case .wait(let reason):
            // A post that waits is posted again once a server owns the name (NameOwnerChanged).
            self.server.waiting = reason
            self.learned()
            post.fail(reason, .serverUnavailable)
        case .askWhetherTheSessionHasADisplay:
            self.sessionHasDisplay { [weak self] display, witness in
                guard let self else { return post.fail(PendingPost.connectionClosed, .serverUnavailable) }
                self.follow(
                    PostRoute.afterAsking(
                        sessionHasDisplay: display, saidBy: witness, serverOwnsTheName: self.instance != nil,
                        serverHasSaidWhoItIs: self.serverHasSaidWhoItIs),
                    post)
            }
        case .askWhoTheServerIs:
            self.refresh { [weak self] in
                guard let self else { return post.fail(PendingPost.connectionClosed, .serverUnavailable) }
                // Whatever it said: a server that does not answer is posted to as before.
                self.follow(.send, post)
            }
        case .send:
            // A Do Not Disturb is read just before a call only where the household's choice needs
            // it; elsewhere it is read beside the call, so that status tells the server's word as
            // of its last call without the call waiting for it.
            // A server that sends no word when its switch moves (mako 1.7) is asked just before, so
            // that history can say whether it holds the call.
            if OnEveryDesktop.doNotDisturbDecides(serverName: self.server.name, respect: self.respectDoNotDisturb())
                || self.server.doNotDisturbSource == .readBeforeCalls
            {
                self.readDoNotDisturb { [weak self] in
                    guard let self else { return post.fail(PendingPost.connectionClosed, .serverUnavailable) }
                    self.send(post)
                }
            } else {
                self.send(post)
                self.readDoNotDisturb()
            }
        }
    }

    /// The Notify leaves now, if the call may still go.
    private func send(_ post: PendingPost) {
        // The card's expire timeout counts from when the Notify leaves, not from when the call was
        // decided: a clock stepped meanwhile must not end it early.
        guard let now = post.leavesAt() else { return post.fail("held back before it was posted", .withheld) }
        self.notify(post, now: now)
    }

    /// The Notify itself.
    private func notify(_ post: PendingPost, now: Instant) {
        let start = post.start
        let completion = post.completion
        var replacing = post.replacing
        // The name is changing owner, or changed it while the post waited: the id to replace is
        // the old owner's, and the new one would take it for one of its own. It is closed where it
        // was given instead.
        let earlier = self.changingFrom ?? (post.madeFor != self.owner ? post.madeFor : nil)
        if replacing != 0, let old = earlier {
            self.peer.close(id: replacing, server: old)
            replacing = 0
        }
        let text = Content.notification(start, markup: self.server.capabilities.contains("body-markup"))
        let choice = self.choose()
        self.server.choice = choice
        // The daemon plays its own bell: suppress-sound keeps a server that plays sounds (GNOME)
        // from calling twice for one start. The default action is what a click on the call runs.
        // The expire timeout is a backstop after the daemon's own close at expiresAt, except on
        // MATE, which hides every card that can time out under a fullscreen app: no timeout there.
        // The icon the package installs (hicolor `daysome`), named, so no server looks for a
        // generic one and logs that it found none. No timeout: a hung server may still show the
        // call when it wakes (one frozen for 43 s did, past sd-bus's 25 s default), so its reply is
        // waited for however late, and a late id is closed at once where the call was taken back.
        // The bus answers NoReply if the server leaves without answering, which proves it unseen.
        let busId = self.peer.busId
        // No server owns the name: this Notify has the bus start one (Plasma's took 40 s), and
        // status says a call waits for it meanwhile, as it does for a call posted again.
        let activating = self.instance == nil ? Self.waitingForActivation(since: now) : nil
        if let activating {
            self.server.waiting = activating
            self.learned()
        }
        let held = OnEveryDesktop.held(
            serverName: self.server.name, vendor: self.server.vendor, doNotDisturb: self.server.doNotDisturb,
            urgency: choice.urgency)
        let call = NotifyCall(
            appName: "Daysome", replacesID: replacing, icon: "daysome", summary: text.summary, body: text.body,
            actions: ["default", "Open the day"],
            hints: [
                ("urgency", .byte(choice.urgency.rawValue)), ("category", .string("x-daysome.call")),
                ("desktop-entry", .string("daysome")), ("suppress-sound", .bool(true)),
            ],
            expireTimeout: OnEveryDesktop.expireTimeout(
                expiresAt: start.expiresAt, now: now, serverName: self.server.name ?? self.lastServer.name,
                vendor: self.server.vendor ?? self.lastServer.vendor),
            start: start)
        self.peer.post(call, timeout: Bus.noTimeout) { [weak self] result in
            if let activating, let self, self.server.waiting == activating {
                self.server.waiting = nil
                self.learned()
            }
            switch result {
            case .success(let answer):
                // The id is the instance's that answered: the name may have changed owner meanwhile.
                completion(
                    .success(
                        PostAnswer(
                            id: answer.id, instance: answer.server.map { "\(busId) \($0)" }, held: held,
                            bellHeld: choice.bellHeld)))
            case .failure(let error):
                completion(
                    .failure(
                        NotifierError(
                            message: error.description,
                            failure: PostFailure(busErrorName: error.name, unsent: error.unsent))))
            }
        }
    }

    func noCallWaits() {
        self.server.waiting = nil
    }

    /// Status's words for a call whose Notify has the bus start a server.
    static func waitingForActivation(since now: Instant) -> String {
        "a call was posted at \(now.rfc3339) and waits while the bus starts a notification server for it"
    }

    func close(_ id: UInt32, on instance: String?) {
        if let instance, instance != self.instance || self.changingFrom != nil {
            // Another server owns the name now (or may: the bus is being asked): the id is closed
            // where it was given, by that server's unique name, and only while it is on this bus
            // (unique names are never reused on one bus, so this never reaches another's card).
            let parts = instance.split(separator: " ").map(String.init)
            guard parts.count == 2, parts[0] != "?", parts[0] == self.peer.busId else { return }
            self.peer.close(id: id, server: parts[1])
            return
        }
        if OnEveryDesktop.keepsClosedCards(serverName: self.server.name, vendor: self.server.vendor) {
            // notification-daemon 3.20 says NotificationClosed but leaves the bubble up; a
            // replacement that expires at once takes it down.
            let replacement = NotifyCall(
                appName: "Daysome", replacesID: id, icon: "", summary: "", body: "", actions: [],
                hints: [("transient", .bool(true))], expireTimeout: 1, start: nil)
            self.peer.post(replacement, timeout: 0) { _ in }
        }
        self.peer.close(id: id, server: nil)
    }

    /// Reads the server's Do Not Disturb afresh where a respected one could hold the bell, then
    /// runs `then` from the loop: for a bell with no call before it (`daysomectl try`).
    func readDoNotDisturbForTheBell(then: @escaping () -> Void) {
        guard self.respectDoNotDisturb(), self.server.present else {
            then()
            return
        }
        self.readDoNotDisturb(then: then)
    }

    /// Whether a respected Do Not Disturb holds the bell now: what the server last said, read
    /// just before the call this bell is for (the bell rings once the server took it).
    func holdsTheBell() -> Bool {
        guard self.respectDoNotDisturb(), self.server.present else { return false }
        return self.server.doNotDisturb == .on
    }
}

/// A post on its way to the server: the call, what it replaces, and whom it answers.
private struct PendingPost {
    let start: Start
    let replacing: UInt32
    /// Asked just before the Notify leaves: the time it leaves at, or nil where it may not.
    let leavesAt: () -> Instant?
    /// Who owned the server's name when the post was made: an id it replaces is that owner's.
    let madeFor: String?
    let completion: (Result<PostAnswer, NotifierError>) -> Void

    /// Said where the notifier was dropped (its bus went) while the post waited on an answer.
    static let connectionClosed = "the connection closed before it was posted"

    func fail(_ message: String, _ failure: PostFailure) {
        self.completion(.failure(NotifierError(message: message, failure: failure)))
    }
}
