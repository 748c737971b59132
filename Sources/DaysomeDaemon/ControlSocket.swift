// The daemon's control socket in its runtime directory: one line in, one line out. A fire from
// the systemd manager says `fire <lay>`; the daemon, which posts every notification itself over
// its one connection, answers what it did. Only the owner of the runtime directory (0700) can
// reach it.

import DaysomeFiles
import Glibc
import SystemdKit

/// A Unix stream socket answering one-line requests on the loop.
final class ControlSocket {
    private let fd: Int32
    private let path: String
    private var source: EventSource?

    /// Binds `path` (replacing a stale socket: the caller holds the runtime directory's lock).
    init(path: String, loop: EventLoop, handler: @escaping (String) -> String) throws(FileError) {
        unlink(path)
        let fd = socket(
            AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw FileError(path: path, errno: errno, operation: "create socket") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(fd)
            throw FileError(path: path, errno: ENAMETOOLONG, operation: "bind")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in bytes.enumerated() { buffer[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            let saved = errno
            close(fd)
            throw FileError(path: path, errno: saved, operation: "listen on")
        }
        self.fd = fd
        self.path = path
        do {
            self.source = try loop.addIO(fd: fd, events: .readable, description: "control") { _, _ in
                ControlSocket.acceptAll(fd, handler)
            }
        } catch {
            close(fd)
            throw FileError(path: path, errno: error.rawValue, operation: "watch")
        }
    }

    deinit {
        self.source?.cancel()
        close(self.fd)
        unlink(self.path)
    }

    /// Accepts every waiting client, reads its line, answers and closes.
    private static func acceptAll(_ listener: Int32, _ handler: (String) -> String) {
        while true {
            // accept4 is a GNU extension the Glibc module does not export.
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            // A client has at most a fifth of a second to say its line: the loop must not stall.
            var timeout = timeval(tv_sec: 0, tv_usec: 200_000)
            setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var buffer = [UInt8](repeating: 0, count: 512)
            var line: [UInt8] = []
            while line.count < 512 {
                let count = buffer.withUnsafeMutableBytes { read(client, $0.baseAddress, $0.count) }
                if count <= 0 { break }
                line += buffer[0..<count]
                if line.contains(0x0A) { break }
            }
            let request = String(decoding: line.prefix { $0 != 0x0A }, as: UTF8.self)
            // MSG_NOSIGNAL: a client that hung up gets EPIPE dropped, never a SIGPIPE that ends the daemon.
            let answer = Array((handler(request) + "\n").utf8)
            _ = answer.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            close(client)
        }
    }
}
