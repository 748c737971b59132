// A call the notification server could not take is posted again while rule 2 still allows a
// late call: within the grace window and before its card would have left the display. She must
// not miss lunch because MATE's idle server was quitting at the minute it was called.

/// A call delivered whose server has not taken it yet: what to post again, and how often it was tried.
struct Repost: Sendable {
    var attempts = 0
    var timer: TimerID?
    /// What history says when a server takes it, where more than its lateness needs saying.
    var reason: String? = nil
    /// The call already rang when a server first took it: a card posted again after a server
    /// restart is the same call, and one call rings once (two bells are two calls to her).
    var rang = false
    /// A server took this call before (its card was wiped, or hidden): history says `reposted`.
    var again = false
}

extension DaemonMachine {
    /// The server did not take a call: post it again later if no server answered, or drop it. A
    /// post that got no answer in time from a server that may still show it stays out: never a
    /// second card for one start while the first may still appear.
    mutating func postFailed(
        _ key: DeliveryKey, reason: String, failure: PostFailure, now: Instant
    ) -> [MachineAction] {
        if failure == .outcomeUnknown, self.inHand.isInFlight(key), self.mayStillShow(key) {
            self.inHand.outcomeUnknown(key)
            return [
                .log(
                    .warning,
                    "The notification server has not answered the call for \(key.at.rfc3339) (\(reason)); it may "
                        + "still show it, so it is not posted again until that server answers or is gone"
                )
            ]
        }
        // A post that was to replace a card in place, and that no server took: the card it was to
        // replace is still up (her return while the post waited, a clock step, a refusal), and
        // history already says it left. It is closed where it was given.
        let closeReplaced: [MachineAction] =
            self.inHand.replacing(key).map { [.close($0.key, notificationId: $0.id, server: self.inHand.sentTo(key))] }
            ?? []
        return closeReplaced + self.notTaken(key, reason: reason, failure: failure, now: now)
    }

    /// A post no server took, and none may still show: dropped, or posted again while rule 2 allows.
    private mutating func notTaken(
        _ key: DeliveryKey, reason: String, failure: PostFailure, now: Instant
    ) -> [MachineAction] {
        if let left = self.inHand.answered(key).left {
            // Taken back while its post was out, and no server took it: nobody saw it.
            let why = (left.reason ?? "its card's time was over") + ", before any notification server took it"
            return [
                .record(
                    HistoryRecord(
                        time: now, event: .dropped, lay: left.lay, at: left.at, itemIds: left.itemIds, reason: why))
            ]
        }
        // A call withdrawn or replaced while its post was in flight has nothing left to post.
        guard let call = self.persisted.delivered.first(where: { $0.key == key }), var repost = self.inHand.repost(key)
        else { return [] }
        // Held back before it left: no server saw it, and it counts as no attempt.
        if failure == .withheld {
            return self.withheld(call, repost: repost, now: now)
        }
        repost.attempts += 1
        let last = self.lastMomentToPost(call)
        // Never before its minute: a clock stepped back since the call went out puts it ahead again.
        let next = max(key.at, min(now.adding(seconds: PostFailure.retryDelay(afterAttempt: repost.attempts)), last))
        // A refusal, the server's or the bus's of our own message, would come again: no retry.
        if failure != .refused && failure != .unsent, self.display == .away, next > now,
            self.postAgain(key, repost, at: next)
        {
            return [
                .log(
                    .warning,
                    "No notification server took the call for \(key.at.rfc3339) (\(reason)); posting it again at \(next.rfc3339)"
                )
            ]
        }
        self.forgetUntaken(key)
        let why =
            failure == .serverUnavailable
            ? failure.reason(reason) + "; no server took it within the grace window (\(repost.attempts) attempts)"
            : failure.reason(reason)
        return [
            .log(.error, "Failed to post the call for \(key.at.rfc3339) of lay \(key.lay): \(failure.reason(reason))"),
            .record(
                HistoryRecord(time: now, event: .dropped, lay: key.lay, at: key.at, itemIds: call.itemIds, reason: why)),
            .persist,
        ]
    }

