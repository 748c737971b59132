// What `daysomectl status` says the daemon does for the notification server ("On every
// desktop"): the urgency its calls get there and why, and its Do Not Disturb where it tells it.

import DaysomeCore

/// The status lines under "Notification server:", from the status file's `notificationServer`;
/// none while the daemon has not yet heard from a server.
public func serverCare(_ server: JSONObject?) -> [String] {
    guard let server, let urgency = server["urgency"]?.stringValue else { return [] }
    var lines = ["  Calls there: \(urgency) urgency: \(server["urgencyReason"]?.stringValue ?? "")"]
    if let dnd = server["doNotDisturb"]?.stringValue, dnd != "unknown" {
        lines.append("  Its Do Not Disturb: \(dnd)")
    }
    return lines
}
