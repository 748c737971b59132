// Errno: the one error number type below SystemdKit and DaysomeFiles, built from a negative sd_*
// return (`Errno(rawValue: -r)`) or from the C `errno` after a failing libc call. Only the values
// callers branch on are named; every other value passes through unchanged. There is no catalogue
// of all errno values, and nothing here does I/O.

import Glibc

/// An error number, as libsystemd returns it negated and libc leaves it in `errno`.
public struct Errno: RawRepresentable, Error, Hashable, Sendable, CustomStringConvertible {
    /// The positive error number, e.g. 2 for ENOENT.
    public let rawValue: Int32

    /// Creates an error from a positive error number.
    public init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// The error currently in the calling thread's `errno`.
    public static var current: Errno {
        Errno(rawValue: errno)
    }

    /// The system's text for the error alone, e.g. "No such file or directory".
    ///
    /// Thread-safe, unlike `strerror`, whose buffer a second thread may overwrite.
    ///
    /// The corresponding C function is `strerror_r`.
    public var text: String {
        // Glibc is imported without _GNU_SOURCE: this is the XSI strerror_r that fills the buffer
        // and returns 0 (the GNU one returns a pointer instead), and strerrorname_np is not visible.
        var buffer = [CChar](repeating: 0, count: 256)
        return buffer.withUnsafeMutableBufferPointer { buf in
            strerror_r(self.rawValue, buf.baseAddress!, buf.count) == 0
                ? String(cString: buf.baseAddress!) : "Unknown error \(self.rawValue)"
        }
    }

    /// The text of the error followed by its symbolic name, e.g.
    /// "No such file or directory (ENOENT)"; values outside the short name table show their
    /// number instead, e.g. "Link has been severed (errno 67)".
    public var description: String {
        let name = Errno.names[self.rawValue] ?? "errno \(self.rawValue)"
        return "\(self.text) (\(name))"
    }

    /// Symbolic names of the values a daemon on sd-event and sd-bus meets in practice.
    private static let names: [Int32: String] = [
        EPERM: "EPERM", ENOENT: "ENOENT", ESRCH: "ESRCH", EINTR: "EINTR", EIO: "EIO", ENXIO: "ENXIO",
        E2BIG: "E2BIG", EBADF: "EBADF", ECHILD: "ECHILD", EAGAIN: "EAGAIN", ENOMEM: "ENOMEM",
        EACCES: "EACCES", EFAULT: "EFAULT", EBUSY: "EBUSY", EEXIST: "EEXIST", ENODEV: "ENODEV",
        ENOTDIR: "ENOTDIR", EISDIR: "EISDIR", EINVAL: "EINVAL", EMFILE: "EMFILE", ENOSPC: "ENOSPC",
        EPIPE: "EPIPE", ERANGE: "ERANGE", ENAMETOOLONG: "ENAMETOOLONG", ENOSYS: "ENOSYS",
        ENOTEMPTY: "ENOTEMPTY", ENOMEDIUM: "ENOMEDIUM", ENODATA: "ENODATA", EBADMSG: "EBADMSG",
        EOPNOTSUPP: "EOPNOTSUPP", EADDRINUSE: "EADDRINUSE", ECONNRESET: "ECONNRESET",
        ENOTCONN: "ENOTCONN", ETIMEDOUT: "ETIMEDOUT", ECONNREFUSED: "ECONNREFUSED",
        ECANCELED: "ECANCELED", ESTALE: "ESTALE", ENOPKG: "ENOPKG", EPROTO: "EPROTO",
    ]

    /// ENOENT: no such file or directory.
    public static var noSuchFileOrDirectory: Errno { Errno(rawValue: ENOENT) }
    /// EPERM: operation not permitted.
    public static var notPermitted: Errno { Errno(rawValue: EPERM) }
    /// EACCES: permission denied.
    public static var permissionDenied: Errno { Errno(rawValue: EACCES) }
    /// EEXIST: file exists.
    public static var fileExists: Errno { Errno(rawValue: EEXIST) }
    /// EAGAIN: resource temporarily unavailable (would block).
    public static var resourceTemporarilyUnavailable: Errno { Errno(rawValue: EAGAIN) }
    /// EINTR: interrupted system call.
    public static var interrupted: Errno { Errno(rawValue: EINTR) }
    /// ECANCELED: operation canceled; a CANCEL_ON_SET timerfd reads it after a clock jump.
    public static var canceled: Errno { Errno(rawValue: ECANCELED) }
    /// ESRCH: no such process.
    public static var noSuchProcess: Errno { Errno(rawValue: ESRCH) }
    /// ENOTCONN: the socket (or bus) is not connected.
    public static var socketNotConnected: Errno { Errno(rawValue: ENOTCONN) }
    /// ECONNREFUSED: connection refused.
    public static var connectionRefused: Errno { Errno(rawValue: ECONNREFUSED) }
    /// ETIMEDOUT: the operation timed out.
    public static var timedOut: Errno { Errno(rawValue: ETIMEDOUT) }
    /// EINVAL: invalid argument.
    public static var invalidArgument: Errno { Errno(rawValue: EINVAL) }
}
