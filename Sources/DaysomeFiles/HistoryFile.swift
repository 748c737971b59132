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
    ///
    /// All or nothing: a write cut short (a full disk takes what fits in the file's last block and
    /// refuses the rest) or a failed sync is truncated back to where the file ended, so no line is
    /// left half written and the caller can append the same records again without doubling any.
    public mutating func append(_ records: [HistoryRecord]) throws(FileError) {
        guard !records.isEmpty else { return }
        let text = records.map { $0.json.serialized() + "\n" }.joined()
        let fd = open(self.path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw FileError(path: self.path, errno: errno, operation: "open") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw FileError(path: self.path, errno: errno, operation: "inspect") }
        let end = info.st_size
        // A new (or emptied) file's name is on disk only once its directory is: synced below.
        let created = end == 0
        func undo(_ operation: String) -> FileError {
            let saved = errno
            // Only this daemon appends (its runtime directory's lock), so the file ended at `end`.
            _ = ftruncate(fd, end)
            return FileError(path: self.path, errno: saved, operation: operation)
        }
        let bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, $0.count - written) }
            if count < 0 {
                if errno == EINTR { continue }
                throw undo("append to")
            }
            written += count
        }
        guard fdatasync(fd) == 0 else { throw undo("sync") }
        if created {
            do {
                try FileIO.syncDirectory(of: self.path)
            } catch {
                _ = ftruncate(fd, end)
                throw error
            }
        }
        self.lines += records.count
        if self.lines > 2 * Self.keep {
            let kept = Array(Self.read(path: self.path).suffix(Self.keep))
            // The lines are appended already: a trim that fails (a full disk has no room for the
            // shorter copy) is tried again on the next append, never reported as a lost line.
            if (try? FileIO.writeAtomically(
                self.path, kept.map { $0.json.serialized() + "\n" }.joined(), durable: true)) != nil
            {
                self.lines = kept.count
            }
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
