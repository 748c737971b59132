// The JSON document model: a value and an object that keeps its members in file order.
// Parsing is in JSONParser.swift and writing in JSONWriter.swift.

/// A parsed JSON document. Objects keep their members in file order.
public enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)
}

/// A JSON object that keeps its members in file order, duplicate keys included.
public struct JSONObject: Equatable, Sendable {
    /// The members in file order. Duplicate keys are kept; lookups see the last one.
    public var members: [(key: String, value: JSONValue)]

    /// Creates an object whose members appear in the given order.
    public init(_ members: [(key: String, value: JSONValue)] = []) {
        self.members = members
    }

    /// The value of the LAST member named `key` (as in JavaScript), or nil if there is none. Linear time.
    public subscript(key: String) -> JSONValue? {
        for member in members.reversed() where member.key == key {
            return member.value
        }
        return nil
    }

    /// The member keys in file order, duplicates included.
    public var keys: [String] {
        members.map(\.key)
    }

    /// Two objects are equal when they have the same members in the same order.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.members.count == rhs.members.count else { return false }
        for (left, right) in zip(lhs.members, rhs.members) where left.key != right.key || left.value != right.value {
            return false
        }
        return true
    }
}
