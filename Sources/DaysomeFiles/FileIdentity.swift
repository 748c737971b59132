// One directory has many names: `state`, `state/`, `./state`, a symlink to it. A record that
// says which state directory it is for must be matched as a file, never as a string: by device
// and inode where the directory exists, and by its canonical path (symlinks resolved as far as
// the path exists, `.`, `..` and repeated slashes gone) where it does not (yet, or any more).

import Glibc

/// Which file a path names, as the kernel tells them apart.
public struct FileIdentity: Sendable, Equatable {
    /// `device:inode` where the path exists, nil where it does not.
    public let node: String?
    /// The canonical absolute path.
    public let canonicalPath: String

    public init(node: String?, canonicalPath: String) {
        self.node = node
        self.canonicalPath = canonicalPath
    }

    /// The identity of what `path` names now (symlinks followed).
    public static func of(_ path: String) -> FileIdentity {
        var info = stat()
        let node = stat(path, &info) == 0 ? "\(info.st_dev):\(info.st_ino)" : nil
        return FileIdentity(node: node, canonicalPath: Self.canonical(path))
    }

    /// Whether two identities name one place: the same device and inode (however it was
    /// named), or the same canonical path (a directory removed and made again there is still the
    /// directory the daemon was given).
    public func isSame(as other: FileIdentity) -> Bool {
        if let node = self.node, node == other.node { return true }
        return self.canonicalPath == other.canonicalPath
    }

    /// `path` made absolute, its longest existing part resolved by realpath(3), the rest
    /// normalized (`.`, `..` and empty components).
    public static func canonical(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : absolutePath(path, in: currentDirectory())
        return self.canonical(absolute) { prefix in
            guard let resolved = realpath(prefix, nil) else { return nil }
            defer { free(resolved) }
            return String(cString: resolved)
        }
    }

    /// An absolute `path` with its longest part that `resolve` knows resolved by it, the rest
    /// normalized: the same rule for the kernel's file system and a simulated one.
    public static func canonical(_ absolute: String, resolve: (String) -> String?) -> String {
        // A path already in canonical form that resolves whole, to a path in that form (the
        // daemon's own directories, asked again at every state write): nothing to split or join.
        // Otherwise what `resolve` said of the whole path is used below, never asked twice.
        var whole: String?? = nil
        if Self.isNormal(absolute) {
            let resolved = resolve(absolute)
            if let resolved, Self.isNormal(resolved) { return resolved }
            whole = .some(resolved)
        }
        var components = absolute.split(separator: "/").map(String.init)
        var rest: [String] = []
        while true {
            let prefix = "/" + components.joined(separator: "/")
            if let resolved = rest.isEmpty ? (whole ?? resolve(prefix)) : resolve(prefix) {
                var result = resolved.split(separator: "/").map(String.init)
                for component in rest.reversed() {
                    switch component {
                    case ".": continue
                    case "..": _ = result.popLast()
                    default: result.append(component)
                    }
                }
                return "/" + result.joined(separator: "/")
            }
            guard let last = components.popLast() else { return "/" }
            rest.append(last)
        }
    }

    /// Whether `path` is absolute with no empty, `.` or `..` name and no trailing slash (`/` is).
    static func isNormal(_ path: String) -> Bool {
        let slash = UInt8(ascii: "/")
        let dot = UInt8(ascii: ".")
        var bytes = path.utf8.makeIterator()
        guard bytes.next() == slash else { return false }
        // The bytes of the name being read: nil before its first, then 1 or 2 while only dots.
        var dots: Int? = 0
        var length = 0
        while let byte = bytes.next() {
            if byte == slash {
                if length == 0 || dots != nil { return false }
                length = 0
                dots = 0
                continue
            }
            length += 1
            if byte == dot, let count = dots { dots = count < 2 ? count + 1 : nil } else { dots = nil }
        }
        // "/" alone is normal; any other path ends in a name that is not `.` or `..`.
        return path.utf8.count == 1 || (length > 0 && dots == nil)
    }

    private static func currentDirectory() -> String {
        guard let cwd = getcwd(nil, 0) else { return "/" }
        defer { free(cwd) }
        return String(cString: cwd)
    }
}
