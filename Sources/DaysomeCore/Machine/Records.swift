// What the daemon remembers and shows: history entries, the lay record kept across restarts,
// and the live queue. Each has a JSON form with stable camelCase keys.

/// One line of history.
public struct HistoryRecord: Sendable, Equatable {
    public enum Event: String, Sendable {
        /// `reposted`: a card a server took before, posted again after that server wiped it, or
        /// after a Do Not Disturb that hid it went off: the same call, never a second one. Each
        /// call has one `delivered` line, so counting them counts calls.
        case laid, cleared, delivered, reposted, withdrawn, expired, dropped
    }

    public let time: Instant
    public let event: Event
    public let lay: UInt64
    public let at: Instant?
    public let itemIds: [String]
    public let reason: String?
    /// On a `delivered` call the server took and said it holds out of sight (its Do Not Disturb
    /// on, and the call's urgency does not pass it): why. Absent where the server shows it or
    /// cannot say (a fullscreen app over mako's cards is not something mako knows). Added after
    /// 0.1.0, and written only when set, so every other line stays as it was.
    public let held: String?

    public init(
        time: Instant, event: Event, lay: UInt64, at: Instant? = nil, itemIds: [String] = [], reason: String? = nil,
        held: String? = nil
    ) {
        self.time = time
        self.event = event
        self.lay = lay
        self.at = at
        self.itemIds = itemIds
        self.reason = reason
        self.held = held
    }

    public var json: JSONValue {
        var members: [(key: String, value: JSONValue)] = [
            ("time", .string(self.time.rfc3339)), ("event", .string(self.event.rawValue)),
            ("lay", .number(Double(self.lay))), ("at", self.at.map { .string($0.rfc3339) } ?? .null),
            ("itemIds", .array(self.itemIds.map { .string($0) })),
            ("reason", self.reason.map { .string($0) } ?? .null),
        ]
        if let held = self.held { members.append(("held", .string(held))) }
        return .object(JSONObject(members))
    }

    /// Reads a history line back; every key the encoder writes is required (every daemon has
    /// written all six).
    /// - Throws: `SnapshotProblem` naming the first key that is missing or of the wrong type.
    public init(json: JSONValue) throws(SnapshotProblem) {
        try self.init(json: json, at: "history")
    }

    /// Reads a line found at `path` (`history[3]`), for the problem's key.
    init(json: JSONValue, at path: String) throws(SnapshotProblem) {
        let reader = try SnapshotReader(json, path)
        self.init(
            time: try reader.instant("time"), event: try reader.word("event", as: Event.self),
            lay: try reader.count("lay"), at: try reader.optionalInstant("at"), itemIds: try reader.strings("itemIds"),
            reason: try reader.optionalString("reason"), held: try reader.addedLaterString("held"))
    }
}

/// Identifies one call: the lay it belongs to and its instant.
public struct DeliveryKey: Hashable, Sendable, Comparable {
    public let lay: UInt64
    public let at: Instant

    public init(lay: UInt64, at: Instant) {
        self.lay = lay
        self.at = at
    }

    public static func < (lhs: DeliveryKey, rhs: DeliveryKey) -> Bool { (lhs.lay, lhs.at) < (rhs.lay, rhs.at) }

    /// The carer's `daysomectl try` sample at `at`. It belongs to no lay: lay numbers start at 1,
    /// so lay 0 names no call of any lay, and history and the state file never hold it.
    public static func sample(at: Instant) -> DeliveryKey { DeliveryKey(lay: 0, at: at) }

    /// Whether this is the carer's sample, not a call of a lay.
    public var isSample: Bool { self.lay == 0 }
}

/// A notification that was posted and not yet withdrawn.
public struct DeliveredCall: Sendable, Equatable {
    public let key: DeliveryKey
    public let itemIds: [String]
    public let expiresAt: Instant
    /// The server's id, once its reply arrived.
    public var notificationId: UInt32?
    /// Which server instance gave that id (its bus, unique name and the boot): an id means
    /// nothing to any other, so after a reboot or a server restart it is forgotten, never closed.
    public var server: String?

    public init(
        key: DeliveryKey, itemIds: [String], expiresAt: Instant, notificationId: UInt32? = nil, server: String? = nil
    ) {
        self.key = key
        self.itemIds = itemIds
        self.expiresAt = expiresAt
        self.notificationId = notificationId
        self.server = server
    }
}

/// The current lay, as kept in the state directory across restarts.
public struct LayRecord: Sendable, Equatable {
    public let number: UInt64
    public let from: Instant
    public var laidUntil: Instant
    /// Identifies the household the lay was made from: a changed file means a new lay.
    public let householdDigest: UInt64
    /// Every start up to here was delivered or dropped; later ones are still owed.
    public var handledThrough: Instant
}

/// An RFC 3339 instant in UTC, as the daemon writes them.
public func parseUTC(_ text: String) -> Instant? {
    TimeParsing.instant(text, zone: Zone(name: "UTC", rules: .utc))
}

/// FNV-1a over bytes: a cheap identity for a household file's contents.
public func fnv1a(_ bytes: [UInt8]) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in bytes {
        hash ^= UInt64(byte)
        hash = hash &* 0x100_0000_01b3
    }
    return hash
}
