// A disk in memory, for tests: the daemon's own file code (StateDisk) runs on it unchanged, and
// it loses what a real disk loses. Per file it keeps what was synced and what was not; per
// directory the names as they were at its last fsync and every change since, in order. A power
// cut keeps only what was synced (or, given a seed, some of the rest: a prefix of each
// directory's changes, each file's new bytes whole, lost or torn), so a rename, a create or an
// unlink is durable only once its directory was synced. It has directories, renames, symlinks,
// permissions (the daemon's user owns everything; a directory without write permission refuses
// a create with EACCES), inode tables with a limit (a full one refuses a create with ENOSPC),
// tmpfs mounts that empty at every boot, and faults on demand (ENOSPC, EROFS, EIO on a path).
//
// Every operation that changes the disk is one step; `cutPower(afterSteps:)` cuts the power
// before a given step, so a test can cut at every point of a write. Single-threaded, as the
// daemon's loop is.

import DaysomeCore
import DaysomeFiles
import Glibc

/// An in-memory file system that loses what was not synced at a power cut.
public final class SimDisk: StateDisk {
    /// A failed step: the errno a system call would have returned.
    struct Failure: Error {
        let errno: Int32
        init(_ errno: Int32) { self.errno = errno }
    }

    /// One change of a directory's names: `name` now leads to `node`, or to nothing.
    struct Change {
        let name: String
        let node: UInt64?
    }

    /// An inode: a file, a directory, a symlink or a pipe. A class, so that a path's walk reads
    /// each directory it passes without copying its names and bytes (a struct taken out of
    /// `nodes` was copied, arrays and dictionaries retained, at every component); `copy()`
    /// clones each one, so two disks never share an inode.
    final class Node {
        enum Kind: Equatable {
            case file, directory, other
            case symlink(String)
        }

        var kind: Kind
        /// Which file system it is on (index into `fileSystems`).
        var fileSystem: Int
        var permissions: UInt32
        var modified: Int64
        /// What a reader sees now.
        var data: [UInt8] = []
        /// What a power cut keeps for certain.
        var syncedData: [UInt8] = []
        /// A directory's names now.
        var entries: [String: UInt64] = [:]
        /// A directory's names at its last fsync.
        var syncedEntries: [String: UInt64] = [:]
        /// The changes since, in order, one group per operation (a rename's two names are one).
        var pending: [[Change]] = []

        init(kind: Kind, fileSystem: Int, permissions: UInt32, modified: Int64) {
            self.kind = kind
            self.fileSystem = fileSystem
            self.permissions = permissions
            self.modified = modified
        }

        /// An inode with the same kind, bytes and names, shared with no disk.
        func clone() -> Node {
            let copy = Node(
                kind: self.kind, fileSystem: self.fileSystem, permissions: self.permissions, modified: self.modified)
            copy.data = self.data
            copy.syncedData = self.syncedData
            copy.entries = self.entries
            copy.syncedEntries = self.syncedEntries
            copy.pending = self.pending
            return copy
        }
    }

    /// The disk (index 0, which keeps what was synced) or a tmpfs mount (emptied at boot).
    struct FileSystem {
        var root: UInt64
        var inodeLimit: Int
        var isTmpfs: Bool
        var rootPermissions: UInt32
    }

    /// Where a path leads.
    struct Resolved {
        /// The directory holding the last name.
        let parent: UInt64
        let name: String
        /// What the name leads to; nil when nothing is there.
        let node: UInt64?
        /// The canonical path of the name (links before it resolved).
        let path: String
    }

    var nodes: [UInt64: Node] = [:]
    var nextInode: UInt64 = 2
    var fileSystems: [FileSystem] = []
    var writeFaults: [(prefix: String, errno: Int32)] = []
    var readFaults: [(prefix: String, errno: Int32)] = []
    var cutAfter: Int?
    /// How many inodes there may be before the unreachable ones are dropped (`newNode`).
    var collectAt = 256
    /// Each path's names, as `resolve` splits them (SimDisk+Paths.swift).
    var componentsByPath: [String: SplitPath] = [:]
    /// The directory each path's last name was found in, and `namesGeneration` then: still
    /// where the path leads while no directory, link or permission moved (SimDisk+Paths.swift).
    var directoryByPath: [String: (generation: Int, node: UInt64)] = [:]
    var namesGeneration = 0
    /// The inodes locked now, each with the hold that has it (a power cut ends every process).
    var locks: [UInt64: ObjectIdentifier] = [:]

