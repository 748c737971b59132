// The runtime directory's owner: a running daemon holds an exclusive open-file-description
// (OFD) lock on `daemon.lock` for its whole life. The kernel drops it when the process dies,
// however it dies, so the tool can tell a live queue from one left by a dead daemon without
// trusting a pid. The tool only asks (`F_OFD_GETLK`) and never takes the lock, so a probe can
// never make a starting daemon find its own lock taken.
//
// The lock file also holds the daemon's record of where its calls are kept (RuntimeRecord.swift),
// written in place over space reserved when the lock was taken: a write into an open file's own
// reserved pages needs no inode, no new block and no write access to the directory, so it is kept
// also when the runtime directory is full, out of inodes, or made read-only under the daemon.

import Glibc

/// The lock that says a daemon owns a runtime directory.
public final class DaemonLock {
    private let fd: Int32
    /// The bytes the space reserved for the record holds (RuntimeRecord.swift).
    public static let recordSize = 64 * 1024
    /// What the lock file held when the lock was taken: the record of the daemon of this boot
    /// that ran here before, empty where none did (or it could not keep one).
    public let earlierRecord: [UInt8]

    /// The lock file's path in a runtime directory.
    public static func path(in runtimeDirectory: String) -> String { runtimeDirectory + "/daemon.lock" }

    /// Takes the lock, or throws EWOULDBLOCK when another daemon holds it.
    public init(runtimeDirectory: String) throws(FileError) {
        let path = Self.path(in: runtimeDirectory)
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw FileError(path: path, errno: errno, operation: "open") }
        var lock = Self.wholeFile(F_WRLCK)
        while fcntl(fd, ofdSetLock, &lock) != 0 {
            let saved = errno
            if saved == EINTR { continue }
            close(fd)
            // A conflicting lock is EAGAIN or EACCES (fcntl(2)): both mean another daemon owns it.
            throw FileError(path: path, errno: saved == EACCES ? EWOULDBLOCK : saved, operation: "lock")
        }
        self.fd = fd
        var earlier = [UInt8](repeating: 0, count: Self.recordSize)
        let count = earlier.withUnsafeMutableBytes { pread(fd, $0.baseAddress, Self.recordSize, 0) }
        self.earlierRecord = Array(earlier.prefix(max(0, count)))
        // Reserved now, while there is room: each record is written over these pages. Where there
        // is none, a record that cannot be written erases the earlier one (`keepRecord`).
        _ = posix_fallocate(fd, 0, off_t(Self.recordSize))
    }

    /// Writes `record` over the reserved space, padded with spaces. A write that fails leaves the
    /// file empty, never an older record that would claim more than is true. Returns whether it
    /// was kept.
    @discardableResult
    public func keepRecord(_ record: [UInt8]) -> Bool {
        guard record.count <= Self.recordSize else {
            _ = ftruncate(self.fd, 0)
            return false
        }
        let padded = record + [UInt8](repeating: 0x20, count: Self.recordSize - record.count)
        var written = 0
        while written < padded.count {
            let count = padded.withUnsafeBytes {
                pwrite(self.fd, $0.baseAddress! + written, padded.count - written, off_t(written))
            }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                _ = ftruncate(self.fd, 0)
                return false
            }
            written += count
        }
        return true
    }

    deinit {
        // Released by name before the close: a child being spawned by another thread holds a copy
        // of the descriptor until its exec closes it (O_CLOEXEC), and the lock belongs to the open
        // file description both copies share, so a close alone would leave it held meanwhile.
        var lock = Self.wholeFile(F_UNLCK)
        _ = fcntl(self.fd, ofdSetLock, &lock)
        close(self.fd)
    }

    /// Whether a live daemon holds the lock of a runtime directory: asks the kernel who holds
    /// it, without taking it.
    public static func isHeld(runtimeDirectory: String) -> Bool {
        let fd = open(Self.path(in: runtimeDirectory), O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        // F_OFD_GETLK answers F_UNLCK when a write lock could be taken, and otherwise describes
        // the lock in the way. It takes nothing, so probes never race the daemon's start.
        var lock = Self.wholeFile(F_WRLCK)
        guard fcntl(fd, ofdGetLock, &lock) == 0 else { return false }
        return lock.l_type != Int16(F_UNLCK)
    }

    /// A lock description over the whole file; `l_pid` must be 0 for OFD locks.
    private static func wholeFile(_ type: Int32) -> flock {
        var lock = flock()
        lock.l_type = Int16(type)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = 0
        lock.l_len = 0
        lock.l_pid = 0
        return lock
    }
}

// The Glibc module is imported without _GNU_SOURCE, so <fcntl.h>'s OFD commands are not visible.
// Their values are Linux ABI (asm-generic/fcntl.h), the same on every architecture.
/// `F_OFD_GETLK`: which lock, if any, would conflict with the one described.
private let ofdGetLock: Int32 = 36
/// `F_OFD_SETLK`: take or release a lock owned by the open file description, without waiting.
private let ofdSetLock: Int32 = 37

/// Creates a private directory (0700) or checks an existing one: refused when it is a symlink,
/// not a directory, not ours, or writable by group or others.
public func preparePrivateDirectory(_ path: String, disk: any StateDisk = SystemDisk.shared) throws(FileError) {
    try disk.makeDirectories(path, mode: 0o700)
    guard let info = disk.status(path, followLinks: false) else {
        throw FileError(path: path, errno: ENOENT, operation: "inspect")
    }
    guard info.kind == .directory else { throw FileError(path: path, errno: ENOTDIR, operation: "use") }
    guard info.ownedByUs, info.permissions & 0o022 == 0 else {
        throw FileError(path: path, errno: EPERM, operation: "trust (owned by another user or writable by others)")
    }
}
