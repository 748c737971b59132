// Journal: structured logging to journald through sd_journal_sendv, with the iovecs built over one
// contiguous buffer so no pointer outlives its storage. It leaves out reading the journal and
// formatting for stderr: a caller without a journal (see `isAvailable`) writes stderr itself.

import CSystemd
import Glibc

/// Sending entries to the systemd journal.
public enum Journal {
    /// The socket journald listens on.
    public static let socketPath = "/run/systemd/journal/socket"

    /// Whether journald's socket exists. Check it: without journald `send(_:)` does not throw, as
    /// sd_journal_sendv drops the entry and returns 0, so the caller must write stderr itself.
    ///
    /// The corresponding C function is `stat`.
    public static var isAvailable: Bool {
        var info = stat()
        return stat(Journal.socketPath, &info) == 0 && info.st_mode & S_IFMT == S_IFSOCK
    }

    /// Sends one entry made of `(NAME, value)` fields, e.g. `("MESSAGE", "Started")`,
    /// `("PRIORITY", "6")`, `("SYSLOG_IDENTIFIER", "daysomed")`, `("DAYSOME_LAY", "…")`.
    ///
    /// Names are upper-case letters, digits and underscores, not starting with an underscore
    /// (journald drops other fields). Values may hold newlines and any bytes.
    ///
    /// - Throws: `.invalidArgument` for an empty entry or a name that is empty or has `=` in it;
    ///   a send error. Not an error when journald is absent: the entry is silently dropped (see
    ///   `isAvailable`).
    ///
    /// The corresponding C function is `sd_journal_sendv`.
    public static func send(_ fields: [(String, String)]) throws(Errno) {
        if fields.isEmpty || fields.contains(where: { $0.0.isEmpty || $0.0.utf8.contains(UInt8(ascii: "=")) }) {
            throw .invalidArgument
        }
        // One buffer of "NAME=value" pieces, and the offset of each piece in it.
        var bytes: [UInt8] = []
        var ranges: [Range<Int>] = []
        for (name, value) in fields {
            let start = bytes.count
            bytes.append(contentsOf: name.utf8)
            bytes.append(UInt8(ascii: "="))
            bytes.append(contentsOf: value.utf8)
            ranges.append(start..<bytes.count)
        }
        let result = bytes.withUnsafeMutableBytes { buffer in
            let vectors = ranges.map { range in
                iovec(iov_base: buffer.baseAddress! + range.lowerBound, iov_len: range.count)
            }
            return sd_journal_sendv(vectors, Int32(vectors.count))
        }
        try check(result)
    }

    /// Whether our stderr is connected to the journal ($JOURNAL_STREAM names its device and
    /// inode), so `<N>`-prefixed lines on stderr get their priority.
    ///
    /// The corresponding C functions are `getenv` and `fstat`.
    public static var stderrIsJournal: Bool {
        let value = getenv("JOURNAL_STREAM").map { String(cString: $0) }
        return Journal.isJournalStream(value, fileDescriptor: STDERR_FILENO)
    }

    /// Whether `value`, a $JOURNAL_STREAM "device:inode" pair, names the file behind `fd`.
    static func isJournalStream(_ value: String?, fileDescriptor fd: Int32) -> Bool {
        guard let value else {
            return false
        }
        let parts = value.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else {
            return false
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            return false
        }
        return UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode
    }
}