    /// How many steps (changes of the disk, syncs among them) ran since the disk was made.
    public internal(set) var steps = 0
    /// How many renames put a file at each path: an atomic write each (a published file's rewrites).
    public internal(set) var renamedOnto: [String: Int] = [:]
    /// The power is off: every call fails with EIO until `powerOn`.
    public internal(set) var isOff = false
    /// How many power cuts there were.
    public internal(set) var powerCuts = 0
    /// The pid that names atomic writes' temporary files, as FileIO's `getpid()` does.
    public var pid: Int32 = 4_242
    /// The time stamped on what changes, in nanoseconds since the epoch (the test moves it).
    public var clock: Int64 = 1_780_000_000 * 1_000_000_000

    /// A disk with an empty root directory (0755) and room for `inodes` inodes.
    public init(inodes: Int = 1 << 20) {
        self.nodes[1] = Node(kind: .directory, fileSystem: 0, permissions: 0o755, modified: self.clock)
        self.fileSystems = [FileSystem(root: 1, inodeLimit: inodes, isTmpfs: false, rootPermissions: 0o755)]
    }

    /// A disk in the same state as this one, power and steps included: cut one way, then the other.
    public func copy() -> SimDisk {
        let copy = SimDisk()
        copy.nodes = self.nodes.mapValues { $0.clone() }
        copy.nextInode = self.nextInode
        copy.fileSystems = self.fileSystems
        copy.writeFaults = self.writeFaults
        copy.readFaults = self.readFaults
        copy.cutAfter = self.cutAfter
        copy.collectAt = self.collectAt
        copy.locks = self.locks
        copy.steps = self.steps
        copy.renamedOnto = self.renamedOnto
        copy.isOff = self.isOff
        copy.powerCuts = self.powerCuts
        copy.pid = self.pid
        copy.clock = self.clock
        return copy
    }

    // MARK: - Faults and power

    /// Changes under `path` (the path itself, or anything below it) fail with `errno` from now
    /// on: ENOSPC refuses what needs space (a create, a write, a directory), EROFS every change
    /// but a sync, EIO (or any other) every change and every sync. Nil makes them succeed again.
    public func fail(_ path: String, with errno: Int32?) {
        self.writeFaults.removeAll { $0.prefix == path }
        if let errno { self.writeFaults.append((path, errno)) }
    }

    /// Reads under `path` fail with `errno` from now on (EIO: a bad sector); nil makes them succeed.
    public func failReads(_ path: String, with errno: Int32?) {
        self.readFaults.removeAll { $0.prefix == path }
        if let errno { self.readFaults.append((path, errno)) }
    }

    /// Cuts the power now: every call fails with EIO until `powerOn`.
    public func cutPower() {
        if !self.isOff { self.powerCuts += 1 }
        self.isOff = true
    }

    /// Cuts the power before the step `count` steps from now: that many steps run, and the one after fails.
    public func cutPower(afterSteps count: Int) {
        self.cutAfter = self.steps + count
    }

