// Reading and writing whole small files with Glibc: bounded reads, atomic replacement by
// rename, and opening without following a final symlink where a link would be an attack.
// Errors carry the path and the errno text a person needs; nothing here logs.

import DaysomeCore
// Re-exported: FileError's cause carries an Errno, so its readers need the type.
@_exported import DaysomeErrno
import Glibc

/// A failed file operation, with the path and the reason.
public struct FileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Why a file operation failed: the system's errno, or a refusal of our own.
    public enum Cause: Sendable, Equatable {
        /// The system call failed with this errno.
        case system(Errno)
        /// A pipe, socket or device stood where a regular file was wanted.
        case notRegularFile
        /// The file was larger than the read's limit.
        case tooLarge
    }

    public let path: String
    /// Why it failed.
    public let cause: Cause
    /// What was being done: `read`, `write`, `rename`, …
    public let operation: String

    /// A failure with the system's `errno`.
    public init(path: String, errno: Int32, operation: String) {
        self.init(path: path, cause: .system(Errno(rawValue: errno)), operation: operation)
    }

    /// A failure for any cause.
    public init(path: String, cause: Cause, operation: String) {
        self.path = path
        self.cause = cause
        self.operation = operation
    }

    /// The system's error number, or nil for a refusal of our own (`notRegularFile`, `tooLarge`).
    public var errno: Int32? {
        if case .system(let errno) = self.cause { return errno.rawValue }
        return nil
    }

    /// The reason alone: `No such file or directory`.
    public var reason: String {
        switch self.cause {
        case .system(let errno): return errno.text
        case .notRegularFile: return "not a regular file (a pipe, socket or device)"
        case .tooLarge: return "file too large"
        }
    }

    /// `Failed to read '/path': No such file or directory`.
    public var description: String { "Failed to \(self.operation) '\(self.path)': \(self.reason)" }
}

/// Whole-file reads and atomic writes.
public enum FileIO {
    /// Reads a whole file, refusing one larger than `limit` bytes (`tooLarge`).
    /// - Parameter followLinks: false opens with `O_NOFOLLOW`, so a symlink planted in place of the file fails (ELOOP).
    public static func read(_ path: String, limit: Int, followLinks: Bool = true) throws(FileError) -> [UInt8] {
        try self.read(path, limit: limit, followLinks: followLinks, regularOnly: false)
    }