    /// The daemon held a wanted call's Notify back because the clock had left its window while the
    /// post waited (`maySend`): stepped back before its minute, it goes out at its minute; stepped
    /// past its window, it is dropped, since nobody saw it.
    mutating func withheld(_ call: DeliveredCall, repost: Repost, now: Instant) -> [MachineAction] {
        let key = call.key
        if now < key.at, self.postAgain(key, repost, at: key.at) {
            return [
                .log(
                    .notice,
                    "The clock stepped back to \(now.rfc3339) before the call for \(key.at.rfc3339) left: "
                        + "it is posted at its minute")
            ]
        }
        self.forgetUntaken(key)
        let late = "\(now.seconds - key.at.seconds) s after its minute, beyond its window"
        let reason =
            repost.rang
            ? "its window closed before a notification server took it again (the clock moved to \(now.rfc3339) "
                + "while its post waited: \(late))"
            : "the clock moved to \(now.rfc3339) before it was posted: \(late); no notification server saw it"
        return [
            .record(
                HistoryRecord(
                    time: now, event: repost.rang ? .withdrawn : .dropped, lay: key.lay, at: key.at,
                    itemIds: call.itemIds, reason: reason)),
            .persist,
        ]
    }

    /// Whether a post of this call may have the bus start a notification server. A new call may
    /// (a server that quits when idle is started by the bus); a card posted again because its
    /// server went away waits for the desktop to start its own: one the bus started for it took
    /// the name first, and the desktop's own then failed to take it.
    public func mayStartAServer(for key: DeliveryKey) -> Bool {
        self.inHand.repost(key)?.rang != true
    }

    /// Whether the server instance a post went to may still show it: it still answers for the
    /// name. One the post went to while none was known may be the server the post started.
    func mayStillShow(_ key: DeliveryKey) -> Bool {
        guard let sentTo = self.inHand.sentTo(key) else { return self.serverIdentity != nil }
        return sentTo == self.serverIdentity || self.takenOver.contains(sentTo)
    }

    /// The repost timer fired: post the call again if it is still owed and she is still away.
    mutating func repost(_ key: DeliveryKey, now: Instant) -> [MachineAction] {
        guard var repost = self.inHand.repost(key) else { return [] }
        repost.timer = nil
        self.inHand.keep(repost, for: key)
        guard self.display == .away,
            let call = self.persisted.delivered.first(where: { $0.key == key && $0.notificationId == nil })
        else {
            _ = self.inHand.removeRepost(key)
            return []
        }
        // Its retry was due inside rule 2's window, but nothing ran until now (the tablet slept,
        // or the clock moved on): too late to post it at all.
        guard now <= self.lastMomentToPost(call) else {
            self.forgetUntaken(key)
            let reason =
                "its window closed before a notification server took it again (nothing ran until \(now.rfc3339))"
            return [
                .record(
                    HistoryRecord(
                        time: now, event: repost.rang ? .withdrawn : .dropped, lay: key.lay, at: key.at,
                        itemIds: call.itemIds, reason: reason)),
                .persist,
            ]
        }
        // The family edited the household since the call first went out, and it no longer has
        // this start (an item removed or moved): only the family's words as they are now are posted.
        guard let start = self.plannedNow(call) else {
            self.forgetUntaken(key)
            return [
                .record(
                    HistoryRecord(
                        time: now, event: repost.rang ? .withdrawn : .dropped, lay: key.lay, at: key.at,
                        itemIds: call.itemIds,
                        reason: "the household no longer has this start, before a notification server took it again")),
                .persist,
            ]
        }
        // The clock was stepped back since the call went out: it goes out again at its minute, not
        // before (a call is never sent ahead of its time).
        if now < key.at, self.postAgain(key, repost, at: key.at) {
            return [
                .log(
                    .notice,
                    "The clock is before the call for \(key.at.rfc3339) again: it is posted again at its minute")
            ]
        }
        self.inHand.posting(key, to: self.serverIdentity, at: now, repost: repost)
        return [
            .log(.notice, "Posting the call for \(key.at.rfc3339) again (attempt \(repost.attempts + 1))"),
            .post(key, start),
        ]
    }

