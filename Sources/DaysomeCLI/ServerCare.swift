// What `daysomectl status` says the daemon does for the notification server ("On every
// desktop"): the urgency its calls get there and why, and its Do Not Disturb where it tells it.

import DaysomeCore

/// The status lines under "Notification server:", from the status's `notificationServer`: why a
/// call waits for a server while one does (the carer's first question when nothing showed), then
/// the urgency and Do Not Disturb once the daemon has heard from a server.
public func serverCare(_ server: StatusSnapshot.NotificationServer) -> [String] {
    var lines: [String] = []
    if let waiting = server.waiting {
        lines.append("  A call waits for a server: " + printable(waiting))
    }
    guard let urgency = server.urgency else { return lines }
    lines.append("  Calls there: \(urgency) urgency: \(server.urgencyReason ?? "")")
    if server.doNotDisturb != .unknown {
        lines.append("  Its Do Not Disturb: \(server.doNotDisturb.rawValue)")
    }
    return lines
}
