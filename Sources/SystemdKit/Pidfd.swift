// Pidfd: a process file descriptor (pidfd_open), owned and closed by this object, so a process can
// be watched for exit (EventLoop.addPidfdExit) and signalled without pid-reuse races. It does not
// spawn, wait for or reap processes.

import CSystemd
import Glibc

/// An open pidfd, closed when the object goes away.
public final class Pidfd: Sendable {
    /// The file descriptor.
    public let rawValue: Int32
    /// The process id it was opened for.
    public let pid: pid_t

    private init(rawValue: Int32, pid: pid_t) {
        self.rawValue = rawValue
        self.pid = pid
    }

    deinit {
        close(self.rawValue)
    }

    /// Opens a pidfd for `pid`, which need not be our child.
    ///
    /// - Throws: `.noSuchProcess` when no such process exists (a zombie still does).
    ///
    /// The corresponding C function is `pidfd_open`.
    public static func open(pid: pid_t) throws(Errno) -> Pidfd {
        let fd = try checkLibc(pidfd_open(pid, 0))
        // pidfd_open always sets O_CLOEXEC.
        return Pidfd(rawValue: fd, pid: pid)
    }

    /// Sends `signal` to the process, even if its pid has been reused since.
    ///
    /// The corresponding C function is `pidfd_send_signal`.
    public func sendSignal(_ signal: Int32) throws(Errno) {
        try checkLibc(pidfd_send_signal(self.rawValue, signal, nil, 0))
    }

    /// Whether the process has exited (it may still be an unreaped zombie).
    ///
    /// The corresponding C function is `poll`.
    public var hasExited: Bool {
        var entry = pollfd(fd: self.rawValue, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) == 1 && entry.revents & Int16(POLLIN) != 0
    }

    /// Whether a process with this pid exists, ours or not; zombies count.
    ///
    /// The corresponding C function is `kill` with signal 0.
    public static func processExists(_ pid: pid_t) -> Bool {
        // EPERM: it exists but belongs to someone we may not signal.
        kill(pid, 0) == 0 || errno == EPERM
    }
}
