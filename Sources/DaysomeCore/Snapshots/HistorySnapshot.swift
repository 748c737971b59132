// The history as `daysomectl history --json` prints it: the lines the daemon appended to its
// history file, each through `HistoryRecord`'s one encoder and decoder, under the design's
// one key. A reader (a test world, a display's support tool) decodes it with the same type.

/// What `history --json` prints: `{ "history": [ { "time", "event", "lay", "at", "itemIds", "reason" } ] }`.
public struct HistorySnapshot: Sendable, Equatable {
    /// Oldest first.
    public var history: [HistoryRecord]

    public init(history: [HistoryRecord]) {
        self.history = history
    }

    public var json: JSONValue { .object(JSONObject([("history", .array(self.history.map(\.json)))])) }

    /// Reads the history back; every line must hold every key the encoder writes.
    /// - Throws: `SnapshotProblem` naming the first key that is missing or of the wrong type.
    public init(json: JSONValue) throws(SnapshotProblem) {
        let reader = try SnapshotReader(json, "historyOutput")
        self.history = try reader.array("history").enumerated().map { index, line throws(SnapshotProblem) in
            try HistoryRecord(json: line, at: "history[\(index)]")
        }
    }
}
