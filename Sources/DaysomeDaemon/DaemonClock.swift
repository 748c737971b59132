// The one place the running daemon reads the wall clock. In production it is the event loop's
// cached time (sd_event_now): every decision of one wake-up sees the same now, and before the
// loop first runs it is the current time. A test hands the Manager a clock of its own and steps
// it. Timers armed on the loop (the wheel's deadline, retries) are not clock reads and stay on it.

import DaysomeCore
import Glibc
import SystemdKit

/// Where the daemon reads the time.
package protocol DaemonClock: AnyObject {
    /// The wall-clock time (`CLOCK_REALTIME`) in microseconds since the epoch.
    func realtime() -> UInt64
}

/// The loop's clock: the time of its current iteration (sd-event's cached time in production, the
/// manual loop's virtual time in the embedded world).
package final class LoopClock: DaemonClock {
    private let loop: any Loop

    package init(_ loop: any Loop) {
        self.loop = loop
    }

    package func realtime() -> UInt64 { self.loop.now(CLOCK_REALTIME) }
}

extension DaemonClock {
    /// The time in whole seconds, as the core takes it.
    var instant: Instant { Instant(seconds: Int64(self.realtime() / 1_000_000)) }

    /// The time in nanoseconds (to the loop's microsecond), to compare with a file's modification time.
    var nanoseconds: Int64 { Int64(self.realtime()) * 1_000 }
}
