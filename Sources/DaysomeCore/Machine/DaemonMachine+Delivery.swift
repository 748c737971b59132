// Time passing: starts falling due (rule 2: never a burst, never stale), calls delivered,
// and calls leaving at their expiresAt.

extension DaemonMachine {
    // MARK: Time passing

    /// Moves the wheel to `now` and acts on everything due.
    mutating func advance(now: Instant) -> [MachineAction] {
        var due: [Start] = []
        var actions: [MachineAction] = []
        for expired in self.wheel.advance(to: now.seconds) {
            switch expired.payload {
            case .start:
                due += self.laid.wheelStartsDue(now: now, wheel: &self.wheel)
            case .expire(let key):
                _ = self.inHand.removeExpiry(key)
                actions += self.expire(key, now: now)
            case .bringBack:
                self.bringBackTimer = nil
                if self.display == .away {
                    actions.append(
                        .bringDisplayBack(reason: "a call was delivered \(self.config.bringBackDelay) s ago"))
                }
            case .repost(let key):
                actions += self.repost(key, now: now)
            case .sampleEnd:
                self.sample?.timer = nil
                actions += self.takeSampleAway()
            case .managerStart:
                self.laid.deadlineFired()
                due += self.laid.takeDue(now: now)
            case .topUp:
                self.topUpTimer = nil
                if self.display == .away, let lay = self.persisted.lay {
                    let (count, timers) = self.extendLay(through: now.adding(seconds: self.config.horizon), now: now)
                    actions += timers
                    actions.append(.log(.info, "Extended lay \(lay.number) by \(count) starts"))
                    actions.append(.persist)
                }
            }
        }
        if let lay = self.persisted.lay { actions += self.handleDue(due, now: now, lay: lay.number) }
        return actions
    }

    /// Rule 2 for starts that are due: at most the latest is delivered, and only while away,
    /// within the grace window and before its card would have left the display. One whose minute
    /// came before a display write read since is not called; while the display is in front they
    /// are held until the loop caught up (DaemonMachine+CaughtUp.swift).
    mutating func handleDue(_ due: [Start], now: Instant, lay: UInt64) -> [MachineAction] {
        var actions: [MachineAction] = []
        var callable: [Start] = []
        for start in due {
            if let written = self.displayWrittenAfter(start, now: now) {
                actions.append(self.writtenAfterItsMinute(start, written: written, lay: lay, now: now))
            } else {
                callable.append(start)
            }
        }
        guard let latest = callable.max(by: { $0.at < $1.at }) else {
            return actions.isEmpty ? [] : actions + [.persist]
        }
        if self.display != .away {
            // Read with a return: what queued with it (a lock) may still change what she sees.
            actions += self.hold(callable, lay: lay)
            if var record = self.persisted.lay, record.number == lay {
                record.handledThrough = max(record.handledThrough, latest.at)
                self.persisted.lay = record
            }
            return actions + [.persist]
        }
        let due = callable
        for start in due where start.at != latest.at {
            actions.append(
                .record(
                    HistoryRecord(
                        time: now, event: .dropped, lay: lay, at: start.at, itemIds: start.itemIds,
                        reason: "a later start was due as well: never a burst")))
        }
        let lateness = now.seconds - latest.at.seconds
        if lateness > self.config.grace {
            actions.append(
                .record(
                    HistoryRecord(
                        time: now, event: .dropped, lay: lay, at: latest.at, itemIds: latest.itemIds,
                        reason: "\(lateness) s after its minute, beyond the \(self.config.grace) s grace window")))
        } else if self.persisted.alreadyCalled(latest) {
            actions.append(
                .record(
                    HistoryRecord(
                        time: now, event: .dropped, lay: lay, at: latest.at, itemIds: latest.itemIds,
                        reason:
                            "already called at \(latest.local.rfc3339): one call per occurrence, whatever the clock did"
                    )))
        } else if self.callsBeforeRestartUnproven {
            actions.append(
                .record(
                    HistoryRecord(
                        time: now, event: .dropped, lay: lay, at: latest.at, itemIds: latest.itemIds,
                        reason:
                            "the state directory could not be written, so whether it was called before the restart "
                            + "cannot be proven: never twice")))
        } else if now >= latest.expiresAt {
            actions.append(
                .record(
                    HistoryRecord(
                        time: now, event: .dropped, lay: lay, at: latest.at, itemIds: latest.itemIds,
                        reason: "its card had already left the display")))
        } else {
            actions += self.deliver(latest, lay: lay, now: now, lateness: lateness)
        }
        if var record = self.persisted.lay, record.number == lay {
            record.handledThrough = max(record.handledThrough, latest.at)
            self.persisted.lay = record
        }
        actions.append(.persist)
        return actions
    }

