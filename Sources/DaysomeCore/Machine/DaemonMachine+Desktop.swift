// What the notification server does to our calls: one card at a time, closes it made itself,
// clicks, and which server instance an id belongs to.

extension DaemonMachine {
    // MARK: On every desktop

    /// One card at a time: the calls still on screen leave for the new one, recorded as replaced.
    /// The newest of them with an id is replaced in place (`replaces_id`), so servers that show
    /// one bubble at a time or queue banners never hide the newer call behind it; any other is
    /// closed, or withdrawn the moment its id arrives.
    mutating func takePlace(
        of start: Start, key: DeliveryKey, now: Instant
    ) -> (actions: [MachineAction], post: MachineAction, replacing: ReplacedCard?) {
        var actions: [MachineAction] = []
        var replacing: ReplacedCard?
        for call in self.persisted.delivered.reversed() {
            self.cancelExpiry(call.key)
            self.cancelRepost(call.key)
            if let id = call.notificationId {
                // An id is replaced in place only on the server that gave it; a card on a server
                // another took the name over from is closed there.
                if replacing == nil && call.server == self.serverIdentity {
                    replacing = ReplacedCard(key: call.key, id: id)
                } else {
                    actions.append(.close(call.key, notificationId: id, server: call.server))
                }
            }
            actions += self.leave(
                call, now: now, event: .withdrawn, reason: OnEveryDesktop.replacedReason(by: start.at))
        }
        self.persisted.delivered = []
        return (actions, replacing.map { .replace(key, start, replacing: $0.id) } ?? .post(key, start), replacing)
    }

    /// What history says of a call taken away (`withdrawn` or `expired`, with `reason`): at once
    /// where a server had it; where its post is still out, once the server answered (then
    /// `delivered` and this, or `dropped`: `CallsInHand.takeBack`); `dropped` where none ever took it
    /// (it was waiting for a server), since nobody saw it.
    mutating func leave(
        _ call: DeliveredCall, now: Instant, event: HistoryRecord.Event, reason: String?
    ) -> [MachineAction] {
        let shown = self.closedWhereShown(call).map { (reason.map { $0 + "; " } ?? "") + $0 }
        let record = HistoryRecord(
            time: now, event: event, lay: call.key.lay, at: call.key.at, itemIds: call.itemIds, reason: shown ?? reason)
        guard call.notificationId == nil else { return [.record(record)] }
        if self.inHand.takeBack(call.key, saying: record) { return [] }
        let why = (reason ?? "its card's time was over") + ", before any notification server took it"
        return [
            .record(
                HistoryRecord(
                    time: now, event: .dropped, lay: call.key.lay, at: call.key.at, itemIds: call.itemIds, reason: why))
        ]
    }

    /// The server closed a card itself (she dismissed it, or it timed it out): history says so.
    mutating func serverClosed(_ id: UInt32, reason: UInt32, server: String?, now: Instant) -> [MachineAction] {
        // A card she dismissed (2) may be the one whose answer never came. One closed by a
        // CloseNotification (3) is a card someone asked to close, often one of ours long known;
        // one that expired (1) is as likely another app's.
        let adopted = reason == 2 ? self.adoptUnansweredPost(id: id, server: server, now: now) : []
        guard let index = self.persisted.delivered.firstIndex(where: { Self.names($0, id: id, server: server) }) else {
            return adopted
        }
        // Only our own cards: another app's card closed, then clicked, is not a click on a call.
        self.inHand.serverClosed(id, by: server)
        let call = self.persisted.delivered.remove(at: index)
        self.cancelExpiry(call.key)
        let (event, why) = OnEveryDesktop.serverClose(reason: reason)
        return adopted + [
            .record(
                HistoryRecord(
                    time: now, event: event, lay: call.key.lay, at: call.key.at, itemIds: call.itemIds, reason: why)),
            .persist,
        ]
    }

    /// Whether a server's signal about `id`, sent by `server`, is about `call`: ids are per server
    /// instance, and a server another took the name over from still uses its own.
    static func names(_ call: DeliveredCall, id: UInt32, server: String?) -> Bool {
        guard call.notificationId == id else { return false }
        guard let server, let stamp = call.server else { return true }
        return server == stamp
    }

    /// She clicked a call: the day comes back, and a server that keeps a clicked card gets it closed.
    mutating func clicked(_ id: UInt32, server: String?, now: Instant) -> [MachineAction] {
        guard self.display == .away else { return [] }
        let adopted = self.adoptUnansweredPost(id: id, server: server, now: now)
        guard let index = self.persisted.delivered.firstIndex(where: { Self.names($0, id: id, server: server) }) else {
            // Most servers close a clicked card themselves, and some say so before the click.
            return adopted
                + (self.inHand.closedByServer(id, by: server)
                    ? [.bringDisplayBack(reason: OnEveryDesktop.clickedReason)] : [])
        }
        let call = self.persisted.delivered.remove(at: index)
        self.cancelExpiry(call.key)
        return adopted + [
            .close(call.key, notificationId: id, server: call.server),
            .record(
                HistoryRecord(
                    time: now, event: .withdrawn, lay: call.key.lay, at: call.key.at, itemIds: call.itemIds,
                    reason: OnEveryDesktop.clickedReason)),
            .persist, .bringDisplayBack(reason: OnEveryDesktop.clickedReason),
        ]
    }

    /// The notification server instance now answering. Ids another instance gave (before a
    /// reboot, a server restart, or a session bus restart) mean nothing to it, or worse, name
    /// another app's notification: they are forgotten, never closed. An id this daemon got while
    /// no instance was known yet (a post that itself started the server) is that instance's; one
    /// found unstamped at start-up came from an earlier daemon and cannot be trusted.
    mutating func identifyServer(_ identity: String?, now: Instant) -> [MachineAction] {
        let atStartUp = !self.serverIdentifiedOnce
        self.serverIdentifiedOnce = true
        self.serverIdentity = identity
        // A server another took the name over from still shows its cards: its ids are not stale.
        func isStale(_ call: DeliveredCall) -> Bool {
            call.notificationId != nil
                && (call.server.map { $0 != identity && !self.takenOver.contains($0) } ?? atStartUp)
        }
        for index in self.persisted.delivered.indices
        where !isStale(self.persisted.delivered[index]) && self.persisted.delivered[index].notificationId != nil
            && self.persisted.delivered[index].server == nil
        {
            self.persisted.delivered[index].server = identity
        }
        let stale = self.persisted.delivered.filter(isStale)
        guard !stale.isEmpty else { return identity == nil ? [] : self.postWaitingCalls(now: now) }
        self.persisted.delivered.removeAll(where: isStale)
        for call in stale { self.cancelExpiry(call.key) }
        return [
            .log(
                .notice,
                "Forgetting \(stale.count) notification id(s) of a server instance that is gone; none is closed"),
            .persist,
        ] + (identity == nil ? [] : self.postWaitingCalls(now: now))
    }
}
