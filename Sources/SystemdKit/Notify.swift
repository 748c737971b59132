// ServiceManager (sd-daemon): tells the service manager about readiness, status and stopping, and
// reads the watchdog interval it asked for. The watchdog pings themselves are sent by
// EventLoop.setWatchdog. No fd store, no socket activation, no barrier.

import CSystemd

/// The service manager that started us, if any ($NOTIFY_SOCKET, $WATCHDOG_USEC).
public enum ServiceManager {
    /// Sends a state string such as "READY=1", "STOPPING=1" or "STATUS=Waiting for the bus".
    ///
    /// - Returns: `true` if it was sent; `false` if no manager listens ($NOTIFY_SOCKET unset) or
    ///   sending failed. Either way the daemon carries on.
    ///
    /// The corresponding C function is `sd_notify`.
    @discardableResult
    public static func notify(_ state: String) -> Bool {
        sd_notify(0, state) > 0
    }

    /// The watchdog interval the manager asked for, in microseconds, or `nil` if none.
    ///
    /// The corresponding C function is `sd_watchdog_enabled`.
    public static func watchdogInterval() -> UInt64? {
        var usec: UInt64 = 0
        return sd_watchdog_enabled(0, &usec) > 0 ? usec : nil
    }
}
