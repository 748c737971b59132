// The daemon's file operations on the simulated disk. The atomic replace and the durable append
// are FileIO's own steps (WriteSteps) on the simulated disk's calls (SimDisk+Calls.swift), so a
// power cut between any two of them leaves what it would leave on a tablet.

import DaysomeCore
import DaysomeFiles
import Glibc

extension SimDisk {
    public func read(_ path: String, limit: Int, followLinks: Bool, regularOnly: Bool) throws(FileError) -> [UInt8] {
        func failed(_ errno: Int32) -> FileError { FileError(path: path, errno: errno, operation: "read") }
        guard !self.isOff else { throw failed(EIO) }
        let resolved: Resolved
        do { resolved = try self.resolve(path, followFinal: followLinks) } catch { throw failed(error.errno) }
        guard let number = resolved.node, let node = self.nodes[number] else { throw failed(ENOENT) }
        switch node.kind {
        case .symlink: throw failed(ELOOP)
        case .directory: throw failed(EISDIR)
        case .other:
            if regularOnly { throw FileError(path: path, cause: .notRegularFile, operation: "read") }
            return []
        case .file: break
        }
        guard node.permissions & 0o400 != 0 else { throw failed(EACCES) }
        if let fault = self.readFaults.first(where: { Self.isUnder(resolved.path, $0.prefix) }) {
            throw failed(fault.errno)
        }
        guard node.data.count <= limit else { throw FileError(path: path, cause: .tooLarge, operation: "read") }
        return node.data
    }

    public func writeAtomically(_ path: String, _ bytes: [UInt8], mode: mode_t, durable: Bool) throws(FileError) {
        try WriteSteps.writeAtomically(Calls(disk: self), path, bytes, mode: mode, durable: durable, pid: self.pid)
    }

    public func appendDurably(_ path: String, _ bytes: [UInt8]) throws(FileError) {
        try WriteSteps.appendDurably(Calls(disk: self), path, bytes)
    }

    public func syncDirectory(of path: String) throws(FileError) {
        try WriteSteps.syncDirectory(Calls(disk: self), of: path)
    }

    public func setAside(_ path: String, now: Instant) throws(FileError) -> String {
        let aside = "\(path).corrupt-\(now.rfc3339)"
        do {
            try self.rename(self.resolve(path, followFinal: false), self.resolve(aside, followFinal: false))
        } catch {
            throw FileError(path: path, errno: error.errno, operation: "set aside")
        }
        try? self.syncDirectory(of: path)
        return aside
    }

    public func makeDirectories(_ path: String, mode: mode_t) throws(FileError) {
        var current = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            current += "/" + component
            if self.isDirectory(current) { continue }
            do throws(Failure) {
                guard !self.isOff else { throw Failure(EIO) }
                let resolved = try self.resolve(current, followFinal: false)
                // An existing file (or a link to one) where the directory should be is no directory.
                if resolved.node != nil { throw Failure(ENOTDIR) }
                _ = try self.create(.directory, at: resolved, permissions: UInt32(mode) & 0o7777)
            } catch {
                throw FileError(path: current, errno: error.errno, operation: "create directory")
            }
        }
    }

    public func removeFile(_ path: String) throws(FileError) {
        do {
            try self.remove(self.resolve(path, followFinal: false), directory: false)
        } catch {
            throw FileError(path: path, errno: error.errno, operation: "remove")
        }
    }

    public func removeDirectory(_ path: String) throws(FileError) {
        do {
            try self.remove(self.resolve(path, followFinal: false), directory: true)
        } catch {
            throw FileError(path: path, errno: error.errno, operation: "remove directory")
        }
    }

    public func status(_ path: String, followLinks: Bool) -> FileStatus? {
        guard !self.isOff, let resolved = try? self.resolve(path, followFinal: followLinks),
            let number = resolved.node, let node = self.nodes[number]
        else { return nil }
        let kind: FileStatus.Kind
        switch node.kind {
        case .file: kind = .regular
        case .directory: kind = .directory
        case .symlink: kind = .symlink
        case .other: kind = .other
        }
        return FileStatus(
            kind: kind, device: UInt64(node.fileSystem), inode: number, permissions: node.permissions,
            ownedByUs: true, modified: node.modified)
    }

    public func identity(of path: String) -> FileIdentity {
        let node = self.status(path, followLinks: true).map { "\($0.device):\($0.inode)" }
        return FileIdentity(node: node, canonicalPath: self.canonical(path))
    }
}
