// What the machine keeps about the calls it put on the server's screen, besides the list that
// survives a restart (`PersistedState.delivered`): where each call is in its life (`CallPhase`),
// and its close at its expiresAt. None of it outlives the daemon: after a restart the list alone
// is trusted, and the ids in it are checked against the server instance that answers
// (`identifyServer`).

/// Where one call is in its life, as the machine holds it. One phase at a time: a call cannot be
/// both waiting for a server and taken back, which four parallel maps once allowed to be written.
enum CallPhase: Sendable {
    /// Delivered, and no server took it: posted again when its retry timer fires, or at once when
    /// a server takes the name.
    case waitingForServer(Repost)
    /// Its post is out and wanted. `repost` is what to post again if no server takes it: the
    /// carer's sample has none, it is never posted again.
    case posting(PostOut, repost: Repost?)
    /// On the server's screen with its id (the delivered list holds it); or on that list with
    /// nothing of it out or waiting: from before the daemon's restart, where it may be shown, or
    /// no longer to be posted again.
    case shown
    /// Taken back while its post was out (a return, a newer call, its end): closed the moment its
    /// id arrives; history then says `delivered` and `saying`, or `dropped` if no server took it.
    case takenBack(PostOut, saying: HistoryRecord?)

    var isShown: Bool {
        if case .shown = self { return true }
        return false
    }
}

/// One call in hand: its phase, and its close at its end while it is delivered.
struct CallInHand: Sendable {
    var phase: CallPhase
    /// Its close at its `expiresAt`, in the machine's wheel.
    var expiry: TimerID?
}

/// The on-screen bookkeeping of one machine, in one place.
struct CallsInHand: Sendable {
    private var calls: [DeliveryKey: CallInHand] = [:]
    /// Calls already posted again after a server restart wiped their card: once, never twice,
    /// whatever phase they went through since.
    private var postedAgainAfterRestart: Set<DeliveryKey> = []
    /// Calls on screen from before the daemon's own restart: she may have dismissed their card
    /// while no daemon heard it, so a server's leaving never brings them back.
    var fromBeforeRestart: Set<DeliveryKey> = []
    /// The last few ids the server closed itself, with the instance that said so: a click that
    /// arrives after its close still counts.
    private var closedByServer: [(id: UInt32, server: String?)] = []
    /// Calls a server took and keeps out of sight under a Do Not Disturb the household does not
    /// respect, with whether their bell rang: shown once when the switch goes off.
    var hiddenByDoNotDisturb: [DeliveryKey: Bool] = [:]

    /// Where `key` is in its life; nil for a call the machine holds nothing of.
    func phase(of key: DeliveryKey) -> CallPhase? {
        self.calls[key]?.phase
    }

    // MARK: Its close at its end

    /// `key`'s close at its end, while one is in the wheel.
    func expiry(of key: DeliveryKey) -> TimerID? {
        self.calls[key]?.expiry
    }

    /// `key` closes at its end with wheel timer `id`. A call the machine held nothing else of is
    /// one on the list (from before a restart, or shown).
    mutating func expires(_ key: DeliveryKey, with id: TimerID) {
        self.calls[key, default: CallInHand(phase: .shown)].expiry = id
    }

    /// `key`'s close at its end is gone (it fired, or the call left): the timer it was, to cancel.
    mutating func removeExpiry(_ key: DeliveryKey) -> TimerID? {
        let id = self.calls[key]?.expiry
        self.calls[key]?.expiry = nil
        self.forgetIfDone(key)
        return id
    }

    /// A new wheel: no close is in it any more.
    mutating func forgetExpiries() {
        for key in Array(self.calls.keys) {
            self.calls[key]?.expiry = nil
            self.forgetIfDone(key)
        }
    }

    // MARK: Waiting for a server

    /// What to post again of `key` if no server takes it: while it waits for one, or its post is out.
    func repost(_ key: DeliveryKey) -> Repost? {
        switch self.calls[key]?.phase {
        case .waitingForServer(let repost): repost
        case .posting(_, let repost): repost
        default: nil
        }
    }

    /// Keeps `repost` for `key`: with its post where the post is out, else waiting for a server.
    /// A call taken back is nobody's to post again, and stays taken back.
    mutating func keep(_ repost: Repost, for key: DeliveryKey) {
        switch self.calls[key]?.phase {
        case .posting(let out, _): self.calls[key]?.phase = .posting(out, repost: repost)
        case .takenBack: return
        default: self.calls[key, default: CallInHand(phase: .shown)].phase = .waitingForServer(repost)
        }
    }

