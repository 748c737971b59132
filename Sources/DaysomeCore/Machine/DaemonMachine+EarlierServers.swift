// What a daemon's start finds of the servers that stamped the ids an earlier daemon kept, when
// another answers now. One another took the name over from while no daemon ran still shows its
// cards: they stay, stamped with it, and are closed there, as after a takeover this daemon heard.
// One that left (it, its bus or the machine restarted) took its cards with it: history says so.
// They are not posted again, as a call from before the daemon's own restart never is: between
// the earlier daemon's end and the server's leaving she may have dismissed the card, and no
// daemon heard it. A server the shell could not tell about is forgotten at identification.

extension DaemonMachine {
    /// History's word for a card whose server left while no daemon ran.
    public static let leftWhileStopped =
        "the notification server that showed it left while the daemon was stopped, and its card with it "
        + "(not posted again: she may have dismissed it before)"

    /// At start-up, before `identifyServer`: `running` earlier servers keep their cards, `gone`
    /// ones took theirs with them.
    mutating func earlierServers(running: Set<String>, gone: Set<String>, now: Instant) -> [MachineAction] {
        func shown(by servers: Set<String>) -> [DeliveredCall] {
            self.persisted.delivered.filter { call in
                call.notificationId != nil && call.server.map(servers.contains) == true
            }
        }
        var actions: [MachineAction] = []
        let stillShown = shown(by: running)
        if !stillShown.isEmpty {
            self.takenOver.formUnion(stillShown.compactMap(\.server))
            actions.append(
                .log(
                    .notice,
                    "Another notification server took the name over while the daemon was stopped; the one before "
                        + "still runs, and its \(stillShown.count) card(s) stay and are closed there"))
        }
        let wiped = shown(by: gone)
        guard !wiped.isEmpty else { return actions }
        let keys = Set(wiped.map(\.key))
        self.persisted.delivered.removeAll { keys.contains($0.key) }
        for call in wiped { self.cancelExpiry(call.key) }
        actions += [
            .log(
                .notice,
                "The notification server that showed \(wiped.count) card(s) left while the daemon was stopped; "
                    + "forgetting its ids"),
            .persist,
        ]
        return actions
            + wiped.map { call in
                .record(
                    HistoryRecord(
                        time: now, event: .withdrawn, lay: call.key.lay, at: call.key.at, itemIds: call.itemIds,
                        reason: Self.leftWhileStopped))
            }
    }
}
