// The daemon's two locks on the simulated disk: the runtime directory's `daemon.lock` (an OFD
// lock, with the record written in place over its reserved space) and the state directory's
// flock. A lock is the hold's, released when the hold is dropped (the daemon's end) and by a
// power cut (every process ends); a second hold on the same inode is refused.

import DaysomeFiles
import Glibc

extension SimDisk {
    public func lockRuntimeDirectory(_ runtimeDirectory: String) throws(FileError) -> any RuntimeDirectoryHold {
        let path = DaemonLock.path(in: runtimeDirectory)
        // open(path, O_RDWR | O_CREAT | O_NOFOLLOW, 0600)
        let number: UInt64
        do throws(Failure) {
            guard !self.isOff else { throw Failure(EIO) }
            let resolved = try self.resolve(path, followFinal: false)
            if let existing = resolved.node {
                switch self.nodes[existing]!.kind {
                case .symlink: throw Failure(ELOOP)
                case .directory: throw Failure(EISDIR)
                default: number = existing
                }
            } else {
                number = try self.create(.file, at: resolved, permissions: 0o600)
            }
        } catch {
            throw FileError(path: path, errno: error.errno, operation: "open")
        }
        guard self.locks[number] == nil else { throw FileError(path: path, errno: EWOULDBLOCK, operation: "lock") }
        let earlier = Array(self.nodes[number]!.data.prefix(DaemonLock.recordSize))
        let hold = SimRuntimeHold(disk: self, node: number, path: path, earlierRecord: earlier)
        self.locks[number] = ObjectIdentifier(hold)
        // posix_fallocate: the record's space, zeros past what the file held, where there is room.
        let data = self.nodes[number]!.data
        if data.count < DaemonLock.recordSize {
            try? self.write(
                number, data + [UInt8](repeating: 0, count: DaemonLock.recordSize - data.count), path: path)
        }
        return hold
    }

    public func lockStateDirectory(
        _ stateDirectory: String, standingIn: Bool
    ) throws(StateDirectoryLockError) -> any StateDirectoryHold {
        let path = standingIn ? self.nearestExistingDirectory(above: stateDirectory) : stateDirectory
        // open(path, O_RDONLY | O_DIRECTORY)
        let number: UInt64
        do throws(Failure) {
            guard !self.isOff else { throw Failure(EIO) }
            guard let found = try self.resolve(path, followFinal: true).node else { throw Failure(ENOENT) }
            guard self.nodes[found]!.kind == .directory else { throw Failure(ENOTDIR) }
            guard self.nodes[found]!.permissions & 0o400 != 0 else { throw Failure(EACCES) }
            number = found
        } catch {
            throw .file(FileError(path: path, errno: error.errno, operation: "open"))
        }
        guard self.locks[number] == nil else {
            throw .taken(
                StateDirectoryTaken(
                    stateDirectory: stateDirectory, holder: nil, standIn: path == stateDirectory ? nil : path))
        }
        let hold = SimStateHold(disk: self, node: number, lockedPath: path)
        self.locks[number] = ObjectIdentifier(hold)
        return hold
    }

    /// The nearest directory above `path` that exists, as StateDirectoryLock finds it.
    func nearestExistingDirectory(above path: String) -> String {
        var components = self.canonical(path).split(separator: "/").dropLast()
        while true {
            let candidate = "/" + components.joined(separator: "/")
            if self.isDirectory(candidate) { return candidate }
            guard components.popLast() != nil else { return "/" }
        }
    }

    /// Ends a hold's lock, unless a power cut ended it and another hold has the inode now.
    func release(_ node: UInt64, _ hold: ObjectIdentifier) {
        if self.locks[node] == hold { self.locks[node] = nil }
    }
}

/// A daemon's `daemon.lock` on the simulated disk.
final class SimRuntimeHold: RuntimeDirectoryHold {
    private weak var disk: SimDisk?
    private let node: UInt64
    private let path: String
    let earlierRecord: [UInt8]

    init(disk: SimDisk, node: UInt64, path: String, earlierRecord: [UInt8]) {
        self.disk = disk
        self.node = node
        self.path = path
        self.earlierRecord = earlierRecord
    }

    /// As DaemonLock's: padded with spaces, written in place; a write that fails leaves the file empty.
    @discardableResult func keepRecord(_ record: [UInt8]) -> Bool {
        guard let disk = self.disk, disk.nodes[self.node] != nil else { return false }
        func empty() -> Bool {
            try? disk.truncate(self.node, to: 0, path: self.path)
            return false
        }
        guard record.count <= DaemonLock.recordSize else { return empty() }
        let padded = record + [UInt8](repeating: 0x20, count: DaemonLock.recordSize - record.count)
        do {
            try disk.step()
            if let errno = disk.fault(self.path, .inPlace) { throw SimDisk.Failure(errno) }
        } catch {
            return empty()
        }
        disk.nodes[self.node]!.data = padded
        disk.nodes[self.node]!.modified = disk.clock
        return true
    }

    deinit { self.disk?.release(self.node, ObjectIdentifier(self)) }
}

/// A daemon's flock on its state directory on the simulated disk.
final class SimStateHold: StateDirectoryHold {
    private weak var disk: SimDisk?
    private let node: UInt64
    let lockedPath: String

    init(disk: SimDisk, node: UInt64, lockedPath: String) {
        self.disk = disk
        self.node = node
        self.lockedPath = lockedPath
    }

    func holds(_ path: String) -> Bool {
        guard let status = self.disk?.status(path, followLinks: true) else { return false }
        return status.kind == .directory && status.inode == self.node
    }

    deinit { self.disk?.release(self.node, ObjectIdentifier(self)) }
}