    mutating func deliver(_ start: Start, lay: UInt64, now: Instant, lateness: Int64) -> [MachineAction] {
        let key = DeliveryKey(lay: lay, at: start.at)
        let call = DeliveredCall(key: key, itemIds: start.itemIds, expiresAt: start.expiresAt, notificationId: nil)
        let (replaced, post, replacing) = self.takePlace(of: start, key: key, now: now)
        self.persisted.delivered.append(call)
        self.persisted.remember(start, now: now)
        self.inHand.posting(key, to: self.serverIdentity, at: now, repost: Repost(), replacing: replacing)
        self.scheduleExpiry(call)
        let settings = self.household?.load.household.settings ?? Settings()
        if settings.bringDayBack {
            self.scheduleBringBack(at: now.adding(seconds: self.config.bringBackDelay))
        }
        // Persist before posting: a crash in between loses one call rather than repeating it.
        // History says `delivered`, and the bell rings, only once a server took it (`.posted`).
        return replaced + [.persist, post]
    }

    /// A server took a call: history says `delivered`, with how late it came when it was late,
    /// and why the server holds it out of sight where it said so.
    /// - Parameter sentAt: when the post the server answered went out: a hung server's answer
    ///   hours after a post made at its minute is no call made after its minute.
    func deliveredRecord(
        _ call: DeliveredCall, now: Instant, posted: Repost?, sentAt: Instant? = nil, held: String? = nil
    ) -> HistoryRecord {
        let sent = sentAt ?? now
        let lateness = sent.seconds - call.key.at.seconds
        let answer = now.seconds - sent.seconds
        // A post decided inside the window may leave after its own wait (the machine's allowance,
        // `longestWaitBeforeANotify`): history says so rather than claim the window.
        let late =
            lateness <= self.config.grace
            ? "\(lateness) s after its minute, within the grace window"
            : "\(lateness) s after its minute: decided inside the \(self.config.grace) s grace window, it waited "
                + "for the notification server to answer before it left"
        let words = [
            lateness > 1 ? late : nil,
            answer > 1 ? "the notification server answered \(answer) s after it was posted" : nil,
        ].compactMap { $0 }
        let reason = posted?.reason ?? (words.isEmpty ? nil : words.joined(separator: "; "))
        return HistoryRecord(
            time: now, event: posted?.again == true ? .reposted : .delivered, lay: call.key.lay, at: call.key.at,
            itemIds: call.itemIds, reason: reason, held: held)
    }

    mutating func expire(_ key: DeliveryKey, now: Instant) -> [MachineAction] {
        guard let index = self.persisted.delivered.firstIndex(where: { $0.key == key }) else { return [] }
        let call = self.persisted.delivered.remove(at: index)
        // A call whose post is out, or that waits for a server, was not seen (yet): `leave` says
        // so. One found without an id after a restart may be on screen: it expired as usual.
        let unanswered = self.inHand.isUnanswered(key)
        self.cancelRepost(key)
        var actions: [MachineAction] =
            call.notificationId == nil && unanswered
            ? self.leave(call, now: now, event: .expired, reason: nil)
            : [
                .record(
                    HistoryRecord(
                        time: now, event: .expired, lay: key.lay, at: key.at, itemIds: call.itemIds,
                        reason: self.closedWhereShown(call)))
            ]
        actions.append(.persist)
        if let id = call.notificationId { actions.insert(.close(key, notificationId: id, server: call.server), at: 0) }
        return actions
    }

    /// Expires every delivered call whose card has already left the display.
    mutating func expireDelivered(now: Instant) -> [MachineAction] {
        var actions: [MachineAction] = []
        for call in self.persisted.delivered where call.expiresAt <= now {
            self.cancelExpiry(call.key)
            actions += self.expire(call.key, now: now)
        }
        return actions
    }

    mutating func scheduleExpiry(_ call: DeliveredCall) {
        self.cancelExpiry(call.key)
        if case .scheduled(let id) = self.wheel.insert(.expire(call.key), at: call.expiresAt.seconds) {
            self.inHand.expires(call.key, with: id)
        }
    }

    mutating func cancelExpiry(_ key: DeliveryKey) {
        if let id = self.inHand.removeExpiry(key) { self.wheel.cancel(id) }
    }
}
