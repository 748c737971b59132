// A call a server took while its Do Not Disturb hid every card (Phosh hides even critical ones),
// where the household does not ask Do Not Disturb to hold calls back: the card is in the server's
// list, unseen. When the switch goes off inside the call's window, the call is shown once: its
// hidden card closed and the call posted again (history: `reposted`), its bell rung then only if
// it never rang for this call. One card at a time: only the latest such call.

extension DaemonMachine {
    /// The server's Do Not Disturb went off: the latest call it hid is shown once, inside rule 2's
    /// window and while she is away; the others are left as they are (a newer call took their place).
    mutating func showWhatDoNotDisturbHid(now: Instant) -> [MachineAction] {
        let hidden = self.inHand.hiddenByDoNotDisturb
        self.inHand.hiddenByDoNotDisturb = [:]
        guard self.display == .away,
            let call = self.persisted.delivered.filter({ hidden[$0.key] != nil && $0.notificationId != nil })
                .max(by: { $0.key < $1.key }),
            let id = call.notificationId, let index = self.persisted.delivered.firstIndex(where: { $0.key == call.key })
        else { return [] }
        guard now <= self.lastMomentToPost(call), self.plannedNow(call) != nil else {
            return [
                .log(
                    .info,
                    "Do Not Disturb went off after the window of the call for \(call.key.at.rfc3339): it stays in the "
                        + "server's list, not shown again")
            ]
        }
        self.persisted.delivered[index].notificationId = nil
        self.persisted.delivered[index].server = nil
        self.inHand.keep(
            Repost(
                reason: "posted again once: the notification server's Do Not Disturb kept it out of sight and went off",
                rang: hidden[call.key] == true, again: true),
            for: call.key)
        return [.close(call.key, notificationId: id, server: call.server), .persist] + self.repost(call.key, now: now)
    }
}
