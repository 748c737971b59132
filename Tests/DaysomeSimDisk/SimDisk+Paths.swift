// How the simulated disk finds what a path names: components walked from the root, `.` and
// `..` as the kernel takes them, symlinks followed (40 at most, then ELOOP), search permission
// needed on each directory walked through.

import DaysomeFiles
import Glibc

extension SimDisk {
    /// Where `path` leads; a final symlink is followed only when `followFinal`.
    func resolve(_ path: String, followFinal: Bool, depth: Int = 0) throws(Failure) -> Resolved {
        guard depth <= 40 else { throw Failure(ELOOP) }
        guard !path.isEmpty else { throw Failure(ENOENT) }
        let split = self.components(of: path)
        let components = split.names
        // The directory holding the last name, as found the last time and unmoved since: only
        // the last name is looked up (an atomic write resolves its two names at each write).
        if let known = self.directoryByPath[path], known.generation == self.namesGeneration {
            return try self.resolve(split, in: known.node, followFinal: followFinal, depth: depth)
        }
        // No `.`, `..` or link met yet: the path walked is the path's names, spelt once per path.
        var plain = true
        // The directories walked through, root first, with their names: `..` goes back one. The
        // path walked is spelt only where it is needed (the answer, a link's relative target),
        // not at each component: the daemon resolves the same deep paths at every write.
        var walked: [(node: UInt64, name: String)] = [(1, "")]
        walked.reserveCapacity(components.count + 1)
        func pathOf(_ walked: [(node: UInt64, name: String)]) -> String {
            guard walked.count > 1 else { return "/" }
            var path = ""
            for step in walked.dropFirst() {
                path += "/"
                path += step.name
            }
            return path
        }
        /// `name` in the directory walked so far, as a path.
        func under(_ walked: [(node: UInt64, name: String)], _ name: String) -> String {
            walked.count == 1 ? "/" + name : pathOf(walked) + "/" + name
        }
        if components.isEmpty { return Resolved(parent: 1, name: "/", node: 1, path: "/") }
        for (index, component) in components.enumerated() {
            let isLast = index == components.count - 1
            let directory = walked[walked.count - 1].node
            guard let here = self.nodes[directory], here.kind == .directory else { throw Failure(ENOTDIR) }
            guard here.permissions & 0o100 != 0 else { throw Failure(EACCES) }
            if component == "." || component == ".." {
                plain = false
                if component == ".." && walked.count > 1 { walked.removeLast() }
                if isLast {
                    let node = walked[walked.count - 1]
                    let parent = walked.count > 1 ? walked[walked.count - 2].node : 1
                    return Resolved(parent: parent, name: node.name, node: node.node, path: pathOf(walked))
                }
                continue
            }
            let found = here.entries[component]
            if isLast {
                if plain {
                    if self.directoryByPath.count >= 4_096 { self.directoryByPath = [:] }
                    self.directoryByPath[path] = (self.namesGeneration, directory)
                }
                if let found, followFinal, case .symlink(let target) = self.nodes[found]!.kind {
                    let next = target.hasPrefix("/") ? target : under(walked, target)
                    return try self.resolve(next, followFinal: true, depth: depth + 1)
                }
                return Resolved(
                    parent: directory, name: component, node: found, path: plain ? split.path : under(walked, component)
                )
            }
            guard let found else { throw Failure(ENOENT) }
            if case .symlink(let target) = self.nodes[found]!.kind {
                let rest = components[(index + 1)...].joined(separator: "/")
                let next = (target.hasPrefix("/") ? target : under(walked, target)) + "/" + rest
                return try self.resolve(next, followFinal: followFinal, depth: depth + 1)
            }
            walked.append((found, component))
        }
        throw Failure(ENOENT)
    }

    /// The last name of `split` (names only, no `.` or `..`, none of its directories a link) in
    /// `directory`, the one its other names lead to: what the walk above does at its last name.
    private func resolve(
        _ split: SplitPath, in directory: UInt64, followFinal: Bool, depth: Int
    ) throws(Failure) -> Resolved {
        guard let here = self.nodes[directory], here.kind == .directory else { throw Failure(ENOTDIR) }
        guard here.permissions & 0o100 != 0 else { throw Failure(EACCES) }
        let name = split.names[split.names.count - 1]
        let found = here.entries[name]
        if let found, followFinal, case .symlink(let target) = self.nodes[found]!.kind {
            let parent = "/" + split.names.dropLast().joined(separator: "/")
            let next = target.hasPrefix("/") ? target : (parent == "/" ? "" : parent) + "/" + target
            return try self.resolve(next, followFinal: true, depth: depth + 1)
        }
        return Resolved(parent: directory, name: name, node: found, path: split.path)
    }

    /// Where a directory's path may lead elsewhere from now on: a directory or a link named or
    /// unnamed, permissions changed, a mount, a boot. Names of files come and go at every write
    /// and move no directory.
    func namesMoved() {
        self.namesGeneration &+= 1
    }

    /// The names of `path`, and the path they spell from the root, split once per path: a daemon
    /// names the same few paths again and again.
    func components(of path: String) -> SplitPath {
        if let known = self.componentsByPath[path] { return known }
        let names = path.split(separator: "/").map(String.init)
        let split = SplitPath(names: names, path: "/" + names.joined(separator: "/"))
        if self.componentsByPath.count >= 4_096 { self.componentsByPath = [:] }
        self.componentsByPath[path] = split
        return split
    }

    /// A path's names, and the absolute path they spell (no empty names).
    struct SplitPath {
        let names: [String]
        let path: String
    }

    /// `path` made canonical as FileIdentity does: its longest existing part resolved, links
    /// and all, the rest normalized.
    func canonical(_ path: String) -> String {
        FileIdentity.canonical(path) { prefix in
            guard let resolved = try? self.resolve(prefix, followFinal: true), resolved.node != nil else { return nil }
            return resolved.path
        }
    }

    /// Whether a change of `path` fails on demand, and with which errno.
    func fault(_ path: String, _ change: ChangeKind) -> Int32? {
        for (prefix, errno) in self.writeFaults where Self.isUnder(path, prefix) {
            switch errno {
            case ENOSPC where change == .create || change == .write: return errno
            case EROFS where change != .sync && change != .inPlace: return errno
            case ENOSPC, EROFS: continue
            default: return errno
            }
        }
        return nil
    }

    static func isUnder(_ path: String, _ prefix: String) -> Bool {
        // Byte by byte, with no `prefix + "/"` made: every change of the disk asks each fault.
        let path = path.utf8
        let prefix = prefix.utf8
        guard path.starts(with: prefix) else { return false }
        if path.count == prefix.count || prefix.last == UInt8(ascii: "/") { return true }
        return path[path.index(path.startIndex, offsetBy: prefix.count)] == UInt8(ascii: "/")
    }

    /// What a step does, for the faults on demand.
    enum ChangeKind: Equatable {
        /// A new name: a file, a directory, a link.
        case create
        /// New bytes in a file.
        case write
        case sync
        /// A rename, an unlink, a rmdir, a truncation.
        case change
        /// A write into space reserved already (the lock file's record): it needs no block, and
        /// an open file stays writable when its mount turns read-only.
        case inPlace
    }
}
