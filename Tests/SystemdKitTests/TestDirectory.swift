// TestDirectory: a fresh 0700 directory per test under <package>/.testrun/ (outside /tmp, whose
// private mounts would hide it from a service manager), removed with its contents; plus reading a
// file descriptor to its end.

import Glibc
import SystemdKit

/// The package root, from this file's path (…/Tests/SystemdKitTests/TestDirectory.swift).
private func packageRoot() -> String {
    var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(3)
    return parts.joined(separator: "/")
}

/// A fresh 0700 directory under <package>/.testrun/, removed with everything in it.
final class TestDirectory {
    let path: String

    init() throws {
        let base = packageRoot() + "/.testrun"
        mkdir(base, 0o755)
        var template = Array((base + "/XXXXXX").utf8CString)
        guard mkdtemp(&template) != nil else {
            throw HarnessError(description: "mkdtemp in \(base) failed: \(Errno(rawValue: errno))")
        }
        self.path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    deinit {
        TestDirectory.remove(self.path)
    }

    /// Writes `text` to a file in the directory and returns its path.
    @discardableResult
    func write(_ name: String, _ text: String) throws -> String {
        let file = "\(self.path)/\(name)"
        let fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw HarnessError(description: "open \(file) failed: \(Errno(rawValue: errno))")
        }
        defer { close(fd) }
        let bytes = Array(text.utf8)
        guard bytes.withUnsafeBytes({ Glibc.write(fd, $0.baseAddress, $0.count) }) == bytes.count else {
            throw HarnessError(description: "write \(file) failed: \(Errno(rawValue: errno))")
        }
        return file
    }

    /// Reads a file of the directory, or "" if it cannot.
    func read(_ name: String) -> String {
        let fd = open("\(self.path)/\(name)", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            return ""
        }
        defer { close(fd) }
        return readAll(fd)
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

/// Reads `fd` to its end.
func readAll(_ fd: Int32) -> String {
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
