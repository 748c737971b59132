// One daemon per state directory. Two daemons with different runtime directories but one state
// directory would each resume the same lay and each call every start (never twice, broken by
// the daemons themselves), so a daemon holds an exclusive flock(2) on the state directory itself
// for its whole life. flock, not the runtime lock's OFD lock: a directory can only be opened
// read-only, and flock needs no write access, so a full or read-only state disk is still
// owned. The kernel drops it when the process dies, however it dies.
//
// A state directory that cannot be created yet (a read-only parent) cannot be locked itself, and
// two daemons would each run unlocked and each call. Meanwhile the nearest existing directory on
// its path stands in for it (`standingInFor`): held until the state directory exists and is
// locked. Another daemon whose state directory is missing under the same directory is refused
// then, though its state may be another: it is told which directory is held, and why.

import Glibc

/// The lock that says a daemon owns a state directory.
public final class StateDirectoryLock {
    private let fd: Int32
    private let device: dev_t
    private let inode: ino_t

    /// The directory locked: the state directory, or the one standing in for it.
    public let lockedPath: String

    /// Takes the lock on an existing directory.
    /// - Throws: `StateDirectoryTaken` naming the daemon that holds it, or a `FileError` when the
    ///   directory cannot be opened.
    public convenience init(stateDirectory: String) throws(StateDirectoryLockError) {
        try self.init(locking: stateDirectory, for: stateDirectory)
    }

    /// Takes the lock on the nearest existing directory above a state directory that cannot be
    /// created yet, standing in for it until it exists.
    public convenience init(standingInFor stateDirectory: String) throws(StateDirectoryLockError) {
        try self.init(locking: Self.nearestExistingDirectory(above: stateDirectory), for: stateDirectory)
    }

    private init(locking path: String, for stateDirectory: String) throws(StateDirectoryLockError) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw .file(FileError(path: path, errno: errno, operation: "open")) }
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let saved = errno
            if saved == EINTR { continue }
            close(fd)
            guard saved == EWOULDBLOCK else {
                throw .file(FileError(path: path, errno: saved, operation: "lock"))
            }
            throw .taken(
                StateDirectoryTaken(
                    stateDirectory: stateDirectory, holder: Self.holder(of: path, notPid: getpid()),
                    standIn: path == stateDirectory ? nil : path))
        }
        self.lockedPath = path
        var info = stat()
        _ = fstat(fd, &info)
        self.fd = fd
        self.device = info.st_dev
        self.inode = info.st_ino
    }

    /// The nearest directory above `path` that exists (a file standing on the way is no directory).
    public static func nearestExistingDirectory(above path: String) -> String {
        var components = FileIdentity.canonical(path).split(separator: "/").dropLast()
        while true {
            let candidate = "/" + components.joined(separator: "/")
            var info = stat()
            if stat(candidate, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR { return candidate }
            guard components.popLast() != nil else { return "/" }
        }
    }

    /// Whether the lock is on the directory now at `path`: one removed and made again under the
    /// daemon is another directory, which a second daemon could take.
    public func holds(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_dev == self.device && info.st_ino == self.inode
    }

    deinit {
        // Released by name before the close, as DaemonLock is: a child being spawned by another
        // thread shares the open file description until its exec.
        _ = flock(self.fd, LOCK_UN)
        close(self.fd)
    }

    /// The other daemon holding a directory open: its pid and command line, found through /proc
    /// (only our own processes are visible there, and only where the sandbox shows /proc's pids).
    static func holder(of directory: String, notPid: pid_t) -> StateDirectoryTaken.Holder? {
        var target = stat()
        guard stat(directory, &target) == 0, let proc = opendir("/proc") else { return nil }
        defer { closedir(proc) }
        while let entry = readdir(proc) {
            let name = Self.name(of: entry)
            guard let pid = pid_t(name), pid != notPid, Self.holdsOpen(pid: pid, target) else { continue }
            return .init(pid: pid, commandLine: Self.commandLine(of: pid))
        }
        return nil
    }

    private static func holdsOpen(pid: pid_t, _ target: stat) -> Bool {
        let fds = "/proc/\(pid)/fd"
        guard let directory = opendir(fds) else { return false }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let name = Self.name(of: entry)
            guard Int32(name) != nil else { continue }
            var info = stat()
            if stat(fds + "/" + name, &info) == 0, info.st_dev == target.st_dev, info.st_ino == target.st_ino,
                (info.st_mode & S_IFMT) == S_IFDIR
            {
                return true
            }
        }
        return false
    }

    private static func name(of entry: UnsafeMutablePointer<dirent>) -> String {
        withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

    private static func commandLine(of pid: pid_t) -> String? {
        guard let bytes = try? FileIO.read("/proc/\(pid)/cmdline", limit: 4_096) else { return nil }
        let words = bytes.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        // One line of a refusal: long enough to show its runtime directory, never a screenful.
        let line = words.joined(separator: " ")
        return words.isEmpty ? nil : line.count > 400 ? line.prefix(400) + "…" : line
    }
}

/// Why a state directory could not be locked.
public enum StateDirectoryLockError: Error, CustomStringConvertible {
    /// Another daemon owns it.
    case taken(StateDirectoryTaken)
    /// It could not be opened or locked at all.
    case file(FileError)

    public var description: String {
        switch self {
        case .taken(let taken): return taken.description
        case .file(let error): return error.description
        }
    }
}

/// Another daemon holds the state directory.
public struct StateDirectoryTaken: Error, CustomStringConvertible, Sendable {
    /// The other daemon, where /proc shows it.
    public struct Holder: Sendable {
        public let pid: pid_t
        public let commandLine: String?
    }

    public let stateDirectory: String
    public let holder: Holder?
    /// The directory held in the state directory's place while it cannot be created.
    public let standIn: String?

    public init(stateDirectory: String, holder: Holder?, standIn: String? = nil) {
        self.stateDirectory = stateDirectory
        self.holder = holder
        self.standIn = standIn
    }

    public var description: String {
        let who =
            self.holder.map { holder in
                "daysomed (pid \(holder.pid)\(holder.commandLine.map { ": \($0)" } ?? ""))"
            } ?? "daysomed"
        if let standIn = self.standIn {
            return "another \(who) holds '\(standIn)' in place of a state directory that cannot be created there, "
                + "maybe '\(self.stateDirectory)': two daemons on one state would each call every start; "
                + "stop it, or make the state directory"
        }
        return "another \(who) already uses the state directory '\(self.stateDirectory)': "
            + "two daemons on one state would each call every start; stop it, or give this one its own --state-dir"
    }
}
