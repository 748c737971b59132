// Reading a snapshot (something one process wrote for another) back, key by key, with the key
// named when it is missing or of the wrong type. Unknown keys are ignored, so a newer writer can
// add fields; a key the reader needs is never silently read as nothing.

/// Why a snapshot could not be read: the key (as a path) and what is wrong with it.
public struct SnapshotProblem: Error, Sendable, Equatable, CustomStringConvertible {
    public let key: String
    public let message: String

    public init(key: String, _ message: String) {
        self.key = key
        self.message = message
    }

    public var description: String { "'\(self.key)' \(self.message)" }
}

/// Typed access to one JSON object of a snapshot.
struct SnapshotReader {
    let object: JSONObject
    /// Where the object sits, for the problem's key path (`queue`, `pending[3]`).
    let path: String

    init(_ value: JSONValue, _ path: String) throws(SnapshotProblem) {
        guard let object = value.objectValue else { throw SnapshotProblem(key: path, "is not an object") }
        self.object = object
        self.path = path
    }

    func has(_ key: String) -> Bool { self.object[key] != nil }

    private func problem(_ key: String, _ message: String) -> SnapshotProblem {
        SnapshotProblem(key: self.path + "." + key, message)
    }

    private func value(_ key: String) throws(SnapshotProblem) -> JSONValue {
        guard let value = self.object[key] else { throw self.problem(key, "is missing") }
        return value
    }

    func string(_ key: String) throws(SnapshotProblem) -> String {
        guard let text = try self.value(key).stringValue else { throw self.problem(key, "is not a string") }
        return text
    }

    /// A string or null; the key itself must be there.
    func optionalString(_ key: String) throws(SnapshotProblem) -> String? {
        let value = try self.value(key)
        if value.isNull { return nil }
        guard let text = value.stringValue else { throw self.problem(key, "is neither a string nor null") }
        return text
    }

    func bool(_ key: String) throws(SnapshotProblem) -> Bool {
        guard let flag = try self.value(key).boolValue else { throw self.problem(key, "is not true or false") }
        return flag
    }

    func count(_ key: String) throws(SnapshotProblem) -> UInt64 {
        guard let number = try self.value(key).countValue else {
            throw self.problem(key, "is not a whole number from 0 to 2^53")
        }
        return number
    }

    /// A count or null; the key itself must be there.
    func optionalCount(_ key: String) throws(SnapshotProblem) -> UInt64? {
        let value = try self.value(key)
        if value.isNull { return nil }
        guard let number = value.countValue else { throw self.problem(key, "is neither a whole number nor null") }
        return number
    }

    func instant(_ key: String) throws(SnapshotProblem) -> Instant {
        guard let instant = try self.value(key).stringValue.flatMap(parseUTC) else {
            throw self.problem(key, "is not an RFC 3339 instant")
        }
        return instant
    }

    /// An instant or null; the key itself must be there.
    func optionalInstant(_ key: String) throws(SnapshotProblem) -> Instant? {
        let value = try self.value(key)
        if value.isNull { return nil }
        guard let instant = value.stringValue.flatMap(parseUTC) else {
            throw self.problem(key, "is neither an RFC 3339 instant nor null")
        }
        return instant
    }

    /// True, false or null; the key itself must be there.
    func optionalBool(_ key: String) throws(SnapshotProblem) -> Bool? {
        let value = try self.value(key)
        if value.isNull { return nil }
        guard let flag = value.boolValue else { throw self.problem(key, "is neither true, false nor null") }
        return flag
    }

    /// A count that fits an `Int`, for the counts a snapshot shows (items, pending, seconds).
    func int(_ key: String) throws(SnapshotProblem) -> Int {
        Int(try self.count(key))
    }

    /// A nested object, read with its key added to the path.
    func object(_ key: String) throws(SnapshotProblem) -> SnapshotReader {
        try SnapshotReader(try self.value(key), self.path + "." + key)
    }

    /// A nested object or null; the key itself must be there.
    func optionalObject(_ key: String) throws(SnapshotProblem) -> SnapshotReader? {
        let value = try self.value(key)
        if value.isNull { return nil }
        guard value.objectValue != nil else { throw self.problem(key, "is neither an object nor null") }
        return try SnapshotReader(value, self.path + "." + key)
    }

    /// A nested object that a 0.1.0 writer did not write: nil when the key is absent or null
    /// (a daemon that an upgrade has not restarted yet), read as usual when there.
    func addedLaterObject(_ key: String) throws(SnapshotProblem) -> SnapshotReader? {
        self.has(key) ? try self.optionalObject(key) : nil
    }

    /// A string that a 0.1.0 writer did not write: nil when the key is absent or null.
    func addedLaterString(_ key: String) throws(SnapshotProblem) -> String? {
        self.has(key) ? try self.optionalString(key) : nil
    }

    /// A word naming one case of `T` that a 0.1.0 writer did not write: nil when absent or null.
    func addedLaterWord<T: RawRepresentable>(_ key: String, as type: T.Type = T.self) throws(SnapshotProblem) -> T?
    where T.RawValue == String {
        guard try self.addedLaterString(key) != nil else { return nil }
        return try self.word(key, as: type)
    }

    /// A string naming one case of `T` (a display state, a lock source).
    func word<T: RawRepresentable>(_ key: String, as type: T.Type) throws(SnapshotProblem) -> T
    where T.RawValue == String {
        let text = try self.string(key)
        guard let word = T(rawValue: text) else { throw self.problem(key, "has an unknown value '\(text)'") }
        return word
    }

    func array(_ key: String) throws(SnapshotProblem) -> [JSONValue] {
        guard let array = try self.value(key).arrayValue else { throw self.problem(key, "is not an array") }
        return array
    }

    func strings(_ key: String) throws(SnapshotProblem) -> [String] {
        let array = try self.array(key)
        let strings = array.compactMap(\.stringValue)
        guard strings.count == array.count else { throw self.problem(key, "holds something other than strings") }
        return strings
    }
}
