// The system calls FileIO's write steps are made of (WriteSteps.swift), on the simulated disk:
// each that changes the disk is one of its steps, so a power cut can fall between any two.

import DaysomeFiles
import Glibc

extension SimDisk {
    /// An open file or directory on the simulated disk.
    public struct OpenFile {
        let node: UInt64
        /// The canonical path it was opened at, for the faults on demand.
        let path: String
    }

    /// The simulated disk's system calls.
    public struct Calls: FileCalls {
        let disk: SimDisk

        /// The calls of `disk`, for a test that drives WriteSteps itself.
        public init(disk: SimDisk) { self.disk = disk }

        public func openForWriting(_ path: String, mode: mode_t, append: Bool) throws(Errno) -> OpenFile {
            do throws(Failure) {
                guard !self.disk.isOff else { throw Failure(EIO) }
                let resolved = try self.disk.resolve(path, followFinal: false)
                guard let existing = resolved.node else {
                    let created = try self.disk.create(.file, at: resolved, permissions: UInt32(mode) & 0o7777)
                    return OpenFile(node: created, path: resolved.path)
                }
                switch self.disk.nodes[existing]!.kind {
                case .symlink: throw Failure(ELOOP)
                case .directory: throw Failure(EISDIR)
                default: break
                }
                guard self.disk.nodes[existing]!.permissions & 0o200 != 0 else { throw Failure(EACCES) }
                if !append && !self.disk.nodes[existing]!.data.isEmpty {
                    try self.disk.truncate(existing, to: 0, path: resolved.path)
                }
                return OpenFile(node: existing, path: resolved.path)
            } catch {
                throw Errno(rawValue: error.errno)
            }
        }

        public func openDirectory(_ path: String) throws(Errno) -> OpenFile {
            do throws(Failure) {
                guard !self.disk.isOff else { throw Failure(EIO) }
                let resolved = try self.disk.resolve(path, followFinal: true)
                guard let found = resolved.node else { throw Failure(ENOENT) }
                guard self.disk.nodes[found]!.kind == .directory else { throw Failure(ENOTDIR) }
                return OpenFile(node: found, path: resolved.path)
            } catch {
                throw Errno(rawValue: error.errno)
            }
        }

        public func size(of file: OpenFile) throws(Errno) -> Int {
            guard !self.disk.isOff, let node = self.disk.nodes[file.node] else { throw Errno(rawValue: EIO) }
            return node.data.count
        }

        /// Appends at the end: the writes the steps make start where the file ends (O_APPEND, or
        /// the first write after O_TRUNC).
        public func write(_ file: OpenFile, _ bytes: ArraySlice<UInt8>) throws(Errno) {
            do {
                try self.disk.write(file.node, self.disk.nodes[file.node]!.data + bytes, path: file.path)
            } catch {
                throw Errno(rawValue: error.errno)
            }
        }

        public func sync(_ file: OpenFile, dataOnly: Bool) throws(Errno) {
            do {
                if self.disk.nodes[file.node]?.kind == .directory {
                    try self.disk.syncDirectory(file.node, path: file.path)
                } else {
                    try self.disk.syncFile(file.node, path: file.path)
                }
            } catch {
                throw Errno(rawValue: error.errno)
            }
        }

        public func truncate(_ file: OpenFile, to size: Int) {
            try? self.disk.truncate(file.node, to: size, path: file.path)
        }

        public func close(_ file: OpenFile) {}

        public func rename(_ from: String, _ to: String) throws(Errno) {
            do {
                try self.disk.rename(
                    self.disk.resolve(from, followFinal: false), self.disk.resolve(to, followFinal: false))
            } catch {
                throw Errno(rawValue: error.errno)
            }
        }

        public func unlink(_ path: String) {
            try? self.disk.removeFile(path)
        }
    }
}

extension SimDisk {
    /// Writes `bytes` into the file at `path` in place, unsynced, as a shell's `>` does: the same
    /// inode (made where missing), truncated and written.
    public func writeInPlace(_ path: String, _ bytes: [UInt8], mode: mode_t = 0o600) throws(FileError) {
        let calls = Calls(disk: self)
        do throws(Errno) {
            let file = try calls.openForWriting(path, mode: mode, append: false)
            defer { calls.close(file) }
            try calls.write(file, bytes[...])
        } catch {
            throw FileError(path: path, errno: error.rawValue, operation: "write")
        }
    }
}
