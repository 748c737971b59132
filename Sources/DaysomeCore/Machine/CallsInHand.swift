// What the machine keeps about the calls it put on the server's screen, besides the list that
// survives a restart (`PersistedState.delivered`): each call's close at its expiresAt, its post
// in flight, a post waiting for a server, and what history says once the server answers. None of
// it outlives the daemon: after a restart the list alone is trusted, and the ids in it are
// checked against the server instance that answers (`identifyServer`).

/// The on-screen bookkeeping of one machine, in one place.
struct CallsInHand: Sendable {
    /// Each delivered call's close at its `expiresAt`, in the machine's wheel.
    var expiryTimers: [DeliveryKey: TimerID] = [:]
    /// Calls delivered that no server has taken yet, kept to be posted again if none can.
    var reposts: [DeliveryKey: Repost] = [:]
    /// Calls posted whose id has not arrived, and what is known of each post.
    private var inFlight: [DeliveryKey: PostOut] = [:]
    /// What history says of a call taken back while its post was out, once the server answers.
    private var leftInFlight: [DeliveryKey: HistoryRecord] = [:]
    /// Calls already posted again after a server restart wiped their card: once, never twice.
    private var postedAgainAfterRestart: Set<DeliveryKey> = []
    /// Calls on screen from before the daemon's own restart: she may have dismissed their card
    /// while no daemon heard it, so a server's leaving never brings them back.
    var fromBeforeRestart: Set<DeliveryKey> = []
    /// The last few ids the server closed itself, with the instance that said so: a click that
    /// arrives after its close still counts.
    private var closedByServer: [(id: UInt32, server: String?)] = []

    /// A post of `key` goes out now, to the server instance `server` (nil while none is known).
    mutating func posting(_ key: DeliveryKey, to server: String?, at now: Instant) {
        self.inFlight[key] = PostOut(sentTo: server, sentAt: now)
    }

    /// The calls with a record left for when their post is answered.
    var leftInFlightKeys: Dictionary<DeliveryKey, HistoryRecord>.Keys { self.leftInFlight.keys }

    /// When `key`'s post went out, while it is out.
    func sentAt(_ key: DeliveryKey) -> Instant? {
        self.inFlight[key]?.sentAt
    }

    /// Whether `key`'s post is out, and still wanted (not taken back since).
    func awaitsPost(_ key: DeliveryKey) -> Bool {
        self.inFlight[key]?.takenBack == false
    }

    /// The server instance `key`'s post went to, if it is out and one was known.
    func sentTo(_ key: DeliveryKey) -> String? {
        self.inFlight[key]?.sentTo
    }

    /// No answer came in time for `key`'s post: the server may still show it. It stays out (a late
    /// id is still taken, and closed if it was taken back) and is not posted again meanwhile.
    mutating func outcomeUnknown(_ key: DeliveryKey) {
        self.inFlight[key]?.outcomeUnknown = true
    }

    /// Posts whose outcome is unknown, oldest first: those the server's leaving proves unseen.
    var unknownOutcomes: [DeliveryKey] {
        self.inFlight.filter { $0.value.outcomeUnknown }.keys.sorted()
    }

    /// The calls whose post is out and still wanted.
    var wantedPosts: [DeliveryKey] {
        self.inFlight.filter { !$0.value.takenBack }.keys.sorted()
    }

    /// Whether `key`'s post is out, wanted or not.
    func isInFlight(_ key: DeliveryKey) -> Bool {
        self.inFlight[key] != nil
    }

    /// Takes back a call whose post is out: it is closed the moment its id arrives, and history
    /// says `record` then (with `delivered` before it), or `dropped` if no server took it.
    /// Returns false where no post of `key` is out.
    mutating func takeBack(_ key: DeliveryKey, saying record: HistoryRecord?) -> Bool {
        guard self.inFlight[key] != nil else { return false }
        self.inFlight[key]?.takenBack = true
        if let record { self.leftInFlight[key] = record }
        return true
    }

    /// Takes back every post that is out (the display returned).
    mutating func takeBackEveryPost() {
        for key in self.inFlight.keys { self.inFlight[key]?.takenBack = true }
    }

    /// The server answered `key`'s post, with an id or an error: whether it was taken back
    /// meanwhile (close it), and what history was to say of it.
    mutating func answered(_ key: DeliveryKey) -> (takenBack: Bool, left: HistoryRecord?) {
        let takenBack = self.inFlight.removeValue(forKey: key)?.takenBack ?? false
        return (takenBack, self.leftInFlight.removeValue(forKey: key))
    }

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
}

/// One post that is out: where it went, whether it was taken back, and whether its outcome is known.
struct PostOut: Sendable {
    /// The server instance that was answering when the post went out (nil while none was known).
    let sentTo: String?
    /// When it went out: history tells a server's slow answer from a call posted after its minute.
    let sentAt: Instant
    /// Taken back since (a return, a newer call, its expiry): close it the moment its id arrives.
    var takenBack = false
    /// No answer came in time: the server may still show it.
    var outcomeUnknown = false
}