    /// Whether a call handed to the notifier has not been taken by a server yet: its post is out,
    /// or it waits to be posted again. Posted, dropped, withdrawn or expired, it is no longer.
    public var awaitsAServer: Bool {
        self.inHand.anyAwaitsAServer
    }

    /// Whether a call's Notify may leave now, asked just before it does: its post is still wanted
    /// (not taken back by a return, a newer call or its end), and the clock is still inside its
    /// window. A post can wait on the loop (for a server's Do Not Disturb, or whether the session
    /// has a display), and a clock stepped meanwhile must not send a call stale or before its
    /// minute (rule 2): the machine decided at one time, the Notify leaves at another.
    public func maySend(_ key: DeliveryKey, now: Instant) -> Bool {
        guard self.inHand.awaitsPost(key) else { return false }
        // The carer's sample has no minute: it is posted when she asks.
        guard let call = self.persisted.delivered.first(where: { $0.key == key }) else { return true }
        guard key.at <= now && now < call.expiresAt else { return false }
        if now <= self.lastMomentToPost(call) { return true }
        // A post decided at its window's last moment may leave a little after it: the wait itself
        // is no stale call. Beyond that wait, the clock moved on (a step, a suspend).
        let decided = self.inHand.sentAt(key) ?? now
        return now.seconds - decided.seconds <= Self.longestWaitBeforeANotify
    }

    /// The Notify for `key` leaves now if `maySend` allows it; the post's time becomes the time it
    /// left, so history's "answered N s after it was posted" is the server's time alone, and a
    /// clock stepped during the wait is told as the call's own lateness.
    public mutating func notifyLeaves(_ key: DeliveryKey, now: Instant) -> Bool {
        guard self.maySend(key, now: now) else { return false }
        self.inHand.leaves(key, at: now)
        return true
    }

    /// The longest a post waits on the loop before its Notify leaves: the user manager's answer on
    /// whether the session has a display (sd-bus's 25 s default timeout), then the probe of a
    /// server that took the name meanwhile and has not said who it is (two calls of 10 s at most),
    /// then a Do Not Disturb read (0.5 s).
    public static let longestWaitBeforeANotify: Int64 = 46

    /// The last instant `call` may go out to a server, first or again: rule 2's grace window, and
    /// never at or after its card's end.
    func lastMomentToPost(_ call: DeliveredCall) -> Instant {
        min(call.key.at.adding(seconds: self.config.grace), call.expiresAt.adding(seconds: -1))
    }

    /// Posts `key` again at `instant`, keeping `repost` with its timer; false where the wheel cannot
    /// hold it. A clock stepped back whose jump event is still to come leaves the wheel at the old
    /// time: its next second is then the earliest it holds, the repost checks the clock again when
    /// it fires, and a rebuilt wheel arms it anew (`rearmReposts`).
    mutating func postAgain(_ key: DeliveryKey, _ repost: Repost, at instant: Instant) -> Bool {
        guard case .scheduled(let id) = self.wheel.insert(.repost(key), at: max(instant.seconds, self.wheel.now + 1))
        else { return false }
        var repost = repost
        repost.timer = id
        self.inHand.keep(repost, for: key)
        return true
    }

    /// A call no server took leaves the list, with its close at its end and its retry.
    mutating func forgetUntaken(_ key: DeliveryKey) {
        self.persisted.delivered.removeAll { $0.key == key }
        self.cancelExpiry(key)
        self.cancelRepost(key)
    }

    /// The call left (taken, withdrawn, replaced or expired): nothing to post again.
    mutating func cancelRepost(_ key: DeliveryKey) {
        if let id = self.inHand.removeRepost(key)?.timer { self.wheel.cancel(id) }
    }

    /// The start the household in force plans for `call`: its minute and its items, in the
    /// family's words as they are now; nil where an edit took it away.
    func plannedNow(_ call: DeliveredCall) -> Start? {
        self.plannedNow(at: call.key.at, itemIds: call.itemIds)
    }