    /// Reads a whole file, refusing one larger than `limit` bytes (`tooLarge`).
    /// - Parameters:
    ///   - followLinks: false opens with `O_NOFOLLOW`, so a symlink planted in place of the file fails (ELOOP).
    ///   - regularOnly: true opens without blocking and refuses anything but a regular file
    ///     (`notRegularFile`): a named pipe planted in place of the file would otherwise block the
    ///     open until someone writes to it, and a device would be read without end.
    public static func read(
        _ path: String, limit: Int, followLinks: Bool = true, regularOnly: Bool
    ) throws(FileError) -> [UInt8] {
        let flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | (followLinks ? 0 : O_NOFOLLOW) | (regularOnly ? O_NONBLOCK : 0)
        let fd = open(path, flags)
        guard fd >= 0 else { throw FileError(path: path, errno: Glibc.errno, operation: "read") }
        defer { close(fd) }
        var info = stat()
        if fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR {
            throw FileError(path: path, errno: EISDIR, operation: "read")
        }
        if regularOnly && (fstat(fd, &info) != 0 || (info.st_mode & S_IFMT) != S_IFREG) {
            throw FileError(path: path, cause: .notRegularFile, operation: "read")
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if Glibc.errno == EINTR { continue }
                throw FileError(path: path, errno: Glibc.errno, operation: "read")
            }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
            if bytes.count > limit { throw FileError(path: path, cause: .tooLarge, operation: "read") }
        }
        return bytes
    }

    /// Replaces a file atomically: a temporary file beside it, written, then renamed over it, so a
    /// reader sees the old contents or the new, never half of either.
    ///
    /// With `durable` (every file in the state directory) this is the crash-consistency protocol
    /// systemd and SQLite use, and the only place it is written down: (1) write the temporary
    /// file, (2) `fsync` it, so its data is on disk before its name is; (3) `rename` it over the
    /// old name; (4) `fsync` the directory, so the rename itself is on disk. A power cut at any
    /// point leaves the old file or the new one, whole. Without step 2 the rename can reach the
    /// disk before the data, and a power cut leaves an empty file under the real name; a SIGKILL
    /// cannot show that, because the page cache survives it. Runtime files (tmpfs, gone at boot)
    /// skip the syncs.
    public static func writeAtomically(
        _ path: String, _ bytes: [UInt8], mode: mode_t = 0o600, durable: Bool = false
    ) throws(FileError) {
        // The steps are written once, for the kernel and the simulated disk alike (WriteSteps.swift).
        try WriteSteps.writeAtomically(KernelCalls(), path, bytes, mode: mode, durable: durable, pid: getpid())
    }

    /// Writes a UTF-8 string atomically (see the bytes' form for `durable`).
    public static func writeAtomically(
        _ path: String, _ text: String, mode: mode_t = 0o600, durable: Bool = false
    ) throws(FileError) {
        try self.writeAtomically(path, Array(text.utf8), mode: mode, durable: durable)
    }

    /// Appends bytes to a file (created 0600 where missing, a final symlink refused) and syncs them
    /// (`fdatasync`) before returning; a file this made (or found empty) has its directory synced
    /// too, since its name is on disk only once its directory is.
    ///
    /// All or nothing: a write cut short (a full disk takes what fits in the file's last block and
    /// refuses the rest) or a failed sync is truncated back to where the file ended, so nothing is
    /// left half written and the caller can append the same bytes again without doubling any.
    /// Only one writer may append (the daemon's runtime lock): the file is taken to end where it
    /// ended when opened.
    public static func appendDurably(_ path: String, _ bytes: [UInt8]) throws(FileError) {
        try WriteSteps.appendDurably(KernelCalls(), path, bytes)
    }

    /// `fsync`s the directory holding `path`: a rename or a new file is on disk only once its
    /// directory is.
    public static func syncDirectory(of path: String) throws(FileError) {
        try WriteSteps.syncDirectory(KernelCalls(), of: path)
    }

    /// Sets a file that cannot be trusted aside as `<path>.corrupt-<time>` (kept for a person to
    /// look at, never read again), and syncs the directory. Returns the new name.
    public static func setAside(_ path: String, now: Instant) throws(FileError) -> String {
        let aside = "\(path).corrupt-\(now.rfc3339)"
        guard rename(path, aside) == 0 else { throw FileError(path: path, errno: Glibc.errno, operation: "set aside") }
        try? self.syncDirectory(of: path)
        return aside
    }

    /// Creates a directory and its missing parents, each with `mode`: a parent made here is as
    /// private as the directory (a runtime directory's parent is never left 0755 for all to read).
    /// Existing directories are kept as they are.
    public static func makeDirectories(_ path: String, mode: mode_t = 0o700) throws(FileError) {
        var current = path.hasPrefix("/") ? "" : "."
        let components = path.split(separator: "/")
        for component in components {
            current += "/" + component
            // An existing directory on a read-only mount answers mkdir with EROFS, not EEXIST.
            var info = stat()
            if stat(current, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR { continue }
            if mkdir(current, mode) != 0 {
                // EEXIST from a file (or a link to one) where the directory should be is no directory.
                let saved = Glibc.errno
                let isDirectory = stat(current, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
                guard saved == EEXIST && isDirectory else {
                    let reason = saved == EEXIST ? ENOTDIR : saved
                    throw FileError(path: current, errno: reason, operation: "create directory")
                }
            }
        }
    }

    /// Whether a path exists (without following a final symlink).
    public static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// Whether `path` is a regular file itself (a link to one is not).
    public static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }
}

/// The process environment as a dictionary, read once by the mains and passed down.
public func processEnvironment() -> [String: String] {
    // Sized first: growing the dictionary rehashed it a few times at every daysomectl start.
    var count = 0
    while environ[count] != nil { count += 1 }
    var result = [String: String](minimumCapacity: count)
    var pointer = environ
    while let entry = pointer.pointee {
        let text = String(cString: entry)
        if let equals = text.firstIndex(of: "=") {
            result[String(text[..<equals])] = String(text[text.index(after: equals)...])
        }
        pointer += 1
    }
    return result
}

/// The variables `names` of the process environment (those set), as a dictionary: a program that
/// reads a few makes no String of the others (daysomectl starts on every `pending`).
public func processEnvironment(only names: [String]) -> [String: String] {
    var result = [String: String](minimumCapacity: names.count)
    for name in names {
        if let value = getenv(name) { result[name] = String(cString: value) }
    }
    return result
}

/// The process's working directory, read once by the mains to make relative path options absolute;
/// nil where it cannot be named (removed, or longer than PATH_MAX).
public func currentDirectory() -> String? {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    guard getcwd(&buffer, buffer.count) != nil else { return nil }
    let text = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    // Linux prefixes "(unreachable)" when the directory lies outside the process's root.
    return text.hasPrefix("/") ? text : nil
}

/// The current time, whole seconds: only the mains and the daemon's loop read the clock.
public func currentInstant() -> Instant {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return Instant(seconds: Int64(now.tv_sec))
}

/// Writes text to a file descriptor whole (stdout is 1, stderr is 2), without C's shared FILE streams.
public func writeText(_ text: String, to fd: Int32) {
    // From the string's own bytes: no copy of a 14 KB queue into an array first.
    var text = text
    text.withUTF8 { bytes in
        var rest = UnsafeRawBufferPointer(bytes)
        while !rest.isEmpty {
            let count = write(fd, rest.baseAddress, rest.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return }
            rest = UnsafeRawBufferPointer(rebasing: rest[count...])
        }
    }
}
