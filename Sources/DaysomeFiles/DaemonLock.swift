// The runtime directory's owner: a running daemon holds an exclusive flock on `daemon.lock`
// for its whole life. The kernel drops it when the process dies, however it dies, so the tool
// can tell a live queue from one left by a dead daemon without trusting a pid.

import Glibc

/// The lock that says a daemon owns a runtime directory.
public final class DaemonLock {
    private let fd: Int32

    /// The lock file's path in a runtime directory.
    public static func path(in runtimeDirectory: String) -> String { runtimeDirectory + "/daemon.lock" }

    /// Takes the lock, or throws EWOULDBLOCK when another daemon holds it.
    public init(runtimeDirectory: String) throws(FileError) {
        let path = Self.path(in: runtimeDirectory)
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw FileError(path: path, errno: errno, operation: "open") }
        // `isHeld` (every `daysomectl status` or `pending`) holds a shared lock for a moment:
        // try again for a quarter of a second before deciding that a daemon owns the directory.
        var attempts = 0
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let saved = errno
            attempts += 1
            guard (saved == EWOULDBLOCK || saved == EINTR) && attempts < 50 else {
                close(fd)
                throw FileError(path: path, errno: saved, operation: "lock")
            }
            usleep(5_000)
        }
        self.fd = fd
    }

    deinit { close(self.fd) }

    /// Whether a live daemon holds the lock of a runtime directory (read-only probe).
    public static func isHeld(runtimeDirectory: String) -> Bool {
        let fd = open(Self.path(in: runtimeDirectory), O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        // A shared lock is refused only while the daemon holds its exclusive one.
        if flock(fd, LOCK_SH | LOCK_NB) == 0 {
            flock(fd, LOCK_UN)
            return false
        }
        return errno == EWOULDBLOCK
    }
}

/// Creates a private directory (0700) or checks an existing one: refused when it is a symlink,
/// not a directory, not ours, or writable by group or others.
public func preparePrivateDirectory(_ path: String) throws(FileError) {
    try FileIO.makeDirectories(path, mode: 0o700)
    var info = stat()
    guard lstat(path, &info) == 0 else { throw FileError(path: path, errno: errno, operation: "inspect") }
    guard (info.st_mode & S_IFMT) == S_IFDIR else { throw FileError(path: path, errno: ENOTDIR, operation: "use") }
    guard info.st_uid == getuid(), info.st_mode & 0o022 == 0 else {
        throw FileError(path: path, errno: EPERM, operation: "trust (owned by another user or writable by others)")
    }
}
