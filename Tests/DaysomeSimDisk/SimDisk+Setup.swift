// How a test lays out the simulated disk before the daemon runs: files, directories, links and
// mounts as a clean shutdown left them (synced, no step counted, no fault asked), and what it
// looks at afterwards without changing anything.

import DaysomeFiles
import Glibc

extension SimDisk {
    /// Makes the directories of `path` that are missing, synced (0755 unless told).
    public func installDirectory(_ path: String, permissions: UInt32 = 0o755) {
        var current = ""
        for component in path.split(separator: "/") {
            let parent = (try? self.resolve(current.isEmpty ? "/" : current, followFinal: true).node) ?? 1
            current += "/" + component
            if let resolved = try? self.resolve(current, followFinal: true), resolved.node != nil { continue }
            let number = self.nextInode
            self.nextInode += 1
            self.nodes[number] = Node(
                kind: .directory, fileSystem: self.nodes[parent]!.fileSystem, permissions: permissions,
                modified: self.clock)
            self.installName(String(component), number, in: parent)
        }
    }

    /// A file at `path` holding `bytes`, synced, its directories made where missing.
    public func install(_ path: String, _ bytes: [UInt8], permissions: UInt32 = 0o600) {
        self.installNode(path, kind: .file, bytes: bytes, permissions: permissions)
    }

    /// A file at `path` holding `text`, synced.
    public func install(_ path: String, text: String, permissions: UInt32 = 0o600) {
        self.install(path, Array(text.utf8), permissions: permissions)
    }

    /// A symlink at `path` leading to `target`, synced.
    public func installSymlink(_ path: String, to target: String) {
        self.installNode(path, kind: .symlink(target), bytes: [], permissions: 0o777)
    }

    /// A named pipe at `path`, synced.
    public func installPipe(_ path: String) {
        self.installNode(path, kind: .other, bytes: [], permissions: 0o600)
    }

    /// Mounts an empty tmpfs at `path` (made where missing) with room for `inodes` inodes:
    /// whatever is written in it is gone at the next boot, a power cut or a reboot.
    public func mountTmpfs(at path: String, inodes: Int = 1 << 20, permissions: UInt32 = 0o700) {
        self.installDirectory(path, permissions: permissions)
        let resolved = try! self.resolve(path, followFinal: true)
        let fileSystem = self.fileSystems.count
        self.fileSystems.append(
            FileSystem(root: resolved.node!, inodeLimit: inodes, isTmpfs: true, rootPermissions: permissions))
        self.namesMoved()
        self.nodes[resolved.node!]!.fileSystem = fileSystem
        self.nodes[resolved.node!]!.entries = [:]
        self.nodes[resolved.node!]!.syncedEntries = [:]
    }

    /// Changes the permission bits of what `path` leads to (as chmod(2), at once and synced).
    public func setPermissions(_ path: String, _ permissions: UInt32) {
        guard let number = try? self.resolve(path, followFinal: true).node else { return }
        self.nodes[number]!.permissions = permissions
        self.namesMoved()
    }

    /// What a reader sees in the file at `path` now (links followed); nil where there is none.
    public func contents(_ path: String) -> [UInt8]? {
        guard let number = try? self.resolve(path, followFinal: true).node, let node = self.nodes[number],
            node.kind == .file
        else { return nil }
        return node.data
    }

    /// The names in the directory at `path` now, sorted; nil where there is none.
    public func names(in path: String) -> [String]? {
        guard let number = try? self.resolve(path, followFinal: true).node, let node = self.nodes[number],
            node.kind == .directory
        else { return nil }
        return node.entries.keys.sorted()
    }

    private func installNode(_ path: String, kind: Node.Kind, bytes: [UInt8], permissions: UInt32) {
        self.installDirectory(directory(of: path))
        let resolved = try! self.resolve(path, followFinal: false)
        let number = resolved.node ?? self.nextInode
        if resolved.node == nil { self.nextInode += 1 }
        let node = Node(
            kind: kind, fileSystem: self.nodes[resolved.parent]!.fileSystem, permissions: permissions,
            modified: self.clock)
        node.data = bytes
        node.syncedData = bytes
        self.nodes[number] = node
        self.installName(resolved.name, number, in: resolved.parent)
    }

    private func installName(_ name: String, _ number: UInt64, in directory: UInt64) {
        self.namesMoved()
        self.nodes[directory]!.entries[name] = number
        self.nodes[directory]!.syncedEntries[name] = number
    }
}