    /// `key` is not to be posted again (a server took it, or it left): what was kept, to cancel
    /// its retry timer. A post that is out stays out.
    mutating func removeRepost(_ key: DeliveryKey) -> Repost? {
        switch self.calls[key]?.phase {
        case .waitingForServer(let repost):
            self.calls[key]?.phase = .shown
            self.forgetIfDone(key)
            return repost
        case .posting(let out, let repost):
            self.calls[key]?.phase = .posting(out, repost: nil)
            return repost
        default:
            return nil
        }
    }

    /// Whether any call waits for a server, or has a post out that would be posted again.
    var anyAwaitsAServer: Bool {
        self.calls.keys.contains { self.repost($0) != nil }
    }

    /// The calls waiting for a server with a retry timer in the wheel.
    var waitingWithTimer: [(key: DeliveryKey, timer: TimerID)] {
        self.calls.compactMap { key, call in
            guard case .waitingForServer(let repost) = call.phase, let timer = repost.timer else { return nil }
            return (key, timer)
        }.sorted { $0.key < $1.key }
    }

    // MARK: Its post

    /// A post of `key` goes out now, to the server instance `server` (nil while none is known),
    /// with `repost` to post again if no server takes it.
    mutating func posting(
        _ key: DeliveryKey, to server: String?, at now: Instant, repost: Repost?, replacing: ReplacedCard? = nil
    ) {
        self.calls[key, default: CallInHand(phase: .shown)].phase = .posting(
            PostOut(sentTo: server, sentAt: now, replacing: replacing), repost: repost)
    }

    private func postOut(_ key: DeliveryKey) -> PostOut? {
        switch self.calls[key]?.phase {
        case .posting(let out, _), .takenBack(let out, _): out
        default: nil
        }
    }

    /// `key`'s Notify left at `now`, later than the post was decided where it waited on the loop.
    mutating func leaves(_ key: DeliveryKey, at now: Instant) {
        guard case .posting(var out, let repost) = self.calls[key]?.phase else { return }
        out.sentAt = now
        self.calls[key]?.phase = .posting(out, repost: repost)
    }

    /// The card `key`'s post was to replace in place, while the post is out.
    func replacing(_ key: DeliveryKey) -> ReplacedCard? {
        self.postOut(key)?.replacing
    }

    /// When `key`'s post went out, while it is out.
    func sentAt(_ key: DeliveryKey) -> Instant? {
        self.postOut(key)?.sentAt
    }

    /// Whether `key`'s post is out, and still wanted (not taken back since).
    func awaitsPost(_ key: DeliveryKey) -> Bool {
        if case .posting? = self.calls[key]?.phase { return true }
        return false
    }

    /// The server instance `key`'s post went to, if it is out and one was known.
    func sentTo(_ key: DeliveryKey) -> String? {
        self.postOut(key)?.sentTo
    }

    /// No answer came in time for `key`'s post: the server may still show it. It stays out (a late
    /// id is still taken, and closed if it was taken back) and is not posted again meanwhile.
    mutating func outcomeUnknown(_ key: DeliveryKey) {
        switch self.calls[key]?.phase {
        case .posting(var out, let repost):
            out.outcomeUnknown = true
            self.calls[key]?.phase = .posting(out, repost: repost)
        case .takenBack(var out, let record):
            out.outcomeUnknown = true
            self.calls[key]?.phase = .takenBack(out, saying: record)
        default: return
        }
    }

    /// Posts whose outcome is unknown, oldest first: those the server's leaving proves unseen.
    var unknownOutcomes: [DeliveryKey] {
        self.calls.keys.filter { self.postOut($0)?.outcomeUnknown == true }.sorted()
    }

    /// Whether `key`'s post is out, wanted or not.
    func isInFlight(_ key: DeliveryKey) -> Bool {
        self.postOut(key) != nil
    }

    /// Whether no server has taken `key` yet: its post is out, or it waits to be posted again.
    func isUnanswered(_ key: DeliveryKey) -> Bool {
        self.isInFlight(key) || self.repost(key) != nil
    }

    /// Takes back a call whose post is out: it is closed the moment its id arrives, and history
    /// says `record` then (with `delivered` before it), or `dropped` if no server took it. A
    /// record given before stays where none is given now. Returns false where no post of `key`
    /// is out.
    mutating func takeBack(_ key: DeliveryKey, saying record: HistoryRecord?) -> Bool {
        switch self.calls[key]?.phase {
        case .posting(let out, _): self.calls[key]?.phase = .takenBack(out, saying: record)
        case .takenBack(let out, let before): self.calls[key]?.phase = .takenBack(out, saying: record ?? before)
        default: return false
        }
        return true
    }

