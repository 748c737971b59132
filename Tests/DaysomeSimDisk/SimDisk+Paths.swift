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
        let components = self.components(of: path)
        // The directories walked through, root first, with their names: `..` goes back one.
        var walked: [(node: UInt64, name: String)] = [(1, "")]
        func pathOf(_ walked: [(node: UInt64, name: String)]) -> String {
            walked.count == 1 ? "/" : walked.dropFirst().map { "/" + $0.name }.joined()
        }
        if components.isEmpty { return Resolved(parent: 1, name: "/", node: 1, path: "/") }
        // The path walked so far, kept as the walk goes (rebuilt only after a `..`).
        var parentPath = "/"
        for (index, component) in components.enumerated() {
            let isLast = index == components.count - 1
            let directory = walked.last!.node
            guard let kind = self.nodes[directory]?.kind, kind == .directory else { throw Failure(ENOTDIR) }
            guard self.nodes[directory]!.permissions & 0o100 != 0 else { throw Failure(EACCES) }
            if component == "." || component == ".." {
                if component == ".." && walked.count > 1 {
                    walked.removeLast()
                    parentPath = pathOf(walked)
                }
                if isLast {
                    let node = walked.last!
                    let parent = walked.count > 1 ? walked[walked.count - 2].node : 1
                    return Resolved(parent: parent, name: node.name, node: node.node, path: pathOf(walked))
                }
                continue
            }
            let found = self.nodes[directory]!.entries[component]
            let here = (parentPath == "/" ? "" : parentPath) + "/" + component
            if isLast {
                if let found, case .symlink(let target) = self.nodes[found]!.kind, followFinal {
                    let next = target.hasPrefix("/") ? target : (parentPath == "/" ? "" : parentPath) + "/" + target
                    return try self.resolve(next, followFinal: true, depth: depth + 1)
                }
                return Resolved(parent: directory, name: component, node: found, path: here)
            }
            guard let found else { throw Failure(ENOENT) }
            if case .symlink(let target) = self.nodes[found]!.kind {
                let rest = components[(index + 1)...].joined(separator: "/")
                let next =
                    (target.hasPrefix("/") ? target : (parentPath == "/" ? "" : parentPath) + "/" + target) + "/" + rest
                return try self.resolve(next, followFinal: followFinal, depth: depth + 1)
            }
            walked.append((found, component))
            parentPath = here
        }
        throw Failure(ENOENT)
    }

    /// The names of `path`, split once per path: a daemon names the same few paths again and again.
    func components(of path: String) -> [String] {
        if let known = self.componentsByPath[path] { return known }
        let components = path.split(separator: "/").map(String.init)
        if self.componentsByPath.count >= 4_096 { self.componentsByPath = [:] }
        self.componentsByPath[path] = components
        return components
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
        path == prefix || path.hasPrefix(prefix.hasSuffix("/") ? prefix : prefix + "/")
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
