// What `daysomectl status` says the daemon does for the notification server ("On every
// desktop"): the urgency its calls get there and why, and its Do Not Disturb where it tells it.

import DaysomeCore

/// The status lines under "Notification server:", from the status's `notificationServer`: why a
/// call waits for a server while one does (the carer's first question when nothing showed), then
/// the urgency and Do Not Disturb once the daemon has heard from a server, and a refusal of
/// Daysome's own message, which is never the server's doing and is told whatever the server said.
public func serverCare(_ server: StatusSnapshot.NotificationServer) -> [String] {
    var lines: [String] = []
    if let waiting = server.waiting {
        lines.append("  A call waits for a server: " + printable(waiting))
    }
    if let urgency = server.urgency {
        lines.append("  Calls there: \(urgency) urgency: \(server.urgencyReason ?? "")")
        if server.doNotDisturb != .unknown {
            lines.append("  Its Do Not Disturb: \(server.doNotDisturb.rawValue)")
        }
    }
    if let refusal = server.lastRefusal {
        lines.append(
            "  Daysome's message could not be sent at \(refusal.time.rfc3339) (the call for \(refusal.at.rfc3339)): "
                + printable(refusal.reason))
    }
    return lines
}