    /// Takes back every post that is out (the display returned).
    mutating func takeBackEveryPost() {
        for key in Array(self.calls.keys) { _ = self.takeBack(key, saying: nil) }
    }

    /// The server answered `key`'s post, with an id or an error: whether it was taken back
    /// meanwhile (close it), and what history was to say of it. A call still wanted keeps what
    /// it would be posted again with, now waiting for a server: the caller decides.
    mutating func answered(_ key: DeliveryKey) -> (takenBack: Bool, left: HistoryRecord?) {
        switch self.calls[key]?.phase {
        case .posting(_, let repost):
            self.calls[key]?.phase = repost.map { .waitingForServer($0) } ?? .shown
            self.forgetIfDone(key)
            return (false, nil)
        case .takenBack(_, let record):
            self.calls[key]?.phase = .shown
            self.forgetIfDone(key)
            return (true, record)
        default:
            return (false, nil)
        }
    }

    /// A call shown with no close in the wheel is nothing the machine holds: the list has it.
    private mutating func forgetIfDone(_ key: DeliveryKey) {
        if case .shown? = self.calls[key]?.phase, self.calls[key]?.expiry == nil { self.calls[key] = nil }
    }

    // MARK: Restarts and closes

    /// Whether `key` may be posted again after a server restart wiped its card: once only.
    mutating func mayPostAgainAfterRestart(_ key: DeliveryKey) -> Bool {
        !self.fromBeforeRestart.contains(key) && self.postedAgainAfterRestart.insert(key).inserted
    }

    /// The server `server` closed `id` itself.
    mutating func serverClosed(_ id: UInt32, by server: String?) {
        self.closedByServer = Array((self.closedByServer + [(id, server)]).suffix(8))
    }

    /// Whether `server` (or, unknown, any) closed `id` itself lately.
    func closedByServer(_ id: UInt32, by server: String?) -> Bool {
        self.closedByServer.contains { $0.id == id && (server == nil || $0.server == nil || $0.server == server) }
    }

    // MARK: Invariants

    /// The call lifecycle's invariants, in one place, against the list of calls delivered: the
    /// simulator checks them after every step. (The carer's sample is never on the list.)
    func invariantViolations(delivered: [DeliveredCall]) -> [String] {
        var broken: [String] = []
        let listed = Dictionary(delivered.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        for (key, call) in self.calls.sorted(by: { $0.key < $1.key }) {
            let name = "the call at \(key.at.rfc3339)"
            let onList = listed[key] != nil
            switch call.phase {
            case .waitingForServer(let repost):
                if !key.isSample && !onList { broken.append("\(name) waits to be posted again but is not delivered") }
                if repost.timer == nil { broken.append("\(name) waits for a server with no retry timer") }
            case .posting(_, let repost):
                if !key.isSample && !onList {
                    broken.append("\(name) has a post out that is wanted but is not delivered")
                }
                if repost?.timer != nil { broken.append("\(name) has a post out and a retry timer as well") }
                if key.isSample && repost != nil { broken.append("the carer's sample would be posted again") }
            case .shown:
                if !onList { broken.append("\(name) has a close at its end but is not delivered") }
            case .takenBack:
                if !key.isSample && onList { broken.append("\(name) is taken back but still delivered") }
                if call.expiry != nil { broken.append("\(name) is taken back but still closes at its end") }
            }
            // A server's id means a server took it: nothing of it is out or waiting any more.
            if listed[key]?.notificationId != nil && !call.phase.isShown {
                broken.append("\(name) has a server's id but is not shown")
            }
        }
        return broken
    }
}

/// One post that is out: where it went, and whether its outcome is known.
struct PostOut: Sendable {
    /// The server instance that was answering when the post went out (nil while none was known).
    let sentTo: String?
    /// When it went out: history tells a server's slow answer from a call posted after its minute.
    /// The machine's decision first, then the time its Notify left (`leaves`).
    var sentAt: Instant
    /// No answer came in time: the server may still show it.
    var outcomeUnknown = false
    /// The card this post takes the place of in place (`replaces_id`), on `sentTo`: still up
    /// until a server takes the post, so closed where none does.
    var replacing: ReplacedCard? = nil
}

/// A card a post replaces in place: the call it showed, and its id.
struct ReplacedCard: Sendable, Equatable {
    let key: DeliveryKey
    let id: UInt32
}
