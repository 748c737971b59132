// What the daemon keeps in `lay.json` across restarts and boots, and its JSON form. The reader is
// strict: a file that is not exactly this shape (a number out of range, a field of the wrong
// type) is refused with the field named, so the daemon sets it aside and starts clean instead of
// trusting half of it. Every earlier format (no `format` key) still reads.

/// One item's occurrence that was called: the item and the local wall time of its start.
/// Whatever the clock or the zone does afterwards, that occurrence is never called again.
public struct CalledOccurrence: Sendable, Hashable {
    public let itemId: String
    /// The local date and time of the start, without its offset: `2026-12-01T13:00:00`.
    public let local: String
    /// The start's instant, only to forget the entry once it is long past.
    public let at: Instant

    public init(itemId: String, local: String, at: Instant) {
        self.itemId = itemId
        self.local = local
        self.at = at
    }

    /// `2026-12-01T13:00:00`: a start's local wall time as `local` keeps it.
    static func wall(of start: Start) -> String { String(start.local.rfc3339.prefix(19)) }

    /// The occurrences a start calls.
    public static func of(_ start: Start) -> [CalledOccurrence] {
        let wall = self.wall(of: start)
        return start.itemIds.map { CalledOccurrence(itemId: $0, local: wall, at: start.at) }
    }
}

/// The called occurrences found by item and wall time: a lay's filter asks it of every start (a
/// dense week's 10,080), and the wall time is only written out for an item that was called.
struct CalledIndex {
    private let walls: [String: Set<String>]

    init(_ called: [CalledOccurrence]) {
        var walls: [String: Set<String>] = [:]
        for occurrence in called { walls[occurrence.itemId, default: []].insert(occurrence.local) }
        self.walls = walls
    }

    /// Whether every item of `start` was called at its local date and time.
    func contains(_ start: Start) -> Bool {
        guard !start.itemIds.isEmpty, !self.walls.isEmpty else { return false }
        var wall: String?
        for itemId in start.itemIds {
            guard let walls = self.walls[itemId] else { return false }
            let text = wall ?? CalledOccurrence.wall(of: start)
            wall = text
            if !walls.contains(text) { return false }
        }
        return true
    }
}

/// What the daemon keeps in its state directory.
public struct PersistedState: Sendable, Equatable {
    /// The format this daemon writes; it reads this and every earlier one.
    public static let format: UInt64 = 2
    /// How long a called occurrence is remembered: longer than any clock step or zone change
    /// could bring it back (a zone change moves a wall time by at most 26 hours).
    public static let calledMemory: Int64 = 2 * 86_400

    /// The largest lay number: every count the state and history files hold is a JSON number,
    /// exact up to 2^53. Past it, 2^53 + 1 would be written (and read back) as 2^53 again.
    public static let largestLayNumber: UInt64 = 1 << 53

    /// The highest lay number ever used: numbers only grow, across restarts and boots.
    public var layCounter: UInt64 = 0
    public var lay: LayRecord?
    public var delivered: [DeliveredCall] = []
    /// The item occurrences already called, newest last (rules 2 and 5 across clock steps).
    public var called: [CalledOccurrence] = []
    /// When the display state file was last written, as last read by a daemon: a later write is
    /// one no daemon saw (she came back, or left, while none ran). Nil in older files.
    public var displaySeenAt: Instant?

    public init(
        layCounter: UInt64 = 0, lay: LayRecord? = nil, delivered: [DeliveredCall] = [],
        called: [CalledOccurrence] = []
    ) {
        self.layCounter = layCounter
        self.lay = lay
        self.delivered = delivered
        self.called = called
    }

    /// Reads the state back leniently: anything unreadable is a fresh start.
    public init(json: JSONValue) {
        self = (try? PersistedState(decoding: json)) ?? PersistedState()
    }

