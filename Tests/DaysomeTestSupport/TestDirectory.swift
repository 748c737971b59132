// TestDirectory: a fresh 0700 directory per test under <package>/.testrun/ (outside /tmp, whose
// private mounts would hide it from a service manager), removed with its contents; plus reading
// and replacing files.

import Glibc

/// The package root, from this file's path as the target sees it (…/Tests/DaysomeTestSupport/TestDirectory.swift).
public func packageRoot() -> String {
    var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(3)
    return parts.joined(separator: "/")
}

/// A fresh 0700 directory under <package>/.testrun/, removed with everything in it.
public final class TestDirectory {
    public let path: String

    public init() throws {
        let base = packageRoot() + "/.testrun"
        mkdir(base, 0o755)
        // Traversable whoever made it first (a daemon's runtime path under it is made 0700 all the
        // way down): the desktop matrix's unprivileged sway user reaches its world through it.
        chmod(base, 0o755)
        var template = Array((base + "/XXXXXX").utf8CString)
        guard mkdtemp(&template) != nil else {
            throw HarnessError("mkdtemp in \(base) failed: \(errnoText(errno))")
        }
        self.path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    deinit {
        TestDirectory.remove(self.path)
    }

    /// Creates a 0700 subdirectory and returns its path.
    @discardableResult
    public func makeDirectory(_ name: String) throws -> String {
        let directory = "\(self.path)/\(name)"
        guard mkdir(directory, 0o700) == 0 || errno == EEXIST else {
            throw HarnessError("mkdir \(directory) failed: \(errnoText(errno))")
        }
        return directory
    }

    /// Writes `text` to a file in the directory and returns its path.
    @discardableResult
    public func write(_ name: String, _ text: String) throws -> String {
        let file = "\(self.path)/\(name)"
        try writeFile(file, text)
        return file
    }

    /// Reads a file of the directory, or "" if it cannot.
    public func read(_ name: String) -> String {
        readFile("\(self.path)/\(name)")
    }

    private static func remove(_ path: String) {
        if let directory = opendir(path) {
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
                }
                if name == "." || name == ".." {
                    continue
                }
                let child = "\(path)/\(name)"
                if entry.pointee.d_type == UInt8(DT_DIR) {
                    TestDirectory.remove(child)
                } else {
                    unlink(child)
                }
            }
            closedir(directory)
        }
        rmdir(path)
    }
}

/// Writes `text` to `path` (created 0600 or truncated).
public func writeFile(_ path: String, _ text: String) throws {
    try writeFile(path, bytes: Array(text.utf8))
}

/// Writes `bytes` to `path` (created 0600 or truncated): for contents that are not UTF-8 text.
public func writeFile(_ path: String, bytes: [UInt8]) throws {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard fd >= 0 else {
        throw HarnessError("open \(path) failed: \(errnoText(errno))")
    }
    defer { close(fd) }
    var written = 0
    while written < bytes.count {
        let count = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + written, $0.count - written) }
        if count < 0 && errno == EINTR {
            continue
        }
        guard count > 0 else {
            throw HarnessError("write \(path) failed: \(errnoText(errno))")
        }
        written += count
    }
}

/// Replaces `path` the way the display app does: a temporary file beside it, then rename(2).
public func replaceFile(_ path: String, _ text: String) throws {
    try replaceFile(path, bytes: Array(text.utf8))
}

/// Replaces `path` with `bytes` the way the display app does: for contents that are not UTF-8 text.
public func replaceFile(_ path: String, bytes: [UInt8]) throws {
    let temporary = path + ".writing"
    try writeFile(temporary, bytes: bytes)
    guard rename(temporary, path) == 0 else {
        throw HarnessError("rename \(temporary) to \(path) failed: \(errnoText(errno))")
    }
}

/// Reads a whole file, or "" if it cannot.
public func readFile(_ path: String) -> String {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else {
        return ""
    }
    defer { close(fd) }
    return readAll(fd)
}

/// Reads `fd` to its end.
public func readAll(_ fd: Int32) -> String {
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        if count < 0 && errno == EINTR {
            continue
        }
        if count <= 0 {
            break
        }
        bytes.append(contentsOf: chunk[0..<count])
    }
    return String(decoding: bytes, as: UTF8.self)
}

/// The names in a directory, without `.` and `..`, each with whether it is a directory; empty
/// when it cannot be read.
public func directoryEntries(_ path: String) -> [(name: String, isDirectory: Bool)] {
    guard let directory = opendir(path) else { return [] }
    defer { closedir(directory) }
    var entries: [(name: String, isDirectory: Bool)] = []
    while let entry = readdir(directory) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
            String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
        }
        if name != "." && name != ".." { entries.append((name, entry.pointee.d_type == UInt8(DT_DIR))) }
    }
    return entries
}
