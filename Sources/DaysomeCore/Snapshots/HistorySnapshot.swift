// The history as `daysomectl history --json` prints it: the lines the daemon appended to its
// history file, each through `HistoryRecord`'s one encoder and decoder, under the design's
// one key. A reader (a test world, a display's support tool) decodes it with the same type.

/// What `history --json` prints: `{ "history": [ { "time", "event", "lay", "at", "itemIds", "reason" } ] }`.
public struct HistorySnapshot: Sendable, Equatable {
    /// Oldest first.
    public var history: [HistoryRecord]
    /// The state directory the history was read from; nil when not said (an older daysomectl).
    public var stateDirectory: String?
    /// True when no running daemon named that directory and no `--state-dir` did: it is a dead
    /// daemon's last word or the default, and may be another daemon's history.
    public var fellBack: Bool

    public init(history: [HistoryRecord], stateDirectory: String? = nil, fellBack: Bool = false) {
        self.history = history
        self.stateDirectory = stateDirectory
        self.fellBack = fellBack
    }

    public var json: JSONValue {
        var members: [(key: String, value: JSONValue)] = [("history", .array(self.history.map(\.json)))]
        if let directory = self.stateDirectory {
            members += [("stateDirectory", .string(directory)), ("fellBack", .bool(self.fellBack))]
        }
        return .object(JSONObject(members))
    }

    /// Reads the history back; every line must hold every key the encoder writes.
    /// - Throws: `SnapshotProblem` naming the first key that is missing or of the wrong type.
    public init(json: JSONValue) throws(SnapshotProblem) {
        let reader = try SnapshotReader(json, "historyOutput")
        self.history = try reader.array("history").enumerated().map { index, line throws(SnapshotProblem) in
            try HistoryRecord(json: line, at: "history[\(index)]")
        }
        self.stateDirectory = try reader.addedLaterString("stateDirectory")
        self.fellBack = reader.has("fellBack") ? try reader.bool("fellBack") : false
    }
}
