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
    /// Calls posted whose id has not arrived; true means withdraw it as soon as it does.
    private var inFlight: [DeliveryKey: Bool] = [:]
    /// What history says of a call taken back while its post was out, once the server answers.
    private var leftInFlight: [DeliveryKey: HistoryRecord] = [:]
    /// Calls already posted again after a server restart wiped their card: once, never twice.
    private var postedAgainAfterRestart: Set<DeliveryKey> = []
    /// The last few ids the server closed itself: a click that arrives after its close still counts.
    private(set) var closedByServer: [UInt32] = []

    /// A post of `key` goes out now.
    mutating func posting(_ key: DeliveryKey) {
        self.inFlight[key] = false
    }

    /// Whether `key`'s post is out, and still wanted (not taken back since).
    func awaitsPost(_ key: DeliveryKey) -> Bool {
        self.inFlight[key] == false
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
        self.inFlight[key] = true
        if let record { self.leftInFlight[key] = record }
        return true
    }

    /// Takes back every post that is out (the display returned).
    mutating func takeBackEveryPost() {
        for key in self.inFlight.keys { self.inFlight[key] = true }
    }

    /// The server answered `key`'s post, with an id or an error: whether it was taken back
    /// meanwhile (close it), and what history was to say of it.
    mutating func answered(_ key: DeliveryKey) -> (takenBack: Bool, left: HistoryRecord?) {
        let takenBack = self.inFlight.removeValue(forKey: key) ?? false
        return (takenBack, self.leftInFlight.removeValue(forKey: key))
    }

    /// Whether `key` may be posted again after a server restart wiped its card: once only.
    mutating func mayPostAgainAfterRestart(_ key: DeliveryKey) -> Bool {
        self.postedAgainAfterRestart.insert(key).inserted
    }

    /// The server closed `id` itself.
    mutating func serverClosed(_ id: UInt32) {
        self.closedByServer = Array((self.closedByServer + [id]).suffix(8))
    }
}