    /// `start` as the household in force plans it now (its words as they are now), or nil where
    /// it no longer does.
    func plannedNow(_ start: Start) -> Start? {
        self.plannedNow(at: start.at, itemIds: start.itemIds)
    }

    private func plannedNow(at: Instant, itemIds: [String]) -> Start? {
        self.household.flatMap { household in
            Planner.plan(household.load.household, after: at.adding(seconds: -1), through: at)
                .starts.first { $0.at == at && $0.itemIds == itemIds }
        }
    }

    /// A new wheel after a clock jump: a post waiting to be tried again is tried at once.
    mutating func rearmReposts(now: Instant) {
        for (key, _) in self.inHand.waitingWithTimer {
            if let repost = self.inHand.repost(key) { _ = self.postAgain(key, repost, at: now.adding(seconds: 1)) }
        }
    }

    /// The server (or the bus under it) restarted: ids restart with it, none of ours can be
    /// closed any more, and the new server shows none of our cards. A card still inside its life,
    /// within rule 2's window and with the display away, is posted again once on the new server;
    /// the rest are forgotten, and history says why. A post still in flight is kept: its reply
    /// comes from whoever answers now (a server the post itself started, on a first boot). So is a
    /// card the instance `answering` now gave already: a post that left as the new server took the
    /// name is answered by it, and its reply may come before the bus has said the old one went.
    mutating func serverRestarted(now: Instant, answering: String?) -> [MachineAction] {
        // A post that got no answer in time went with the server: it can be posted again now.
        // Posts to a server another took the name over from, and its cards, stay with it.
        var actions: [MachineAction] = []
        for key in self.inHand.unknownOutcomes where !self.takenOver.contains(self.inHand.sentTo(key) ?? "") {
            actions += self.postFailed(
                key, reason: "the notification server left without answering it", failure: .serverUnavailable,
                now: now)
        }
        let wiped = self.persisted.delivered.filter {
            $0.notificationId != nil && !self.takenOver.contains($0.server ?? "")
                && ($0.server == nil || $0.server != answering)
        }
        guard !wiped.isEmpty else { return actions }
        actions += [.log(.notice, "Notification server restarted; forgetting its notification ids"), .persist]
        return actions + self.wiped(wiped, why: "the notification server restarted and its card went with it", now: now)
    }

    /// Cards a server took with it when it left: each one still inside its life, within rule 2's
    /// window and with the display away is posted again once on the server answering now; the
    /// rest are forgotten. History says `why`.
    mutating func wiped(_ wiped: [DeliveredCall], why: String, now: Instant) -> [MachineAction] {
        var actions: [MachineAction] = []
        for call in wiped {
            let stillPlanned = self.plannedNow(call) != nil
            let inWindow = now.seconds - call.key.at.seconds <= self.config.grace && now < call.expiresAt
            guard let index = self.persisted.delivered.firstIndex(where: { $0.key == call.key }) else { continue }
            if stillPlanned, inWindow, self.display == .away, self.inHand.mayPostAgainAfterRestart(call.key) {
                self.persisted.delivered[index].notificationId = nil
                self.persisted.delivered[index].server = nil
                self.inHand.keep(Repost(reason: "posted again once: \(why)", rang: true, again: true), for: call.key)
                actions += self.repost(call.key, now: now)
            } else {
                self.persisted.delivered.remove(at: index)
                self.cancelExpiry(call.key)
                actions.append(
                    .record(
                        HistoryRecord(
                            time: now, event: .withdrawn, lay: call.key.lay, at: call.key.at, itemIds: call.itemIds,
                            reason: why)))
            }
        }
        return actions
    }

    /// A server now owns the name: every call waiting for one is posted at once, not at its next
    /// retry. One waiting for its minute (the clock was stepped back before it) still waits.
    mutating func postWaitingCalls(now: Instant) -> [MachineAction] {
        var actions: [MachineAction] = []
        for (key, timer) in self.inHand.waitingWithTimer where key.at <= now {
            self.wheel.cancel(timer)
            actions += self.repost(key, now: now)
        }
        return actions
    }
}
