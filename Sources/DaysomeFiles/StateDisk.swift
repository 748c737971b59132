// The state-disk seam: every file the daemon reads or writes for its state goes through one
// protocol, so that a test can run the daemon's own code on a disk that loses what was not
// synced (DaysomeSimDisk). Production's disk is `SystemDisk`: today's FileIO, unchanged, one call
// forwarded per operation. The operations are the ones the daemon's files need, not POSIX's
// whole surface: whole-file reads, the atomic replace, the history's durable append, the
// directory sync, setting aside, directories, removal, what a stat or a realpath answers, and
// the two locks a daemon holds (its runtime directory's, with its record, and its state directory's).

import DaysomeCore
import Glibc

/// What `stat` (or `lstat`) says of a file.
public struct FileStatus: Sendable, Equatable {
    /// The kinds of file the daemon tells apart.
    public enum Kind: Sendable, Equatable {
        case regular, directory, symlink
        /// A pipe, socket or device.
        case other
    }

    public var kind: Kind
    /// The file system it is on.
    public var device: UInt64
    public var inode: UInt64
    /// The permission bits (`st_mode & 0o7777`).
    public var permissions: UInt32
    /// Whether the daemon's own user owns it.
    public var ownedByUs: Bool
    /// The modification time, in nanoseconds since the epoch.
    public var modified: Int64

    public init(
        kind: Kind, device: UInt64, inode: UInt64, permissions: UInt32, ownedByUs: Bool, modified: Int64
    ) {
        self.kind = kind
        self.device = device
        self.inode = inode
        self.permissions = permissions
        self.ownedByUs = ownedByUs
        self.modified = modified
    }
}

/// The disk the daemon keeps its state on: production's (`SystemDisk`) or a simulated one.
public protocol StateDisk: AnyObject {
    /// A whole file, refused when larger than `limit` (FileIO.read).
    func read(_ path: String, limit: Int, followLinks: Bool, regularOnly: Bool) throws(FileError) -> [UInt8]
    /// Replaces a file atomically; `durable` is the fsync protocol (FileIO.writeAtomically).
    func writeAtomically(_ path: String, _ bytes: [UInt8], mode: mode_t, durable: Bool) throws(FileError)
    /// `writeAtomically` with the contents handed over in pieces (WriteSteps.writeAtomically).
    func writeAtomically(
        _ path: String, mode: mode_t, durable: Bool, contents: (_ emit: (ArraySlice<UInt8>) -> Void) -> Void
    ) throws(FileError)
    /// Appends to a file and syncs it, all or nothing (FileIO.appendDurably).
    func appendDurably(_ path: String, _ bytes: [UInt8]) throws(FileError)
    /// `fsync`s the directory holding `path`.
    func syncDirectory(of path: String) throws(FileError)
    /// Renames a file that cannot be trusted to `<path>.corrupt-<time>`; returns the new name.
    func setAside(_ path: String, now: Instant) throws(FileError) -> String
    /// Creates a directory and its missing parents (FileIO.makeDirectories).
    func makeDirectories(_ path: String, mode: mode_t) throws(FileError)
    /// `unlink`s a file (or a link).
    func removeFile(_ path: String) throws(FileError)
    /// `rmdir`s an empty directory.
    func removeDirectory(_ path: String) throws(FileError)
    /// What `stat` (following a final link) or `lstat` (not) says; nil where there is nothing.
    func status(_ path: String, followLinks: Bool) -> FileStatus?
    /// Which file a path names, as device and inode and as a canonical path (FileIdentity).
    func identity(of path: String) -> FileIdentity
    /// What the symlink at `path` points to (readlink(2)); nil where `path` is no link.
    func linkTarget(_ path: String) -> String?
    /// Takes the runtime directory's lock and its record space (DaemonLock); EWOULDBLOCK when
    /// another daemon holds it.
    func lockRuntimeDirectory(_ runtimeDirectory: String) throws(FileError) -> any RuntimeDirectoryHold
    /// Takes the state directory's lock (StateDirectoryLock), or with `standingIn` the lock on the
    /// nearest existing directory above a state directory that cannot be made yet.
    func lockStateDirectory(
        _ stateDirectory: String, standingIn: Bool
    ) throws(StateDirectoryLockError) -> any StateDirectoryHold
}

/// A daemon's hold on its runtime directory: the lock on `daemon.lock`, and the record kept in
/// its reserved space (DaemonLock.swift, RuntimeRecord.swift). Released when dropped.
public protocol RuntimeDirectoryHold: AnyObject {
    /// What the lock file held when the lock was taken: the earlier daemon's record.
    var earlierRecord: [UInt8] { get }
    /// Writes `record` over the reserved space; whether it was kept.
    @discardableResult func keepRecord(_ record: [UInt8]) -> Bool
}

/// A daemon's hold on its state directory, or on the directory standing in for it
/// (StateDirectoryLock.swift). Released when dropped.
public protocol StateDirectoryHold: AnyObject {
    /// The directory locked.
    var lockedPath: String { get }
    /// Whether the lock is on the directory now at `path`.
    func holds(_ path: String) -> Bool
}

