// The bounded history in the state directory: one JSON object a line, appended as events
// happen, trimmed to the newest entries when it grows past its bound so a tablet left away
// for a year never fills its disk.

import DaysomeCore
import Glibc

/// Appends to and reads the history file.
public struct HistoryFile {
    public let path: String
    /// Entries kept after a trim.
    public static let keep = 2_000
    private var lines: Int

    /// Opens the history at `path`, counting what is there.
    public init(path: String) {
        self.path = path
        let bytes = (try? FileIO.read(path, limit: 16 << 20, regularOnly: true)) ?? []
        self.lines = bytes.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
    }

    /// Appends records and syncs them (`fdatasync`) before returning: the daemon posts a call only
    /// after its `delivered` line is on disk (persist before post, across a power cut too). Trims
    /// to the newest `keep` entries once there are twice as many.
    public mutating func append(_ records: [HistoryRecord]) throws(FileError) {
        guard !records.isEmpty else { return }
        let text = records.map { $0.json.serialized() + "\n" }.joined()
        let created = !FileIO.exists(self.path)
        let fd = open(self.path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw FileError(path: self.path, errno: errno, operation: "open") }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        var saved = errno
        let synced = written == bytes.count && fdatasync(fd) == 0
        if written == bytes.count && !synced { saved = errno }
        close(fd)
        guard written == bytes.count else { throw FileError(path: self.path, errno: saved, operation: "append to") }
        guard synced else { throw FileError(path: self.path, errno: saved, operation: "sync") }
        // A new file's name is on disk only once its directory is.
        if created { try FileIO.syncDirectory(of: self.path) }
        self.lines += records.count
        if self.lines > 2 * Self.keep {
            let kept = Array(Self.read(path: self.path).suffix(Self.keep))
            try FileIO.writeAtomically(self.path, kept.map { $0.json.serialized() + "\n" }.joined(), durable: true)
            self.lines = kept.count
        }
    }

    /// Every readable record, oldest first; unreadable lines are skipped.
    public static func read(path: String) -> [HistoryRecord] {
        self.readCounting(path: path).records
    }

    /// Every readable record, oldest first, and how many lines could not be read (torn by a power
    /// cut, or a number out of range): those are skipped, never trusted and never a crash.
    public static func readCounting(path: String) -> (records: [HistoryRecord], unreadable: Int) {
        guard let bytes = try? FileIO.read(path, limit: 16 << 20, regularOnly: true) else { return ([], 0) }
        var unreadable = 0
        let records = bytes.split(separator: 0x0A).compactMap { line -> HistoryRecord? in
            let record = (try? JSONParser.parse(Array(line))).flatMap { try? HistoryRecord(json: $0) }
            if record == nil { unreadable += 1 }
            return record
        }
        return (records, unreadable)
    }
}
