// What `daysomectl status` says the daemon does for the notification server ("On every
// desktop"): the urgency its calls get there and why, and its Do Not Disturb where it tells it.

import DaysomeCore

/// The status lines under "Notification server:", from the status's `notificationServer`;
/// none while the daemon has not yet heard from a server.
public func serverCare(_ server: StatusSnapshot.NotificationServer) -> [String] {
    guard let urgency = server.urgency else { return [] }
    var lines = ["  Calls there: \(urgency) urgency: \(server.urgencyReason ?? "")"]
    if server.doNotDisturb != .unknown {
        lines.append("  Its Do Not Disturb: \(server.doNotDisturb.rawValue)")
    }
    return lines
}
