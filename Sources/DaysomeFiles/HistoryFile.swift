// The bounded history in the state directory: one JSON object a line, appended as events
// happen, trimmed to the newest entries when it grows past its bound so a tablet left away
// for a year never fills its disk.

import DaysomeCore
import Glibc

/// Appends to and reads the history file.
public struct HistoryFile {
    public let path: String
    /// The disk it is on (StateDisk.swift).
    public let disk: any StateDisk
    /// Entries kept after a trim.
    public static let keep = 2_000
    private var lines: Int
    /// The lines last appended or tried: a full disk's retry appends the same records again.
    private var text = SerializedOnce<[HistoryRecord]>()

    /// Opens the history at `path`, counting what is there.
    public init(path: String, disk: any StateDisk = SystemDisk.shared) {
        self.path = path
        self.disk = disk
        let bytes = (try? disk.read(path, limit: 16 << 20, followLinks: true, regularOnly: true)) ?? []
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
        let text = self.text.bytes(of: records) { Array($0.map { $0.json.serialized() + "\n" }.joined().utf8) }
        try self.disk.appendDurably(self.path, text)
        self.text.forget()
        self.lines += records.count
        if self.lines > 2 * Self.keep {
            let kept = Array(Self.read(path: self.path, disk: self.disk).suffix(Self.keep))
            // The lines are appended already: a trim that fails (a full disk has no room for the
            // shorter copy) is tried again on the next append, never reported as a lost line.
            if (try? self.disk.writeAtomically(
                self.path, kept.map { $0.json.serialized() + "\n" }.joined(), durable: true)) != nil
            {
                self.lines = kept.count
            }
        }
    }

    /// Every readable record, oldest first; unreadable lines are skipped.
    public static func read(path: String, disk: any StateDisk = SystemDisk.shared) -> [HistoryRecord] {
        self.readCounting(path: path, disk: disk).records
    }

    /// Every readable record, oldest first, and how many lines could not be read (torn by a power
    /// cut, or a number out of range): those are skipped, never trusted and never a crash.
    public static func readCounting(
        path: String, disk: any StateDisk = SystemDisk.shared
    ) -> (records: [HistoryRecord], unreadable: Int) {
        guard let bytes = try? disk.read(path, limit: 16 << 20, followLinks: true, regularOnly: true) else {
            return ([], 0)
        }
        var unreadable = 0
        let records = bytes.split(separator: 0x0A).compactMap { line -> HistoryRecord? in
            let record = (try? JSONParser.parse(Array(line))).flatMap { try? HistoryRecord(json: $0) }
            if record == nil { unreadable += 1 }
            return record
        }
        return (records, unreadable)
    }
}
