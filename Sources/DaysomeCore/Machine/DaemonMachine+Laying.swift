// Laying, extending, resuming and clearing the numbered lay: what is pending while away.

extension DaemonMachine {
    // MARK: Laying and clearing

    /// A new numbered lay from `now`, if the display is away and notifications are on.
    mutating func newLay(now: Instant, reason: String) -> [MachineAction] {
        guard self.display == .away, let household = self.household else { return [] }
        guard household.load.household.settings.notifyInOtherApps else {
            return [.log(.info, "Not laying: notifications in other apps are off (settings.notifyInOtherApps)")]
        }
        // Lay numbers never repeat, whatever the counter says: at the largest, nothing is laid.
        guard self.persisted.layCounter < PersistedState.largestLayNumber else {
            return [.log(.error, "Not laying: \(Self.noLayNumberLeft)")]
        }
        self.persisted.layCounter += 1
        let number = self.persisted.layCounter
        self.persisted.lay = LayRecord(
            number: number, from: now, laidUntil: now, householdDigest: household.digest, handledThrough: now)
        let (count, timers) = self.extendLay(through: now.adding(seconds: self.config.horizon), now: now)
        // The number is on disk before the manager holds a timer named after it: a kill in between
        // must not let the next daemon use it again.
        return [.persist] + timers + [
            .record(HistoryRecord(time: now, event: .laid, lay: number, reason: "\(reason): \(count) starts"))
        ]
    }

    /// Adds the plan's starts up to `until` to the current lay: into the wheel, or as one more
    /// manager timer. Returns how many, and the actions that lay them in the manager.
    mutating func extendLay(
        through until: Instant, now: Instant, replacing: Bool = false
    )
        -> (count: Int, actions: [MachineAction])
    {
        guard var lay = self.persisted.lay, let household = self.household?.load.household else { return (0, []) }
        // An occurrence already called (before a clock step, a zone change or a new lay) is never laid again.
        let called = self.persisted.calledIndex
        var starts = Planner.plan(household, after: lay.laidUntil, through: until).starts
        // Copied only when something is left out (a dense week's 10,080 starts, usually none).
        if starts.contains(where: { $0.at <= now || called.contains($0) }) {
            starts = starts.filter { $0.at > now && !called.contains($0) }
        }
        self.laid.add(starts, wheel: &self.wheel)
        var actions: [MachineAction] = []
        if self.laid.store == .systemd {
            if replacing {
                actions.append(self.layTimers(lay: lay.number, starts: self.laid.managerStarts, replacing: true))
            } else if !starts.isEmpty {
                actions.append(self.layTimers(lay: lay.number, starts: starts, replacing: false))
            }
        }
        lay.laidUntil = until
        self.persisted.lay = lay
        if let old = self.topUpTimer { self.wheel.cancel(old) }
        let topUpAt = max(until.seconds - self.config.minimumPending, now.seconds + 1)
        if case .scheduled(let id) = self.wheel.insert(.topUp, at: topUpAt) { self.topUpTimer = id }
        return (starts.count, actions)
    }

    /// Resumes a remembered lay after a restart under its number: rule 2 decides what of the
    /// starts owed since the last one handled may still be delivered late.
    mutating func resume(_ lay: LayRecord, now: Instant) -> [MachineAction] {
        guard let household = self.household?.load.household else { return [] }
        let owed = Planner.plan(household, after: lay.handledThrough, through: max(now, lay.handledThrough)).starts
        var actions = self.handleDue(owed, now: now, lay: lay.number)
        var resumed = self.persisted.lay ?? lay
        resumed.handledThrough = max(resumed.handledThrough, now)
        resumed.laidUntil = resumed.handledThrough
        self.persisted.lay = resumed
        // The manager may hold this lay's timers or not: lay what remains again, replacing them.
        let (count, timers) = self.extendLay(
            through: max(lay.laidUntil, now.adding(seconds: self.config.horizon)), now: now, replacing: true)
        actions += timers
        actions.append(.log(.info, "Resumed lay \(lay.number) after a restart: \(count) starts pending"))
        actions.append(.persist)
        return actions
    }

    /// Rule 1: on return, nothing pending and nothing shown.
    mutating func clear(now: Instant, reason: String) -> [MachineAction] {
        // A return before the day was brought back makes bringing it back moot.
        if let timer = self.bringBackTimer { self.wheel.cancel(timer.id) }
        self.bringBackTimer = nil
        // Rule 1 holds for the carer's sample too.
        var actions = self.takeSampleAway() + self.clearLay(now: now, reason: reason)
        for call in self.persisted.delivered {
            self.cancelExpiry(call.key)
            self.cancelRepost(call.key)
            if let id = call.notificationId {
                actions.append(.close(call.key, notificationId: id, server: call.server))
            }
            actions += self.leave(call, now: now, event: .withdrawn, reason: reason)
        }
        // Posts still in flight are closed the moment their id arrives.
        self.inHand.takeBackEveryPost()
        if !self.persisted.delivered.isEmpty {
            self.persisted.delivered = []
            actions.append(.persist)
        }
        return actions
    }

    /// Removes every pending start of the current lay and ends it.
    mutating func clearLay(now: Instant, reason: String) -> [MachineAction] {
        let hadManagerStarts = !self.laid.managerStarts.isEmpty || self.persisted.lay != nil
        self.laid.removeAll(wheel: &self.wheel)
        if let id = self.topUpTimer { self.wheel.cancel(id) }
        self.topUpTimer = nil
        // A clear stops every daysome- timer, also one whose creation is still in flight.
        let stop: [MachineAction] = self.config.startsLiveIn == .systemd && hadManagerStarts ? [.stopTimers] : []
        guard let lay = self.persisted.lay else { return stop }
        self.persisted.lay = nil
        return stop + [
            .record(HistoryRecord(time: now, event: .cleared, lay: lay.number, reason: reason)), .persist,
        ]
    }
}
