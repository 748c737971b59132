// The daemon's edges: a clock that jumped, a zone change, a resume, and bringing the day back.

extension DaemonMachine {
    /// A clock that jumped leaves the wheel's notion of now behind: start it again at `now`,
    /// keeping the expiries of what is shown.
    mutating func rebuildWheel(now: Instant) -> [MachineAction] {
        self.wheel = TimerWheel(now: now.seconds)
        self.laid.forgetWheelTimers()
        self.inHand.forgetExpiries()
        self.topUpTimer = nil
        // Bringing the day back was promised three seconds after a call: a clock step does not cancel it.
        let bringBack = self.bringBackTimer
        self.bringBackTimer = nil
        if let bringBack {
            self.scheduleBringBack(at: min(max(bringBack.at, now), now.adding(seconds: self.config.bringBackDelay)))
        }
        self.rearmReposts(now: now)
        if self.sample != nil {
            self.sample?.timer = nil
            if case .scheduled(let id) = self.wheel.insert(.sampleEnd, at: now.seconds + Self.sampleSeconds) {
                self.sample?.timer = id
            }
        }
        var actions: [MachineAction] = []
        for call in self.persisted.delivered {
            if call.expiresAt <= now {
                actions += self.expire(call.key, now: now)
            } else {
                self.scheduleExpiry(call)
            }
        }
        return actions
    }

    /// Everything due by `now`, whichever backend holds it, delivered within the grace window or
    /// dropped and recorded (rule 2): run before a change replaces the lay. Without exact alarms
    /// the manager's starts are not in the wheel, and its late fire may never come for this lay.
    mutating func settleDue(now: Instant) -> [MachineAction] {
        var actions = self.advance(now: now)
        if self.config.startsLiveIn == .systemd, let lay = self.persisted.lay {
            actions += self.handleDue(self.laid.takeDue(now: now), now: now, lay: lay.number)
        }
        return actions
    }

    /// After a clock step or a zone change: a plan that still yields the same instants keeps the
    /// lay and its number (a resume from suspend is not a new lay, and the manager's timers stay
    /// right); anything else is a new lay.
    mutating func relayAfterClockChange(remaining: [Start], now: Instant, reason: String) -> [MachineAction] {
        if let lay = self.persisted.lay, let household = self.household?.load.household {
            let called = self.persisted.calledIndex
            let replanned = Planner.plan(household, after: max(now, lay.handledThrough), through: lay.laidUntil).starts
                .filter { !called.contains($0) }
            let same = replanned.elementsEqual(remaining) { $0.at == $1.at && $0.itemIds == $1.itemIds }
            if same {
                // The manager still holds its starts; the wheel's went with the old wheel.
                if self.laid.store == .wheel { self.laid.add(remaining, wheel: &self.wheel) }
                let topUpAt = max(lay.laidUntil.seconds - self.config.minimumPending, now.seconds + 1)
                if case .scheduled(let id) = self.wheel.insert(.topUp, at: topUpAt) { self.topUpTimer = id }
                // The manager's timers are sent again under the same number, as a clock change always
                // did: what it holds is then exactly the lay, whatever it was doing when the clock moved.
                let refresh: [MachineAction] =
                    self.config.startsLiveIn == .systemd
                    ? [self.layTimers(lay: lay.number, starts: self.laid.managerStarts, replacing: true)] : []
                return refresh + [
                    .log(.info, "\(reason): the plan holds the same \(remaining.count) starts; lay \(lay.number) kept")
                ]
            }
        }
        return self.clearLay(now: now, reason: reason) + self.newLay(now: now, reason: reason)
    }

    mutating func scheduleBringBack(at instant: Instant) {
        if let timer = self.bringBackTimer { self.wheel.cancel(timer.id) }
        self.bringBackTimer = nil
        if case .scheduled(let id) = self.wheel.insert(.bringBack, at: instant.seconds) {
            self.bringBackTimer = (id, instant)
        }
    }
}
