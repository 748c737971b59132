// A server's answer to a post: the id it gave the call's card. Most come as the Notify's reply.
// One comes another way: a hung server that woke after the bus gave up on its reply made the
// card all the same, and its id reaches the daemon only when the server names it in a click or a
// close. A server handles its requests in order, so a card it names that the daemon never got
// an id for is the post it never answered.

extension DaemonMachine {
    /// The server took `key`'s post and gave its card `id`: history says `delivered`, the bell
    /// rings (once per call), and a call taken back meanwhile is closed at once.
    /// - Parameter ringing: false where she already met the card (its id came with her click).
    mutating func posted(
        _ key: DeliveryKey, id: UInt32, answeredBy: String?, held: String?, bellHeld: Bool, now: Instant,
        ringing: Bool = true, reason: String? = nil
    ) -> [MachineAction] {
        // The id belongs to the instance that answered, which may no longer own the name.
        let server = answeredBy ?? self.serverIdentity
        let posted = self.inHand.repost(key)
        // What history says of the post: its own reason where it came another way.
        let told = reason.map { Repost(reason: $0, again: posted?.again ?? false) } ?? posted
        let sentAt = self.inHand.sentAt(key)
        self.cancelRepost(key)
        let answer = self.inHand.answered(key)
        var actions: [MachineAction] = []
        if key.isSample {
            actions += self.samplePosted(key, id: id, server: server, takenBack: answer.takenBack)
        } else if answer.takenBack {
            actions.append(.close(key, notificationId: id, server: server))
            // Taken, and taken away at once: history says both, now that both are true.
            if let left = answer.left {
                let call = DeliveredCall(key: key, itemIds: left.itemIds, expiresAt: now)
                actions.append(
                    .record(self.deliveredRecord(call, now: now, posted: told, sentAt: sentAt, held: held)))
                actions.append(
                    .record(
                        HistoryRecord(
                            time: now, event: left.event, lay: left.lay, at: left.at, itemIds: left.itemIds,
                            reason: left.reason)))
            }
        } else if let index = self.persisted.delivered.firstIndex(where: { $0.key == key }) {
            self.persisted.delivered[index].notificationId = id
            self.persisted.delivered[index].server = server
            actions.append(
                .record(
                    self.deliveredRecord(
                        self.persisted.delivered[index], now: now, posted: told, sentAt: sentAt, held: held)))
            actions.append(.persist)
            // The bell rings for a call the server took: heard and seen, never heard alone;
            // and once per call, not again for its card posted anew on a restarted server. A
            // respected Do Not Disturb holds it with the banner.
            let rings = ringing && self.household?.load.household.settings.chime == .bell && posted?.rang != true
            if rings {
                if bellHeld {
                    actions.append(Self.bellHeldByDoNotDisturb)
                } else {
                    actions.append(.chime)
                }
            }
            // Out of sight under a switch the family did not choose: shown when it goes off.
            if held != nil && !bellHeld {
                self.inHand.hiddenByDoNotDisturb[key] = rings || posted?.rang == true
            } else {
                self.inHand.hiddenByDoNotDisturb[key] = nil
            }
        }
        return actions
    }

    /// She clicked or dismissed a card `id` that no call of ours holds, on `server`. A server
    /// handles its requests in order, so one that speaks has made the card of every post it held,
    /// those whose answer the bus gave up on too. Where exactly one of those is still wanted, `id`
    /// is taken for its card (a card taken back since, or a `try` sample, is nobody's to adopt: it
    /// was never going to be posted again): the click or dismissal then acts on it as on any card,
    /// and a restart of that server no longer takes the post for unseen and shows the call a
    /// second time. Only her own acts name it: a card that expired (reason 1) is as likely another
    /// app's, and ours leaves at its own end anyway.
    mutating func adoptUnansweredPost(id: UInt32, server: String?, now: Instant) -> [MachineAction] {
        guard let server, !self.persisted.delivered.contains(where: { Self.names($0, id: id, server: server) }) else {
            return []
        }
        // A post that went out while no server was known went to the one that answers now.
        let posts = self.inHand.unknownOutcomes.filter {
            !$0.isSample && self.inHand.awaitsPost($0) && (self.inHand.sentTo($0) ?? self.serverIdentity) == server
        }
        guard posts.count == 1, let key = posts.first else { return [] }
        return [
            .log(
                .notice,
                "The notification server named card \(id), which no answer gave the daemon: it is taken for the "
                    + "call for \(key.at.rfc3339), whose answer the bus gave up on (a server answers in order)")
        ]
            + self.posted(
                key, id: id, answeredBy: server, held: nil, bellHeld: false, now: now, ringing: false,
                reason: "the notification server showed it after the bus gave up on its answer; its id came later")
    }
}
