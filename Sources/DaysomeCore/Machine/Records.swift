// What the daemon remembers and shows: history entries, the lay record kept across restarts,
// and the live queue. Each has a JSON form with stable camelCase keys.

/// One line of history.
public struct HistoryRecord: Sendable, Equatable {
    public enum Event: String, Sendable {
        case laid, cleared, delivered, withdrawn, expired, dropped
    }

    public let time: Instant
    public let event: Event
    public let lay: UInt64
    public let at: Instant?
    public let itemIds: [String]
    public let reason: String?

    public init(
        time: Instant, event: Event, lay: UInt64, at: Instant? = nil, itemIds: [String] = [], reason: String? = nil
    ) {
        self.time = time
        self.event = event
        self.lay = lay
        self.at = at
        self.itemIds = itemIds
        self.reason = reason
    }

    public var json: JSONValue {
        .object(
            JSONObject([
                ("time", .string(self.time.rfc3339)), ("event", .string(self.event.rawValue)),
                ("lay", .number(Double(self.lay))), ("at", self.at.map { .string($0.rfc3339) } ?? .null),
                ("itemIds", .array(self.itemIds.map { .string($0) })),
                ("reason", self.reason.map { .string($0) } ?? .null),
            ]))
    }

    public init?(json: JSONValue) {
        guard let object = json.objectValue, let time = object["time"]?.stringValue.flatMap(parseUTC),
            let event = object["event"]?.stringValue.flatMap(Event.init(rawValue:)),
            let lay = object["lay"]?.doubleValue, lay >= 0
        else { return nil }
        self.init(
            time: time, event: event, lay: UInt64(lay), at: object["at"]?.stringValue.flatMap(parseUTC),
            itemIds: object["itemIds"]?.arrayValue?.compactMap(\.stringValue) ?? [],
            reason: object["reason"]?.stringValue)
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
}

/// A notification that was posted and not yet withdrawn.
public struct DeliveredCall: Sendable, Equatable {
    public let key: DeliveryKey
    public let itemIds: [String]
    public let expiresAt: Instant
    /// The server's id, once its reply arrived.
    public var notificationId: UInt32?
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

/// What the daemon keeps in its state directory.
public struct PersistedState: Sendable, Equatable {
    /// The highest lay number ever used: numbers only grow, across restarts and boots.
    public var layCounter: UInt64 = 0
    public var lay: LayRecord?
    public var delivered: [DeliveredCall] = []

    public init(layCounter: UInt64 = 0, lay: LayRecord? = nil, delivered: [DeliveredCall] = []) {
        self.layCounter = layCounter
        self.lay = lay
        self.delivered = delivered
    }

    public var json: JSONValue {
        var lay: JSONValue = .null
        if let record = self.lay {
            lay = .object(
                JSONObject([
                    ("number", .number(Double(record.number))), ("from", .string(record.from.rfc3339)),
                    ("laidUntil", .string(record.laidUntil.rfc3339)),
                    ("householdDigest", .string(String(record.householdDigest, radix: 16))),
                    ("handledThrough", .string(record.handledThrough.rfc3339)),
                ]))
        }
        let delivered = self.delivered.map { call -> JSONValue in
            .object(
                JSONObject([
                    ("lay", .number(Double(call.key.lay))), ("at", .string(call.key.at.rfc3339)),
                    ("itemIds", .array(call.itemIds.map { .string($0) })),
                    ("expiresAt", .string(call.expiresAt.rfc3339)),
                    ("notificationId", call.notificationId.map { .number(Double($0)) } ?? .null),
                ]))
        }
        return .object(
            JSONObject([
                ("layCounter", .number(Double(self.layCounter))), ("lay", lay), ("delivered", .array(delivered)),
            ]))
    }

    /// Reads the state back; anything unreadable is dropped rather than trusted.
    public init(json: JSONValue) {
        guard let object = json.objectValue else { return }
        self.layCounter = object["layCounter"]?.doubleValue.map { UInt64(max(0, $0)) } ?? 0
        if let lay = object["lay"]?.objectValue, let number = lay["number"]?.doubleValue,
            let from = lay["from"]?.stringValue.flatMap(parseUTC),
            let until = lay["laidUntil"]?.stringValue.flatMap(parseUTC),
            let digest = lay["householdDigest"]?.stringValue.flatMap({ UInt64($0, radix: 16) }),
            let handled = lay["handledThrough"]?.stringValue.flatMap(parseUTC)
        {
            self.lay = LayRecord(
                number: UInt64(number), from: from, laidUntil: until, householdDigest: digest, handledThrough: handled)
            self.layCounter = max(self.layCounter, UInt64(number))
        }
        for entry in object["delivered"]?.arrayValue ?? [] {
            guard let call = entry.objectValue, let lay = call["lay"]?.doubleValue,
                let at = call["at"]?.stringValue.flatMap(parseUTC),
                let expires = call["expiresAt"]?.stringValue.flatMap(parseUTC)
            else { continue }
            self.delivered.append(
                DeliveredCall(
                    key: DeliveryKey(lay: UInt64(lay), at: at),
                    itemIds: call["itemIds"]?.arrayValue?.compactMap(\.stringValue) ?? [], expiresAt: expires,
                    notificationId: call["notificationId"]?.doubleValue.map { UInt32(clamping: Int64($0)) }))
        }
    }
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
