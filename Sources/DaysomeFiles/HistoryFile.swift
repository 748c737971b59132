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

    /// Appends records; trims to the newest `keep` entries once there are twice as many.
    public mutating func append(_ records: [HistoryRecord]) throws(FileError) {
        guard !records.isEmpty else { return }
        let text = records.map { $0.json.serialized() + "\n" }.joined()
        let fd = open(self.path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw FileError(path: self.path, errno: errno, operation: "open") }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        let saved = errno
        close(fd)
        guard written == bytes.count else { throw FileError(path: self.path, errno: saved, operation: "append to") }
        self.lines += records.count
        if self.lines > 2 * Self.keep {
            let kept = Array(Self.read(path: self.path).suffix(Self.keep))
            try FileIO.writeAtomically(self.path, kept.map { $0.json.serialized() + "\n" }.joined())
            self.lines = kept.count
        }
    }

    /// Every readable record, oldest first; unreadable lines are skipped.
    public static func read(path: String) -> [HistoryRecord] {
        guard let bytes = try? FileIO.read(path, limit: 16 << 20, regularOnly: true) else { return [] }
        return bytes.split(separator: 0x0A).compactMap { line in
            (try? JSONParser.parse(Array(line))).flatMap(HistoryRecord.init(json:))
        }
    }
}
