// Another notification server took the name over while the old one still runs (a second server
// started with replacement), or the old one let the name go with no other taking it (a dunst that
// exits gives its name up before its connection closes: it went away): that is no restart. The
// old server still shows its cards, its ids still name them, and only it can close them, so they
// stay, stamped with it, and are closed there (by its unique name). Only when it leaves the bus
// did its cards go with it, as in a restart.

extension DaemonMachine {
    /// The name changed owner and `previous` still runs: nothing of it is forgotten or posted again.
    /// `answering` is the server that owns the name now; none where `previous` went away.
    mutating func serverTakenOver(_ previous: String, answering: String?, now: Instant) -> [MachineAction] {
        self.takenOver.insert(previous)
        if answering == nil { self.wentAway.insert(previous) } else { self.wentAway.remove(previous) }
        let cards = self.persisted.delivered.filter { $0.server == previous && $0.notificationId != nil }.count
        let posts = self.inHand.unknownOutcomes.filter { self.inHand.sentTo($0) == previous }.count
        let what =
            answering == nil
            ? "The notification server went away: it gave up the name, and no other server took it; until its "
                + "connection closes, its \(cards) card(s) stay and are closed there"
            : "Another notification server took the name over while the one before still runs (a takeover, "
                + "not a restart): its \(cards) card(s) stay and are closed there"
        return [.log(.notice, what + (posts == 0 ? "" : ", and its \(posts) unanswered post(s) may still be shown"))]
    }

    /// A server another had taken the name over from left the bus: its cards went with it, and a
    /// post it never answered is proven unseen.
    mutating func serverInstanceGone(_ instance: String, now: Instant) -> [MachineAction] {
        guard self.takenOver.remove(instance) != nil else { return [] }
        let wentAway = self.wentAway.remove(instance) != nil
        var actions: [MachineAction] = []
        for key in self.inHand.unknownOutcomes where self.inHand.sentTo(key) == instance {
            actions += self.postFailed(
                key, reason: "the notification server left without answering it", failure: .serverUnavailable,
                now: now)
        }
        let wiped = self.persisted.delivered.filter { $0.server == instance && $0.notificationId != nil }
        guard !wiped.isEmpty else { return actions }
        let left =
            wentAway
            ? "The notification server that went away has left the bus; forgetting its ids"
            : "A notification server another had taken the name over from left; forgetting its ids"
        actions += [.log(.notice, left), .persist]
        let why =
            wentAway
            ? "the notification server that showed it went away"
            : "the notification server that showed it exited after another took its name over"
        return actions + self.wiped(wiped, why: why, now: now)
    }

    /// What history adds for a call closed on a server another took the name over from.
    func closedWhereShown(_ call: DeliveredCall) -> String? {
        guard call.notificationId != nil, let server = call.server, self.takenOver.contains(server) else {
            return nil
        }
        return self.wentAway.contains(server)
            ? "closed on the notification server that showed it, which had given up its name on its way out"
            : "closed on the notification server that showed it, which another had taken the name over from"
    }
}
