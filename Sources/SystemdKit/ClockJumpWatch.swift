// ClockJumpWatch: notices when CLOCK_REALTIME is set (stepped by an admin, NTP or a resume), which
// sd-event 252 has no call for: a timerfd with TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, armed
// at the end of time and watched as an I/O source. It does not say how far the clock moved, nor
// notice time-zone changes (watch /etc/localtime with addInotify for those).

import CSystemd
import Glibc

/// Calls a handler on the loop's thread each time the realtime clock is set.
///
/// Keep the object: dropping it closes the timerfd and removes the source. Not `Sendable`.
public final class ClockJumpWatch {
    private let fd: Int32
    private var source: EventSource?

    /// Creates the timerfd, arms it and adds it to `loop`.
    ///
    /// - Parameters:
    ///   - loop: the loop that calls `handler`.
    ///   - description: a name for sd-event's debug logs.
    ///   - handler: called after each jump, once the timerfd is armed again.
    ///
    /// The corresponding C functions are `timerfd_create`, `timerfd_settime` and `sd_event_add_io`.
    public init(
        loop: EventLoop,
        description: String = "clock-jump",
        _ handler: @escaping () -> Void
    ) throws(Errno) {
        let fd = try checkLibc(timerfd_create(CLOCK_REALTIME, Int32(TFD_NONBLOCK | TFD_CLOEXEC)))
        self.fd = fd
        do {
            try ClockJumpWatch.arm(fd)
            // The closure captures the fd, not self: the source must not keep its owner alive.
            self.source = try loop.addIO(fd: fd, events: .readable, description: description) { _, _ in
                if ClockJumpWatch.drain(fd) {
                    handler()
                }
            }
        } catch {
            Glibc.close(fd)
            throw error
        }
    }

    deinit {
        self.source?.cancel()
        Glibc.close(self.fd)
    }

    /// Stops watching; the handler is not called again.
    public func cancel() {
        self.source?.cancel()
        self.source = nil
    }

    /// Arms the timer at the largest time_t, as systemd does, so only a clock jump wakes it.
    private static func arm(_ fd: Int32) throws(Errno) {
        var spec = itimerspec()
        spec.it_value.tv_sec = Int.max
        try checkLibc(timerfd_settime(fd, Int32(TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET), &spec, nil))
    }

    /// Reads the timerfd; returns whether the clock jumped, re-arming it if so.
    private static func drain(_ fd: Int32) -> Bool {
        var expirations: UInt64 = 0
        let count = read(fd, &expirations, MemoryLayout<UInt64>.size)
        if count >= 0 || errno != ECANCELED {
            // EAGAIN (a spurious wake-up) or the end of time reached: nothing jumped.
            return false
        }
        // The kernel would report the next jump without this, but re-arming keeps the state
        // obvious, and systemd does the same.
        do {
            try ClockJumpWatch.arm(fd)
        } catch {
            preconditionFailure("Failed to re-arm the clock-jump timerfd: \(error)")
        }
        return true
    }
}

@available(*, unavailable)
extension ClockJumpWatch: Sendable {}
