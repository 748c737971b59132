// What a daemon keeps in its runtime directory's lock file for the next daemon of this boot
// (DaemonLock's reserved space, written in place, so nothing the runtime directory does can stop
// it): where its calls are kept (lay.json, the runtime copy, or nowhere), for which state
// directory (as a file, not a string), and the household in force when neither the state
// directory nor the runtime directory could keep a copy of it, and the display's exits when the
// runtime directory refused their file. A restart proves what was called
// only from a record that says so: no record, a torn one, or one for another state directory
// proves nothing.

import DaysomeCore

/// The record a daemon leaves in its lock file.
public struct RuntimeRecord: Sendable {
    /// Where the daemon's calls are kept.
    public var kept: CallsKept
    /// The state directory they are kept for.
    public var stateDirectory: FileIdentity
    /// The household in force, kept here only while no file could take its copy.
    public var household: LastGoodHousehold?
    /// The display's exits (`DisplayProcessRule.exitsText`), kept here only while their file in
    /// the runtime directory could not be written: a restart must not trust a crashed display's
    /// `foreground pid=N` line again because another process took the pid since.
    public var displayExits: String?

    public init(
        kept: CallsKept, stateDirectory: FileIdentity, household: LastGoodHousehold? = nil, displayExits: String? = nil
    ) {
        self.kept = kept
        self.stateDirectory = stateDirectory
        self.household = household
        self.displayExits = displayExits
    }

    /// The record's bytes: one JSON object (the lock file pads it with spaces).
    public var bytes: [UInt8] {
        var members: [(String, JSONValue)] = [
            ("format", .number(1)), ("kept", .string(self.kept.rawValue)),
            ("stateDirectory", .string(self.stateDirectory.canonicalPath)),
            ("stateDirectoryNode", self.stateDirectory.node.map { .string($0) } ?? .null),
        ]
        if let household = self.household { members.append(("household", household.json)) }
        if let exits = self.displayExits { members.append(("displayExits", .string(exits))) }
        return Array((JSONValue.object(JSONObject(members)).serialized() + "\n").utf8)
    }

    /// The record in `bytes` (trailing spaces and zeros ignored); nil when there is none or it
    /// cannot be read whole.
    public init?(bytes: [UInt8]) {
        var end = bytes.count
        while end > 0, bytes[end - 1] == 0x20 || bytes[end - 1] == 0 || bytes[end - 1] == 0x0A { end -= 1 }
        guard end > 0, let object = (try? JSONParser.parse(Array(bytes[..<end])))?.objectValue,
            object["format"]?.countValue == 1,
            let kept = object["kept"]?.stringValue.flatMap(CallsKept.init(rawValue:)),
            let path = object["stateDirectory"]?.stringValue
        else { return nil }
        self.kept = kept
        self.stateDirectory = FileIdentity(node: object["stateDirectoryNode"]?.stringValue, canonicalPath: path)
        if let household = object["household"]?.objectValue {
            guard let copy = LastGoodHousehold.decoding(household).copy else { return nil }
            self.household = copy
        } else {
            self.household = nil
        }
        self.displayExits = object["displayExits"]?.stringValue
    }
}
