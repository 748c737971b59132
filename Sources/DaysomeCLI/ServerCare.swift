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
    }
    // Said whenever a server answers, `unknown` included: a carer reads that the daemon cannot
    // tell, rather than nothing (on Phosh the line was missing while calls were hidden).
    if server.doNotDisturbSource != nil || (server.urgency != nil && server.doNotDisturb != .unknown) {
        lines.append("  Its Do Not Disturb: " + doNotDisturbWords(server))
    }
    if let refusal = server.lastRefusal {
        lines.append(
            "  Daysome's message could not be sent at \(refusal.time.rfc3339) (the call for \(refusal.at.rfc3339)): "
                + printable(refusal.reason))
    }
    return lines
}

/// `on`, `off`, or `unknown` with why: a server that sends no word when it changes says what it
/// said when last asked.
func doNotDisturbWords(_ server: StatusSnapshot.NotificationServer) -> String {
    let state = server.doNotDisturb.rawValue
    switch server.doNotDisturbSource {
    case .followed?:
        return state
    case .readBeforeCalls?:
        let last = server.doNotDisturbLastRead.map { ", \($0.rawValue) when last asked" } ?? ""
        return state + " (this server sends no word when it changes: read only just before a call\(last))"
    case .unreadable?:
        return state + " (this server does not tell it on the bus)"
    case nil:
        return state
    }
}

/// `Can deliver: yes`, with what the server's Do Not Disturb may do to a call where the daemon
/// cannot promise more (`notificationServer.doNotDisturbNote`).
public func canDeliverLine(_ status: StatusSnapshot) -> String {
    guard status.canDeliver else { return "Can deliver: no" }
    guard let note = status.notificationServer.doNotDisturbNote else { return "Can deliver: yes" }
    return "Can deliver: yes, " + printable(note)
}
