// The crash-consistent writes' steps, written once: the atomic replace and the durable append as
// sequences of system calls over `FileCalls`. Production runs them on the kernel's calls
// (`KernelCalls`, through FileIO); the simulated disk runs the very same sequence on its own, so a
// power cut between any two steps there tests the protocol that ships, not a copy of it.

import Glibc

/// The system calls the state writes are made of.
public protocol FileCalls {
    /// An open file or directory.
    associatedtype File
    /// `open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | (append ? O_APPEND : O_TRUNC), mode)`.
    func openForWriting(_ path: String, mode: mode_t, append: Bool) throws(Errno) -> File
    /// `open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)`.
    func openDirectory(_ path: String) throws(Errno) -> File
    /// `fstat`'s size.
    func size(of file: File) throws(Errno) -> Int
    /// `write` until every byte is written (EINTR retried).
    func write(_ file: File, _ bytes: ArraySlice<UInt8>) throws(Errno)
    /// `fsync`, or `fdatasync` with `dataOnly`.
    func sync(_ file: File, dataOnly: Bool) throws(Errno)
    /// `ftruncate`, its failure ignored (an undo).
    func truncate(_ file: File, to size: Int)
    func close(_ file: File)
    func rename(_ from: String, _ to: String) throws(Errno)
    /// `unlink`, its failure ignored (a clean-up).
    func unlink(_ path: String)
}

/// The state writes' protocol (FileIO.writeAtomically and FileIO.appendDurably say why each step is there).
public enum WriteSteps {
    /// The atomic replace: a temporary file beside `path` (named by `pid`), written, synced when
    /// `durable`, renamed over `path`, and its directory synced when `durable`.
    public static func writeAtomically<Calls: FileCalls>(
        _ calls: Calls, _ path: String, _ bytes: [UInt8], mode: mode_t, durable: Bool, pid: Int32
    ) throws(FileError) {
        try self.writeAtomically(calls, path, mode: mode, durable: durable, pid: pid) { emit in emit(bytes[...]) }
    }

    /// The atomic replace with the contents handed over in pieces by `contents` (each piece written
    /// as it comes): a 2.5 MB queue is never held whole. After a piece fails, later ones are dropped
    /// and the failure is thrown once `contents` returns; the steps around it are the same.
    public static func writeAtomically<Calls: FileCalls>(
        _ calls: Calls, _ path: String, mode: mode_t, durable: Bool, pid: Int32,
        contents: (_ emit: (ArraySlice<UInt8>) -> Void) -> Void
    ) throws(FileError) {
        let temporary = "\(path).tmp.\(pid)"
        let file: Calls.File
        do {
            file = try calls.openForWriting(temporary, mode: mode, append: false)
        } catch {
            throw FileError(path: temporary, cause: .system(error), operation: "create")
        }
        func fail(_ error: Errno, _ operation: String) -> FileError {
            calls.close(file)
            calls.unlink(temporary)
            return FileError(path: temporary, cause: .system(error), operation: operation)
        }
        var failed: Errno?
        contents { piece in
            guard failed == nil else { return }
            do throws(Errno) { try calls.write(file, piece) } catch { failed = error }
        }
        if let failed { throw fail(failed, "write") }
        if durable {
            do { try calls.sync(file, dataOnly: false) } catch { throw fail(error, "sync") }
        }
        calls.close(file)
        do {
            try calls.rename(temporary, path)
        } catch {
            calls.unlink(temporary)
            throw FileError(path: path, cause: .system(error), operation: "rename")
        }
        if durable { try self.syncDirectory(calls, of: path) }
    }

    /// The durable append, all or nothing: written, `fdatasync`ed, and a file it made (or found
    /// empty) has its directory synced; any failure truncates the file back to where it ended.
    public static func appendDurably<Calls: FileCalls>(
        _ calls: Calls, _ path: String, _ bytes: [UInt8]
    ) throws(FileError) {
        let file: Calls.File
        do {
            file = try calls.openForWriting(path, mode: 0o600, append: true)
        } catch {
            throw FileError(path: path, cause: .system(error), operation: "open")
        }
        defer { calls.close(file) }
        let end: Int
        do { end = try calls.size(of: file) } catch {
            throw FileError(path: path, cause: .system(error), operation: "inspect")
        }
        // A new (or emptied) file's name is on disk only once its directory is: synced below.
        let created = end == 0
        func undo(_ error: Errno, _ operation: String) -> FileError {
            // Only this daemon appends (its runtime directory's lock), so the file ended at `end`.
            calls.truncate(file, to: end)
            return FileError(path: path, cause: .system(error), operation: operation)
        }
        do { try calls.write(file, bytes[...]) } catch { throw undo(error, "append to") }
        do { try calls.sync(file, dataOnly: true) } catch { throw undo(error, "sync") }
        if created {
            do {
                try self.syncDirectory(calls, of: path)
            } catch {
                calls.truncate(file, to: end)
                throw error
            }
        }
    }

    /// `fsync` of the directory holding `path`.
    public static func syncDirectory<Calls: FileCalls>(_ calls: Calls, of path: String) throws(FileError) {
        let parent = directory(of: path)
        let file: Calls.File
        do {
            file = try calls.openDirectory(parent)
        } catch {
            throw FileError(path: parent, cause: .system(error), operation: "open directory")
        }
        defer { calls.close(file) }
        do {
            try calls.sync(file, dataOnly: false)
        } catch {
            throw FileError(path: parent, cause: .system(error), operation: "sync directory")
        }
    }
}

/// The kernel's calls, as FileIO makes them.
public struct KernelCalls: FileCalls {
    public init() {}

    public func openForWriting(_ path: String, mode: mode_t, append: Bool) throws(Errno) -> Int32 {
        let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | (append ? O_APPEND : O_TRUNC), mode)
        guard fd >= 0 else { throw .current }
        return fd
    }

    public func openDirectory(_ path: String) throws(Errno) -> Int32 {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw .current }
        return fd
    }

    public func size(of file: Int32) throws(Errno) -> Int {
        var info = stat()
        guard fstat(file, &info) == 0 else { throw .current }
        return Int(info.st_size)
    }

    public func write(_ file: Int32, _ bytes: ArraySlice<UInt8>) throws(Errno) {
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.write(file, $0.baseAddress! + written, $0.count - written) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .current
            }
            written += count
        }
    }

    public func sync(_ file: Int32, dataOnly: Bool) throws(Errno) {
        guard (dataOnly ? fdatasync(file) : fsync(file)) == 0 else { throw .current }
    }

    public func truncate(_ file: Int32, to size: Int) { _ = ftruncate(file, off_t(size)) }

    public func close(_ file: Int32) { _ = Glibc.close(file) }

    public func rename(_ from: String, _ to: String) throws(Errno) {
        guard Glibc.rename(from, to) == 0 else { throw .current }
    }

    public func unlink(_ path: String) { _ = Glibc.unlink(path) }
}
