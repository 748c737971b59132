// Another notification server took the name over while the old one still runs (a second server
// started with replacement, or the owner let the name go): that is no restart. The old server
// still shows its cards, its ids still name them, and only it can close them, so they stay,
// stamped with it, and are closed there (by its unique name). Only when it leaves the bus did its
// cards go with it, as in a restart.

extension DaemonMachine {
    /// The name changed owner and `previous` still runs: nothing of it is forgotten or posted again.
    mutating func serverTakenOver(_ previous: String, now: Instant) -> [MachineAction] {
        self.takenOver.insert(previous)
        let cards = self.persisted.delivered.filter { $0.server == previous && $0.notificationId != nil }.count
        let posts = self.inHand.unknownOutcomes.filter { self.inHand.sentTo($0) == previous }.count
        return [
            .log(
                .notice,
                "Another notification server took the name over while the one before still runs (a takeover, "
                    + "not a restart): its \(cards) card(s) stay and are closed there"
                    + (posts == 0 ? "" : ", and its \(posts) unanswered post(s) may still be shown"))
        ]
    }

    /// A server another had taken the name over from left the bus: its cards went with it, and a
    /// post it never answered is proven unseen.
    mutating func serverInstanceGone(_ instance: String, now: Instant) -> [MachineAction] {
        guard self.takenOver.remove(instance) != nil else { return [] }
        var actions: [MachineAction] = []
        for key in self.inHand.unknownOutcomes where self.inHand.sentTo(key) == instance {
            actions += self.postFailed(
                key, reason: "the notification server left without answering it", failure: .serverUnavailable,
                now: now)
        }
        let wiped = self.persisted.delivered.filter { $0.server == instance && $0.notificationId != nil }
        guard !wiped.isEmpty else { return actions }
        actions += [
            .log(.notice, "A notification server another had taken the name over from left; forgetting its ids"),
            .persist,
        ]
        return actions
            + self.wiped(
                wiped, why: "the notification server that showed it exited after another took its name over", now: now)
    }

    /// What history adds for a call closed on a server another took the name over from.
    func closedWhereShown(_ call: DeliveredCall) -> String? {
        guard call.notificationId != nil, let server = call.server, self.takenOver.contains(server) else {
            return nil
        }
        return "closed on the notification server that showed it, which another had taken the name over from"
    }
}