extension DaemonLock: RuntimeDirectoryHold {}

extension StateDirectoryLock: StateDirectoryHold {}

extension StateDisk {
    /// A whole file, following links, of any kind.
    public func read(_ path: String, limit: Int, followLinks: Bool = true) throws(FileError) -> [UInt8] {
        try self.read(path, limit: limit, followLinks: followLinks, regularOnly: false)
    }

    /// Replaces a file atomically with UTF-8 text.
    public func writeAtomically(
        _ path: String, _ text: String, mode: mode_t = 0o600, durable: Bool = false
    ) throws(FileError) {
        try self.writeAtomically(path, Array(text.utf8), mode: mode, durable: durable)
    }

    /// Replaces a file atomically with bytes, mode 0600 unless told.
    public func writeAtomically(_ path: String, bytes: [UInt8], durable: Bool = false) throws(FileError) {
        try self.writeAtomically(path, bytes, mode: 0o600, durable: durable)
    }

    /// A disk that takes a file only whole: the pieces are gathered, then written as one.
    public func writeAtomically(
        _ path: String, mode: mode_t, durable: Bool, contents: (_ emit: (ArraySlice<UInt8>) -> Void) -> Void
    ) throws(FileError) {
        var bytes: [UInt8] = []
        contents { bytes += $0 }
        try self.writeAtomically(path, bytes, mode: mode, durable: durable)
    }

    /// Whether a path exists (without following a final symlink).
    public func exists(_ path: String) -> Bool { self.status(path, followLinks: false) != nil }

    /// Whether `path` is a regular file itself (a link to one is not).
    public func isRegularFile(_ path: String) -> Bool { self.status(path, followLinks: false)?.kind == .regular }

    /// Whether `path` leads to a directory (links followed).
    public func isDirectory(_ path: String) -> Bool { self.status(path, followLinks: true)?.kind == .directory }
}

/// Production's disk: the kernel's file systems through FileIO, as the daemon has always used them.
public final class SystemDisk: StateDisk, Sendable {
    /// The one instance: it holds nothing.
    public static let shared = SystemDisk()

    public init() {}

    public func read(_ path: String, limit: Int, followLinks: Bool, regularOnly: Bool) throws(FileError) -> [UInt8] {
        try FileIO.read(path, limit: limit, followLinks: followLinks, regularOnly: regularOnly)
    }

    public func writeAtomically(_ path: String, _ bytes: [UInt8], mode: mode_t, durable: Bool) throws(FileError) {
        try FileIO.writeAtomically(path, bytes, mode: mode, durable: durable)
    }

    public func writeAtomically(
        _ path: String, mode: mode_t, durable: Bool, contents: (_ emit: (ArraySlice<UInt8>) -> Void) -> Void
    ) throws(FileError) {
        try WriteSteps.writeAtomically(
            KernelCalls(), path, mode: mode, durable: durable, pid: getpid(), contents: contents)
    }

    public func appendDurably(_ path: String, _ bytes: [UInt8]) throws(FileError) {
        try FileIO.appendDurably(path, bytes)
    }

    public func syncDirectory(of path: String) throws(FileError) {
        try FileIO.syncDirectory(of: path)
    }

    public func setAside(_ path: String, now: Instant) throws(FileError) -> String {
        try FileIO.setAside(path, now: now)
    }

    public func makeDirectories(_ path: String, mode: mode_t) throws(FileError) {
        try FileIO.makeDirectories(path, mode: mode)
    }

    public func removeFile(_ path: String) throws(FileError) {
        guard unlink(path) == 0 else { throw FileError(path: path, errno: errno, operation: "remove") }
    }

    public func removeDirectory(_ path: String) throws(FileError) {
        guard rmdir(path) == 0 else { throw FileError(path: path, errno: errno, operation: "remove directory") }
    }

    public func status(_ path: String, followLinks: Bool) -> FileStatus? {
        var info = stat()
        guard (followLinks ? stat(path, &info) : lstat(path, &info)) == 0 else { return nil }
        let kind: FileStatus.Kind
        switch info.st_mode & S_IFMT {
        case S_IFREG: kind = .regular
        case S_IFDIR: kind = .directory
        case S_IFLNK: kind = .symlink
        default: kind = .other
        }
        return FileStatus(
            kind: kind, device: UInt64(info.st_dev), inode: UInt64(info.st_ino),
            permissions: UInt32(info.st_mode & 0o7777), ownedByUs: info.st_uid == getuid(),
            modified: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec))
    }

    public func identity(of path: String) -> FileIdentity { FileIdentity.of(path) }

    public func linkTarget(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    public func lockRuntimeDirectory(_ runtimeDirectory: String) throws(FileError) -> any RuntimeDirectoryHold {
        try DaemonLock(runtimeDirectory: runtimeDirectory)
    }

    public func lockStateDirectory(
        _ stateDirectory: String, standingIn: Bool
    ) throws(StateDirectoryLockError) -> any StateDirectoryHold {
        if standingIn { return try StateDirectoryLock(standingInFor: stateDirectory) }
        return try StateDirectoryLock(stateDirectory: stateDirectory)
    }
}
