// The address of a Unix stream or datagram socket by path: the one place that fills a
// `sockaddr_un`, for the daemon's control socket and every client that connects to it. Abstract
// (leading NUL) addresses are left out: nothing here uses them.

import Glibc

/// A filesystem path as a Unix socket address, checked to fit `sun_path` with its NUL.
public struct UnixSocketAddress: Sendable, Equatable {
    /// The socket's path.
    public let path: String

    /// Checks that `path` fits a `sockaddr_un`.
    /// - Throws: `FileError` with ENAMETOOLONG when the path and its NUL exceed `sun_path`
    ///   (108 bytes on Linux); `operation` names what the caller was about to do.
    public init(path: String, operation: String = "connect to") throws(FileError) {
        guard path.utf8.count < MemoryLayout.size(ofValue: sockaddr_un().sun_path) else {
            throw FileError(path: path, errno: ENAMETOOLONG, operation: operation)
        }
        self.path = path
    }

    /// Binds `fd` to this address.
    /// - Returns: 0, or -1 with `errno` set.
    ///
    /// The corresponding C function is `bind`.
    public func bind(_ fd: Int32) -> Int32 {
        self.withSockaddr { Glibc.bind(fd, $0, $1) }
    }

    /// Connects `fd` to this address.
    /// - Returns: 0, or -1 with `errno` set.
    ///
    /// The corresponding C function is `connect`.
    public func connect(_ fd: Int32) -> Int32 {
        self.withSockaddr { Glibc.connect(fd, $0, $1) }
    }

    /// Calls `body` with a filled `sockaddr_un` seen as a `sockaddr` and its length.
    public func withSockaddr<Result>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        // sockaddr_un() is zeroed, so the byte after the path is already its NUL.
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: self.path.utf8)
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                body($0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
    }
}
