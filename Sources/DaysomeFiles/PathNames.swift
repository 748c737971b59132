// The directory and last component of a path, as POSIX dirname(3) and basename(3) answer them,
// without touching the file system and without their habit of writing into the argument.
// Nothing here resolves `.`, `..` or symlinks: that needs the file system.

/// The directory holding `path`, as POSIX `dirname` answers: trailing slashes are not a
/// component (`a/` is in `.`), repeated slashes are one (`a//b` is in `a`), `/` is its own
/// directory, and a bare name or the empty path is in `.`.
public func directory(of path: String) -> String {
    let trimmed = trimTrailingSlashes(path)
    if trimmed == "/" { return "/" }
    guard let slash = trimmed.lastIndex(of: "/") else { return "." }
    let parent = trimTrailingSlashes(String(trimmed[..<slash]))
    return parent.isEmpty ? "/" : parent
}

/// The last component of `path`, as POSIX `basename` answers: `a/` is `a`, `/` is `/`, and the
/// empty path is `.`.
public func basename(of path: String) -> String {
    if path.isEmpty { return "." }
    let trimmed = trimTrailingSlashes(path)
    if trimmed == "/" { return "/" }
    guard let slash = trimmed.lastIndex(of: "/") else { return trimmed }
    return String(trimmed[trimmed.index(after: slash)...])
}

/// `path` without its trailing slashes; a path of slashes alone becomes `/`, the empty path stays empty.
private func trimTrailingSlashes(_ path: String) -> String {
    var end = path.endIndex
    while end > path.startIndex && path[path.index(before: end)] == "/" { end = path.index(before: end) }
    if end == path.startIndex { return path.isEmpty ? "" : "/" }
    return String(path[..<end])
}

/// `path` made absolute against `directory` (the working directory a program started in), lexically:
/// an absolute path is kept as given, leading `./` components are dropped, and `..` is kept (only
/// the file system can say where it leads through a symlink). A daemon publishes where its files
/// are, and a reader in another directory must find the same ones.
public func absolutePath(_ path: String, in directory: String) -> String {
    if path.hasPrefix("/") { return path }
    var rest = Substring(path)
    while rest.hasPrefix("./") || rest == "." {
        rest = rest.dropFirst(min(2, rest.count))
        while rest.hasPrefix("/") { rest = rest.dropFirst() }
    }
    let base = directory.hasSuffix("/") ? String(directory.dropLast()) : directory
    if rest.isEmpty { return base.isEmpty ? "/" : base }
    return base + "/" + rest
}
