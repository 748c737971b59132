// `stateWriteErrors` in the status: each file in the state directory the daemon could not write
// (a full or read-only file system, a directory it cannot create), with the error and when the
// daemon tries again. Empty while every write succeeds; absent from a daemon older than the key.

extension StatusSnapshot {
    /// A state file the daemon could not write and keeps retrying.
    public struct StateWriteError: Sendable, Equatable, CustomStringConvertible {
        /// The state file (or the state directory itself) that is behind.
        public var file: String
        /// The failure as the journal has it: `Failed to write '…': No space left on device`.
        public var error: String
        /// When the first write of this run of failures failed.
        public var since: Instant
        /// How many writes of it failed since.
        public var attempts: Int
        /// When the retry timer tries again; nil when only the next change will.
        public var nextAttempt: Instant?

        public init(file: String, error: String, since: Instant, attempts: Int, nextAttempt: Instant?) {
            self.file = file
            self.error = error
            self.since = since
            self.attempts = attempts
            self.nextAttempt = nextAttempt
        }

        /// `'/…/lay.json': Failed to write …: No space left on device (since …, 3 attempts; …)`.
        public var description: String {
            "'\(self.file)': \(self.error) (since \(self.since.rfc3339), \(self.attempts) attempt"
                + (self.attempts == 1 ? "" : "s")
                + (self.nextAttempt.map { "; trying again at \($0.rfc3339)" } ?? "") + ")"
        }

        var json: JSONValue {
            .object(
                JSONObject([
                    ("file", .string(self.file)), ("error", .string(self.error)),
                    ("since", .string(self.since.rfc3339)), ("attempts", .number(Double(self.attempts))),
                    ("nextAttempt", .stringOrNull(self.nextAttempt?.rfc3339)),
                ]))
        }

        init(_ reader: SnapshotReader) throws(SnapshotProblem) {
            self.file = try reader.string("file")
            self.error = try reader.string("error")
            self.since = try reader.instant("since")
            self.attempts = try reader.int("attempts")
            self.nextAttempt = try reader.optionalInstant("nextAttempt")
        }
    }
}

extension SnapshotReader {
    /// `stateWriteErrors`, or nil from a daemon older than the key.
    func optionalStateWriteErrors(_ key: String) throws(SnapshotProblem) -> [StatusSnapshot.StateWriteError]? {
        guard self.has(key) else { return nil }
        return try self.array(key).enumerated().map { index, entry throws(SnapshotProblem) in
            try StatusSnapshot.StateWriteError(SnapshotReader(entry, self.path + ".\(key)[\(index)]"))
        }
    }
}
