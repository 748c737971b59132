// The simulated notification server: the cards it shows, the posts a hung server holds, and a
// tally of every card it ever made for a call, which the oracle counts (never twice).

import DaysomeCore

/// A post the server holds while hung, or whose reply the bus may give up on.
struct HeldPost: Sendable {
    let key: DeliveryKey
    let replacing: UInt32
    /// When it was sent, for the bus's 25 s reply timeout.
    let sentAt: Instant
    /// The daemon that sent it (its run number): a reply to a killed daemon reaches nobody.
    let daemonRun: Int
    /// The bus already answered `NoReply` for it: its id will never reach the daemon.
    var timedOut = false
}

/// The server's side of the bus.
struct FakeServer: Sendable {
    var up = true
    var hung = false
    /// The instance number: a new one at every start, so ids are told apart.
    var instance = 1
    private var nextId: UInt32 = 1
    /// The cards on screen, by id.
    private(set) var cards: [UInt32: DeliveryKey] = [:]
    /// The server another took the name over from, while it runs on: its instance number and the
    /// cards it still shows, which only it can close. Ids never repeat here, across instances.
    private(set) var replaced: (instance: Int, cards: [UInt32: DeliveryKey])?
    var held: [HeldPost] = []
    /// Closes sent while hung, done on waking.
    var heldCloses: [UInt32] = []
    /// Every card ever made for each call.
    private(set) var made: [DeliveryKey: Int] = [:]
    /// Each call's cards wiped by the server's leaving (a restart, a stop, a power cut).
    private(set) var wiped: [DeliveryKey: Int] = [:]

    /// The identity the daemon stamps ids with, in `boot` (nil while the server is down).
    func identity(boot: Int) -> String? {
        self.up ? "boot\(boot) server\(self.instance)" : nil
    }

    /// The identity the daemon stamped the replaced server's ids with, while it runs.
    func replacedIdentity(boot: Int) -> String? {
        self.replaced.map { "boot\(boot) server\($0.instance)" }
    }

    /// Every card on screen: the running server's and the replaced one's.
    var allCards: [UInt32: DeliveryKey] {
        self.cards.merging(self.replaced?.cards ?? [:]) { current, _ in current }
    }

    /// Another server takes the name with replacement; this one runs on with its cards. Only an
    /// answering server, and one at a time; whether it happened.
    mutating func takeOver() -> Bool {
        guard self.up, !self.hung, self.held.isEmpty, self.replaced == nil else { return false }
        self.replaced = (self.instance, self.cards)
        self.cards = [:]
        self.heldCloses = []
        self.begin()
        return true
    }

    /// Takes a card of the replaced server down; whether it was up.
    mutating func closeReplaced(_ id: UInt32) -> Bool {
        self.replaced?.cards.removeValue(forKey: id) != nil
    }

    /// The replaced server exits: its cards go with it.
    mutating func replacedLeaves() {
        guard let replaced = self.replaced else { return }
        for key in replaced.cards.values { self.wiped[key, default: 0] += 1 }
        self.replaced = nil
    }

    /// Shows a card for `key` (in place of `replacing`, when that is its own); returns its id.
    mutating func show(_ key: DeliveryKey, replacing: UInt32) -> UInt32 {
        if replacing != 0 { self.cards.removeValue(forKey: replacing) }
        let id = self.nextId
        self.nextId += 1
        self.cards[id] = key
        self.made[key, default: 0] += 1
        return id
    }

    /// Takes a card down; whether it was up.
    mutating func close(_ id: UInt32) -> Bool {
        self.cards.removeValue(forKey: id) != nil
    }

    /// The server leaves: every card goes with it, and the posts it held.
    mutating func leave() -> [HeldPost] {
        for key in self.cards.values { self.wiped[key, default: 0] += 1 }
        self.cards = [:]
        self.heldCloses = []
        defer { self.held = [] }
        self.up = false
        self.hung = false
        return self.held
    }

    /// A new instance takes the name.
    mutating func begin() {
        self.up = true
        self.hung = false
        self.instance += 1
    }
}

/// The state directory and the runtime directory, with the faults the daemon must survive.
struct FakeStateDisk: Sendable {
    /// lay.json as last written whole (written durably: a power cut keeps it).
    var lay: PersistedState?
    var history: [HistoryRecord] = []
    /// The last good household's copy: its variant.
    var keptHousehold: Int?
    var full = false
    /// The runtime directory: tmpfs, gone at a power cut.
    var runtimeFull = false
    var unsaved: PersistedState?
    /// The last good household's copy the full state disk refused, kept in the runtime directory.
    var unsavedKeptHousehold: Int?
    var unprovenMarker = false
    /// A daemon of this boot ran here (its lock file is in the runtime directory).
    var sameBoot = false

    /// A new boot: the runtime directory is empty again.
    mutating func boot() {
        self.unsaved = nil
        self.unsavedKeptHousehold = nil
        self.unprovenMarker = false
        self.sameBoot = false
        self.runtimeFull = false
    }
}