    /// Reads the state back, refusing anything that is not exactly its shape.
    /// - Throws: `StateFileProblem` naming the field.
    public init(decoding json: JSONValue) throws(StateFileProblem) {
        guard let object = json.objectValue else { throw StateFileProblem(field: nil, "is not a JSON object") }
        if let format = object["format"], !format.isNull {
            guard let number = format.countValue, number <= Self.format else {
                throw StateFileProblem(field: "format", "is not a format this daemon reads (1 to \(Self.format))")
            }
        }
        self.layCounter = try Self.count(object["layCounter"], "layCounter", absent: 0)
        if let lay = object["lay"], !lay.isNull {
            guard let record = lay.objectValue else { throw StateFileProblem(field: "lay", "is not an object") }
            guard let digest = record["householdDigest"]?.stringValue.flatMap({ UInt64($0, radix: 16) }) else {
                throw StateFileProblem(field: "lay.householdDigest", "is not a hexadecimal digest")
            }
            self.lay = LayRecord(
                number: try Self.count(record["number"], "lay.number"),
                from: try Self.instant(record["from"], "lay.from"),
                laidUntil: try Self.instant(record["laidUntil"], "lay.laidUntil"), householdDigest: digest,
                handledThrough: try Self.instant(record["handledThrough"], "lay.handledThrough"))
            self.layCounter = max(self.layCounter, self.lay?.number ?? 0)
        }
        guard let delivered = (object["delivered"] ?? .array([])).arrayValue else {
            throw StateFileProblem(field: "delivered", "is not an array")
        }
        for (index, entry) in delivered.enumerated() {
            let field = "delivered[\(index)]"
            guard let call = entry.objectValue else { throw StateFileProblem(field: field, "is not an object") }
            let id = call["notificationId"].flatMap { $0.isNull ? nil : $0 }
            guard id == nil || id?.countValue.flatMap(UInt32.init(exactly:)) != nil else {
                throw StateFileProblem(field: field + ".notificationId", "is not a 32-bit notification id")
            }
            self.delivered.append(
                DeliveredCall(
                    key: DeliveryKey(
                        lay: try Self.count(call["lay"], field + ".lay"),
                        at: try Self.instant(call["at"], field + ".at")),
                    itemIds: try Self.strings(call["itemIds"], field + ".itemIds"),
                    expiresAt: try Self.instant(call["expiresAt"], field + ".expiresAt"),
                    notificationId: id?.countValue.flatMap(UInt32.init(exactly:)), server: call["server"]?.stringValue))
        }
        guard let called = (object["called"] ?? .array([])).arrayValue else {
            throw StateFileProblem(field: "called", "is not an array")
        }
        for (index, entry) in called.enumerated() {
            let field = "called[\(index)]"
            guard let occurrence = entry.objectValue, let itemId = occurrence["itemId"]?.stringValue,
                let local = occurrence["local"]?.stringValue
            else { throw StateFileProblem(field: field, "is not an object with itemId and local") }
            self.called.append(
                CalledOccurrence(itemId: itemId, local: local, at: try Self.instant(occurrence["at"], field + ".at")))
        }
        if let seen = object["displaySeenAt"], !seen.isNull {
            self.displaySeenAt = try Self.instant(seen, "displaySeenAt")
        }
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
                    ("server", call.server.map { .string($0) } ?? .null),
                ]))
        }
        let called = self.called.map { occurrence -> JSONValue in
            .object(
                JSONObject([
                    ("itemId", .string(occurrence.itemId)), ("local", .string(occurrence.local)),
                    ("at", .string(occurrence.at.rfc3339)),
                ]))
        }
        var fields: [(String, JSONValue)] = [
            ("format", .number(Double(Self.format))), ("layCounter", .number(Double(self.layCounter))),
            ("lay", lay), ("delivered", .array(delivered)), ("called", .array(called)),
        ]
        if let seen = self.displaySeenAt { fields.append(("displaySeenAt", .string(seen.rfc3339))) }
        return .object(JSONObject(fields))
    }

    /// Remembers what a start called, forgetting occurrences long past.
    mutating func remember(_ start: Start, now: Instant) {
        self.called.removeAll { $0.at.seconds < now.seconds - Self.calledMemory }
        self.called += CalledOccurrence.of(start).filter { !self.called.contains($0) }
    }

    /// The state to start from, given lay.json and the copy a daemon of this boot kept in the
    /// runtime directory while lay.json could not be written. That copy is newer whenever it
    /// holds a lay counter at least as high (it is only written while lay.json is behind, and
    /// removed once it caught up); either way no occurrence either of them called is forgotten.
    public func merging(unsaved: PersistedState?) -> PersistedState {
        guard let unsaved else { return self }
        var merged = unsaved.layCounter >= self.layCounter ? unsaved : self
        merged.layCounter = max(self.layCounter, unsaved.layCounter)
        let other = unsaved.layCounter >= self.layCounter ? self : unsaved
        merged.called += other.called.filter { !merged.called.contains($0) }
        merged.displaySeenAt = [self.displaySeenAt, unsaved.displaySeenAt].compactMap { $0 }.max()
        return merged
    }

    /// Whether every item of a start was already called at that local date and time.
    func alreadyCalled(_ start: Start) -> Bool { self.calledIndex.contains(start) }

    /// The called occurrences by item, for asking of many starts at once.
    var calledIndex: CalledIndex { CalledIndex(self.called) }

    private static func count(
        _ value: JSONValue?, _ field: String, absent: UInt64? = nil
    ) throws(StateFileProblem)
        -> UInt64
    {
        if let absent, value == nil || value?.isNull == true { return absent }
        guard let number = value?.countValue else {
            throw StateFileProblem(field: field, "is not a whole number from 0 to 2^53")
        }
        return number
    }

    private static func instant(_ value: JSONValue?, _ field: String) throws(StateFileProblem) -> Instant {
        guard let instant = value?.stringValue.flatMap(parseUTC) else {
            throw StateFileProblem(field: field, "is not an RFC 3339 instant")
        }
        return instant
    }

    private static func strings(_ value: JSONValue?, _ field: String) throws(StateFileProblem) -> [String] {
        guard let array = value?.arrayValue else { return [] }
        let strings = array.compactMap(\.stringValue)
        guard strings.count == array.count else { throw StateFileProblem(field: field, "holds a non-string") }
        return strings
    }
}

/// Why a state file cannot be trusted: the field and what is wrong with it.
public struct StateFileProblem: Error, Sendable, Equatable, CustomStringConvertible {
    /// The field, as a path (`lay.number`, `delivered[2].at`); nil for the file as a whole.
    public let field: String?
    public let message: String

    public init(field: String?, _ message: String) {
        self.field = field
        self.message = message
    }

    public var description: String { self.field.map { "field '\($0)' \(self.message)" } ?? self.message }
}
