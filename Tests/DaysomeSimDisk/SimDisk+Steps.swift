// The simulated disk's steps: each changes one thing, counts as one step (a power cut may fall
// before any of them), and leaves what it changed unsynced until its sync step.

import Glibc

extension SimDisk {
    /// Counts a step, or fails it when the power is off or is cut before it.
    func step() throws(Failure) {
        if self.isOff { throw Failure(EIO) }
        if let cutAfter = self.cutAfter, self.steps >= cutAfter {
            self.cutPower()
            throw Failure(EIO)
        }
        self.steps += 1
    }

    /// Names `node` (or nothing) in a directory: unsynced on the disk, at once on a tmpfs.
    func link(_ directory: UInt64, _ changes: [Change]) {
        let node = self.nodes[directory]!
        for change in changes {
            if self.movesDirectories(node.entries[change.name]) || self.movesDirectories(change.node) {
                self.namesMoved()
            }
            node.entries[change.name] = change.node
        }
        if self.fileSystems[node.fileSystem].isTmpfs {
            node.syncedEntries = node.entries
        } else {
            node.pending.append(changes)
        }
        node.modified = self.clock
    }

    /// Whether naming or unnaming `node` may move where a path leads: a directory or a link.
    private func movesDirectories(_ node: UInt64?) -> Bool {
        guard let node, let kind = self.nodes[node]?.kind else { return false }
        return kind != .file && kind != .other
    }

    /// A new inode on the file system of `directory`, or ENOSPC when its table is full.
    func newNode(_ kind: Node.Kind, in directory: UInt64, permissions: UInt32) throws(Failure) -> UInt64 {
        let fileSystem = self.nodes[directory]!.fileSystem
        func used() -> Int { self.nodes.values.reduce(0) { $0 + ($1.fileSystem == fileSystem ? 1 : 0) } }
        // Inodes no name leads to any more (files replaced, removed) are dropped now and then, so
        // that a long run holds only what a power cut could still bring back.
        if self.nodes.count >= self.collectAt {
            self.collectGarbage()
            self.collectAt = max(256, self.nodes.count * 2)
        }
        // No file system uses more inodes than there are: count them only near its limit.
        if self.nodes.count >= self.fileSystems[fileSystem].inodeLimit
            && used() >= self.fileSystems[fileSystem].inodeLimit
        {
            self.collectGarbage()
            if used() >= self.fileSystems[fileSystem].inodeLimit { throw Failure(ENOSPC) }
        }
        let number = self.nextInode
        self.nextInode += 1
        self.nodes[number] = Node(kind: kind, fileSystem: fileSystem, permissions: permissions, modified: self.clock)
        return number
    }

    /// Write and search permission on a directory, as a create, a rename or an unlink in it needs.
    func checkWritable(_ directory: UInt64) throws(Failure) {
        guard self.nodes[directory]!.permissions & 0o300 == 0o300 else { throw Failure(EACCES) }
    }

    /// Creates a file, a directory or a link at a name that is free.
    func create(
        _ kind: Node.Kind, at resolved: Resolved, permissions: UInt32
    ) throws(Failure) -> UInt64 {
        try self.step()
        if let errno = self.fault(resolved.path, .create) { throw Failure(errno) }
        guard resolved.node == nil else { throw Failure(EEXIST) }
        try self.checkWritable(resolved.parent)
        let number = try self.newNode(kind, in: resolved.parent, permissions: permissions)
        self.link(resolved.parent, [Change(name: resolved.name, node: number)])
        return number
    }

    /// Replaces a file's bytes (unsynced).
    func write(_ number: UInt64, _ bytes: [UInt8], path: String) throws(Failure) {
        try self.step()
        if let errno = self.fault(path, .write) { throw Failure(errno) }
        self.nodes[number]!.data = bytes
        self.nodes[number]!.modified = self.clock
    }

    /// Cuts a file back to `count` bytes (unsynced).
    func truncate(_ number: UInt64, to count: Int, path: String) throws(Failure) {
        try self.step()
        if let errno = self.fault(path, .change) { throw Failure(errno) }
        self.nodes[number]!.data = Array(self.nodes[number]!.data.prefix(count))
        self.nodes[number]!.modified = self.clock
    }

    /// `fsync` of a file: its bytes survive a power cut.
    func syncFile(_ number: UInt64, path: String) throws(Failure) {
        try self.step()
        if let errno = self.fault(path, .sync) { throw Failure(errno) }
        self.nodes[number]!.syncedData = self.nodes[number]!.data
    }

    /// `fsync` of a directory: its names as they are now survive a power cut.
    func syncDirectory(_ number: UInt64, path: String) throws(Failure) {
        try self.step()
        if let errno = self.fault(path, .sync) { throw Failure(errno) }
        self.nodes[number]!.syncedEntries = self.nodes[number]!.entries
        self.nodes[number]!.pending = []
    }

    /// `rename(2)`: one change of one directory, or one of each.
    func rename(_ from: Resolved, _ to: Resolved) throws(Failure) {
        try self.step()
        if let errno = self.fault(to.path, .change) ?? self.fault(from.path, .change) { throw Failure(errno) }
        guard let moved = from.node else { throw Failure(ENOENT) }
        try self.checkWritable(from.parent)
        try self.checkWritable(to.parent)
        let movedIsDirectory = self.nodes[moved]!.kind == .directory
        if let target = to.node, target != moved {
            let targetIsDirectory = self.nodes[target]!.kind == .directory
            if targetIsDirectory && !movedIsDirectory { throw Failure(EISDIR) }
            if !targetIsDirectory && movedIsDirectory { throw Failure(ENOTDIR) }
            if targetIsDirectory && !self.nodes[target]!.entries.isEmpty { throw Failure(ENOTEMPTY) }
        }
        guard self.nodes[from.parent]!.fileSystem == self.nodes[to.parent]!.fileSystem else { throw Failure(EXDEV) }
        if from.parent == to.parent {
            self.link(from.parent, [Change(name: from.name, node: nil), Change(name: to.name, node: moved)])
        } else {
            self.link(to.parent, [Change(name: to.name, node: moved)])
            self.link(from.parent, [Change(name: from.name, node: nil)])
        }
        self.renamedOnto[to.path, default: 0] += 1
    }

    /// `unlink(2)` (a directory is refused) or `rmdir(2)` (only an empty directory).
    func remove(_ resolved: Resolved, directory: Bool) throws(Failure) {
        try self.step()
        if let errno = self.fault(resolved.path, .change) { throw Failure(errno) }
        guard let number = resolved.node else { throw Failure(ENOENT) }
        try self.checkWritable(resolved.parent)
        let isDirectory = self.nodes[number]!.kind == .directory
        if directory {
            guard isDirectory else { throw Failure(ENOTDIR) }
            guard self.nodes[number]!.entries.isEmpty else { throw Failure(ENOTEMPTY) }
        } else if isDirectory {
            throw Failure(EISDIR)
        }
        self.link(resolved.parent, [Change(name: resolved.name, node: nil)])
    }
}
