// What daysomectl prints about a daemon (`status`, `pending`, `history`, `plan`, each `--json`),
// typed for the tests. Every key the tests read is decoded here and nowhere else. A status is
// also read through the core's `StatusSnapshot`, strictly, as daysomectl reads it; the rest is
// lenient on purpose: a missing key reads as nil or empty, and the test that cares asserts on it.

import DaysomeCore

extension JSONValue {
    /// A number as an `Int`, or nil.
    public var int: Int? { self.doubleValue.map { Int($0) } }
    /// The strings of an array (other elements left out).
    public var strings: [String] { (self.arrayValue ?? []).compactMap(\.stringValue) }

    /// Every string in the document, keys excluded.
    public var allStrings: [String] {
        switch self {
        case .string(let text): return [text]
        case .array(let values): return values.flatMap(\.allStrings)
        case .object(let object): return object.members.flatMap(\.value.allStrings)
        default: return []
        }
    }
}

/// `status --json`, read only through the core's own type, as daysomectl reads it: a status the
/// daemon wrote that the type cannot read fails the test that asked for it, and a test names a
/// field by its typed path (`status.canDeliver`, `status.daemon?.lock`), never by a string key
/// (scripts/check-typed-status keeps it so).
@dynamicMemberLookup
public struct DaemonStatus: CustomStringConvertible {
    /// The whole document through the core's type.
    public let snapshot: StatusSnapshot

    init(_ object: JSONObject) throws {
        self.snapshot = try StatusSnapshot(json: .object(object))
    }

    /// A field of the snapshot by its typed path.
    public subscript<Field>(dynamicMember field: KeyPath<StatusSnapshot, Field>) -> Field {
        self.snapshot[keyPath: field]
    }

    public var description: String { self.snapshot.json.serialized() }
}

/// One entry of `pending --json`.
public struct QueuedStart: Equatable, CustomStringConvertible {
    public let lay: Int?
    public let at: String
    public let local: String
    public let itemIds: [String]
    public let title: String

    init(_ json: JSONValue) {
        let object = json.objectValue ?? JSONObject()
        self.lay = object["lay"]?.int
        self.at = object["at"]?.stringValue ?? ""
        self.local = object["local"]?.stringValue ?? ""
        self.itemIds = object["itemIds"]?.strings ?? []
        self.title = object["title"]?.stringValue ?? ""
    }

    public var description: String {
        "\(self.at) \(self.itemIds) \"\(self.title)\" (lay \(self.lay.map(String.init) ?? "-"))"
    }
}

/// `pending --json`.
public struct Queue {
    public let display: String?
    public let lay: Int?
    public let daemonRunning: Bool?
    public let starts: [QueuedStart]

    init(_ object: JSONObject) {
        self.display = object["display"]?.stringValue
        self.lay = object["lay"]?.int
        self.daemonRunning = object["daemonRunning"]?.boolValue
        self.starts = (object["pending"]?.arrayValue ?? []).map(QueuedStart.init)
    }
}

/// One record of `history --json`.
public struct HistoryEvent: CustomStringConvertible {
    public let time: String
    public let event: String
    public let lay: Int?
    public let at: String?
    public let itemIds: [String]
    public let reason: String?

    init(_ json: JSONValue) {
        let object = json.objectValue ?? JSONObject()
        self.time = object["time"]?.stringValue ?? ""
        self.event = object["event"]?.stringValue ?? ""
        self.lay = object["lay"]?.int
        self.at = object["at"]?.stringValue
        self.itemIds = object["itemIds"]?.strings ?? []
        self.reason = object["reason"]?.stringValue
    }

    public var description: String {
        "\(self.time) \(self.event) lay \(self.lay.map(String.init) ?? "-") \(self.at ?? "-") \(self.itemIds) "
            + (self.reason ?? "")
    }
}

/// One start of `plan --json`.
public struct PlannedStart: CustomStringConvertible {
    public let at: String
    public let local: String
    public let itemIds: [String]
    public let heading: String
    public let title: String
    public let body: String

    public init(_ json: JSONValue) {
        let object = json.objectValue ?? JSONObject()
        self.at = object["at"]?.stringValue ?? ""
        self.local = object["local"]?.stringValue ?? ""
        self.itemIds = object["itemIds"]?.strings ?? []
        self.heading = object["heading"]?.stringValue ?? ""
        self.title = object["title"]?.stringValue ?? ""
        self.body = object["body"]?.stringValue ?? ""
    }

    public var description: String { "\(self.at) \(self.itemIds) \"\(self.title)\"" }
}

/// The decoders of the documents above, by the daysomectl verb that prints them.
enum DaemonDocument {
    static func status(_ object: JSONObject) throws -> DaemonStatus {
        do {
            return try DaemonStatus(object)
        } catch {
            throw HarnessError("status --json does not read as a StatusSnapshot: \(error)")
        }
    }
    static func pending(_ object: JSONObject) -> Queue { Queue(object) }
    static func history(_ object: JSONObject) -> [HistoryEvent] {
        (object["history"]?.arrayValue ?? []).map(HistoryEvent.init)
    }
    static func plan(_ object: JSONObject) -> [PlannedStart] {
        (object["starts"]?.arrayValue ?? []).map(PlannedStart.init)
    }
}