    /// Boots after a power cut. Without a seed only what was synced is kept: each file's synced
    /// bytes, each directory's names at its last fsync. With one, some of the rest may be kept
    /// too, as a disk's own order of writing back would: a prefix of each directory's changes,
    /// and each file's unsynced bytes whole, lost, or torn (a prefix of them, the rest zeros or
    /// the old bytes). Every tmpfs is empty.
    public func powerOn(seed: UInt64? = nil) {
        var random = seed.map { SplitMix64(seed: $0) }
        for number in self.nodes.keys.sorted() {
            guard let node = self.nodes[number], !self.fileSystems[node.fileSystem].isTmpfs else { continue }
            if node.kind == .directory {
                var entries = node.syncedEntries
                var kept = 0
                if var generator = random {
                    kept = Int(generator.next() % UInt64(node.pending.count + 1))
                    random = generator
                }
                for group in node.pending.prefix(kept) {
                    for change in group { entries[change.name] = change.node }
                }
                node.entries = entries
                node.syncedEntries = entries
                node.pending = []
            } else if node.data != node.syncedData {
                if var generator = random {
                    node.data = Self.afterCut(old: node.syncedData, new: node.data, &generator)
                    random = generator
                } else {
                    node.data = node.syncedData
                }
                node.syncedData = node.data
            }
        }
        self.boot()
    }

    /// A clean reboot: everything is written back before the power goes; every tmpfs is empty.
    public func reboot() {
        for node in self.nodes.values {
            node.syncedData = node.data
            node.syncedEntries = node.entries
            node.pending = []
        }
        self.boot()
    }

    private func boot() {
        self.namesMoved()
        for index in self.fileSystems.indices where self.fileSystems[index].isTmpfs {
            let root = self.fileSystems[index].root
            self.nodes[root]!.entries = [:]
            self.nodes[root]!.syncedEntries = [:]
            self.nodes[root]!.permissions = self.fileSystems[index].rootPermissions
        }
        self.isOff = false
        self.cutAfter = nil
        self.locks = [:]
        self.collectGarbage()
    }

    /// What a cut leaves of a file's unsynced bytes. Bytes the write left as they were synced
    /// (the lines before an append) are on the disk already: a tear falls after them.
    private static func afterCut(old: [UInt8], new: [UInt8], _ random: inout SplitMix64) -> [UInt8] {
        let same = zip(old, new).prefix { $0 == $1 }.count
        let cut = same + Int(random.next() % UInt64(new.count - same + 1))
        switch random.next() % 5 {
        case 0: return old
        case 1: return new
        case 2: return Array(new.prefix(cut))
        case 3: return Array(new.prefix(cut)) + [UInt8](repeating: 0, count: new.count - cut)
        default: return Array(new.prefix(cut)) + Array(old.dropFirst(cut))
        }
    }

    // MARK: - Inodes

    /// The inodes in use on the file system holding `path` (or nil where it does not exist).
    public func usedInodes(at path: String) -> Int? {
        guard let fileSystem = self.fileSystem(at: path) else { return nil }
        self.collectGarbage()
        return self.nodes.values.filter { $0.fileSystem == fileSystem }.count
    }

    /// The inodes left on the file system holding `path`.
    public func freeInodes(at path: String) -> Int? {
        guard let fileSystem = self.fileSystem(at: path), let used = self.usedInodes(at: path) else { return nil }
        return max(0, self.fileSystems[fileSystem].inodeLimit - used)
    }

    /// Sets the inode limit of the file system holding `path`.
    public func setInodeLimit(_ limit: Int, at path: String) {
        guard let fileSystem = self.fileSystem(at: path) else { return }
        self.fileSystems[fileSystem].inodeLimit = limit
    }

    func fileSystem(at path: String) -> Int? {
        guard let node = try? self.resolve(path, followFinal: true).node else { return nil }
        return self.nodes[node]?.fileSystem
    }

    /// Drops the inodes no name leads to, now or after a power cut.
    func collectGarbage() {
        var reached: Set<UInt64> = []
        var queue = self.fileSystems.map(\.root)
        while let number = queue.popLast() {
            guard reached.insert(number).inserted, let node = self.nodes[number] else { continue }
            queue += node.entries.values
            queue += node.syncedEntries.values
            queue += node.pending.flatMap { $0.compactMap(\.node) }
        }
        self.nodes = self.nodes.filter { reached.contains($0.key) }
    }
}

/// A small seeded generator (SplitMix64): the same seed tears the same way on every run.
struct SplitMix64 {
    var state: UInt64

    init(seed: UInt64) { self.state = seed }

    mutating func next() -> UInt64 {
        self.state &+= 0x9E37_79B9_7F4A_7C15
        var z = self.state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
