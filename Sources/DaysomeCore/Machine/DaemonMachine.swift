// The daemon's brain as a pure state machine: events in, actions out, time a parameter.
// It owns the timer wheel, the current lay, and what was delivered. It never touches a file,
// a bus or a clock, so every rule (never over the display, nothing stale, no catch-up, one
// call per minute) is tested here on a virtual clock, and replayed by `daysomectl replay`.

/// The state machine of one daemon.
public struct DaemonMachine: Sendable {
    public let config: MachineConfig
    /// What the display state file says; the daemon starts in the foreground until told (rule 1 first).
    public private(set) var display: DisplayState = .foreground
    /// The last good household, kept when a later file cannot be used (rule 9).
    public private(set) var household: LoadedHousehold?
    /// The latest whole-file failure, cleared by the next good file.
    public private(set) var householdError: HouseholdFileError?
    /// The lay counter, the current lay and the delivered calls: what survives a restart.
    public private(set) var persisted: PersistedState
    /// Starts, expiries and the top-up, by deadline.
    public private(set) var wheel: TimerWheel<WheelEntry>
    private var startTimers: [Instant: TimerID] = [:]
    /// With the systemd backend: the current lay's starts not yet fired, in order.
    private var managerStarts: [Start] = []
    private var expiryTimers: [DeliveryKey: TimerID] = [:]
    private var topUpTimer: TimerID?
    /// With the systemd backend and exact alarms: the wheel's deadline at the next manager start.
    private var managerDeadline: (id: TimerID, at: Instant)?
    private var bringBackTimer: (id: TimerID, at: Instant)?
    /// The notification server instance now answering (`serverIdentified`); ids are stamped with it.
    public private(set) var serverIdentity: String?
    private var serverIdentifiedOnce = false
    /// Calls posted whose id has not arrived; true means withdraw it as soon as it does.
    private var inFlight: [DeliveryKey: Bool] = [:]
    /// The last few ids the server closed itself: a click that arrives after its close still counts.
    private var closedByServer: [UInt32] = []

    /// Creates a machine from what the state directory remembered.
    public init(config: MachineConfig, persisted: PersistedState, now: Instant) {
        self.config = config
        self.persisted = persisted
        self.wheel = TimerWheel(now: now.seconds)
    }

    /// The number of the current lay, if one is in force.
    public var currentLay: LayRecord? { self.persisted.lay }

    /// The pending starts of the current lay, in order, with their wheel handles.
    public var pendingStarts: [(id: TimerID, start: Start)] {
        self.wheel.sortedEntries().compactMap { entry in
            if case .start(let start) = entry.payload { return (entry.id, start) }
            return nil
        }
    }

    /// Every start laid and not yet due, whichever backend holds it.
    public var laidStarts: [Start] {
        switch self.config.startsLiveIn {
        case .wheel: return self.pendingStarts.map(\.start)
        case .systemd: return self.managerStarts
        }
    }

    /// Whether notifications would be laid if the display went away now.
    public var notifyInOtherApps: Bool { self.household?.load.household.settings.notifyInOtherApps ?? false }

    /// Why nothing is laid, in a carer's words, or nil while a lay is in force.
    public var notLaidReason: String? {
        guard self.persisted.lay == nil else { return nil }
        guard let household = self.household else {
            return self.householdError.map { "the household file \($0.message), and no earlier household is kept" }
                ?? "no household has been read yet"
        }
        if !household.load.household.settings.notifyInOtherApps {
            return "notifications in other apps are off (a carer turns on settings.notifyInOtherApps)"
        }
        if self.display == .foreground { return "the day display is in front: nothing is called over it" }
        return nil
    }

    /// Raises the lay counter to at least `number` (a lay the systemd manager still holds, found at
    /// start-up after a state file was lost): lay numbers are never used twice.
    public mutating func raiseLayCounter(atLeast number: UInt64) {
        self.persisted.layCounter = max(self.persisted.layCounter, number)
    }

    // MARK: Start-up

    /// The first decision after a (re)start: the display state and household are already read.
    /// - Parameter lastGood: the copy of the last household used, kept in the state directory: in
    ///   force when the file cannot be used now (rule 9 across restarts and reboots).
    public mutating func start(
        display: DisplayState, household: Result<LoadedHousehold, HouseholdFileError>,
        lastGood: LoadedHousehold? = nil, now: Instant
    ) -> [MachineAction] {
        var actions: [MachineAction] = []
        if let lastGood {
            // The kept copy is the last good household of rule 9: in force when the file cannot be
            // used, and the source of any setting the file cannot read.
            let kept = self.acceptHousehold(.success(lastGood), now: now).actions
            if case .failure = household {
                actions += kept
                actions.append(
                    .log(.notice, "Laying from the last good household, kept since \(lastGood.loadedAt.rfc3339)"))
            }
        }
        actions += self.acceptHousehold(household, now: now).actions
        self.display = display
        if display == .foreground {
            actions += self.clear(now: now, reason: "display in the foreground at start-up")
            return actions + self.finish(now: now)
        }
        // Calls still on screen from before the restart close at their expiry as usual.
        actions += self.expireDelivered(now: now)
        for call in self.persisted.delivered { self.scheduleExpiry(call) }
        if let lay = self.persisted.lay, let current = self.household, current.digest == lay.householdDigest,
            self.notifyInOtherApps
        {
            actions += self.resume(lay, now: now)
        } else {
            if let lay = self.persisted.lay {
                // Rule 2 before the lay is replaced: what fell due while the daemon was down is
                // delivered within the grace window or dropped and recorded, as the lay's own
                // household planned it (the kept copy, when it is that household).
                let planned = lastGood?.digest == lay.householdDigest ? lastGood : self.household
                if let plannedFrom = planned?.load.household, plannedFrom.settings.notifyInOtherApps {
                    let owed = Planner.plan(
                        plannedFrom, after: lay.handledThrough, through: max(now, lay.handledThrough))
                    actions += self.handleDue(owed.starts, now: now, lay: lay.number)
                }
            }
            let reason =
                self.household == nil
                ? "the household file cannot be used and no earlier household is kept"
                : "household changed while the daemon was stopped"
            actions += self.clearLay(now: now, reason: reason)
            actions += self.newLay(now: now, reason: "display away at start-up")
        }
        return actions + self.finish(now: now)
    }

    // MARK: Events

    /// Handles one event at `now`.
    public mutating func handle(_ event: MachineEvent, now: Instant) -> [MachineAction] {
        var actions: [MachineAction] = []
        switch event {
        case .display(.foreground):
            self.display = .foreground
            actions += self.clear(now: now, reason: "display returned")
        case .display(.away):
            guard self.display != .away || self.persisted.lay == nil else { return [] }
            self.display = .away
            actions += self.advance(now: now)
            actions += self.newLay(now: now, reason: "display away")
        case .household(let result):
            let (changed, logged) = self.acceptHousehold(result, now: now)
            actions += logged
            if changed && self.display == .away {
                actions += self.settleDue(now: now)
                actions += self.clearLay(now: now, reason: "household changed")
                actions += self.newLay(now: now, reason: "household changed")
            }
        case .timer:
            actions += self.advance(now: now)
        case .clockChanged(let reason):
            // Deliver (or drop) what a forward jump made due before the plan is laid again.
            actions += self.settleDue(now: now)
            let remaining = self.laidStarts
            actions += self.rebuildWheel(now: now)
            if self.display == .away {
                actions += self.relayAfterClockChange(remaining: remaining, now: now, reason: reason)
            }
        case .posted(let key, let id):
            if let withdraw = self.inFlight.removeValue(forKey: key), withdraw {
                actions.append(.close(key, notificationId: id))
            } else if let index = self.persisted.delivered.firstIndex(where: { $0.key == key }) {
                self.persisted.delivered[index].notificationId = id
                self.persisted.delivered[index].server = self.serverIdentity
                actions.append(.persist)
            }
        case .postFailed(let key, let reason):
            self.inFlight[key] = nil
            if let index = self.persisted.delivered.firstIndex(where: { $0.key == key }) {
                let call = self.persisted.delivered.remove(at: index)
                self.cancelExpiry(key)
                actions.append(
                    .log(.error, "Failed to post the call for \(key.at.rfc3339) of lay \(key.lay): \(reason)"))
                actions.append(
                    .record(
                        HistoryRecord(
                            time: now, event: .dropped, lay: key.lay, at: key.at, itemIds: call.itemIds,
                            reason: "notification server: \(reason)")))
                actions.append(.persist)
            }
        case .serverClosed(let id, let reason):
            actions += self.serverClosed(id, reason: reason, now: now)
        case .fired(let lay):
            guard let current = self.persisted.lay, current.number == lay, self.display == .away else {
                actions.append(
                    .log(.info, "A timer of lay \(lay) fired, but that lay is not current: nothing delivered"))
                break
            }
            let due = self.takeDueManagerStarts(now: now)
            if due.isEmpty {
                // The daemon's own deadline called at the minute; the manager's accuracy came after.
                actions.append(.log(.info, "A timer of lay \(lay) fired: its start was already delivered"))
            }
            actions += self.handleDue(due, now: now, lay: lay)
        case .timersLost:
            guard self.display == .away, let lay = self.persisted.lay, self.config.startsLiveIn == .systemd else {
                break
            }
            actions.append(.log(.notice, "The systemd manager lost the timers of lay \(lay.number); laying them again"))
            actions.append(.layTimers(lay: lay.number, starts: self.managerStarts, replacing: true))
        case .clicked(let id):
            actions += self.clicked(id, now: now)
        case .serverIdentified(let identity):
            actions += self.identifyServer(identity)
        case .serverRestarted:
            // Ids restart with the server: none of ours can be closed any more, and the new
            // server shows none of them. A post still in flight is kept: its reply comes from
            // whoever answers now (a server the post itself started, on a first boot).
            if self.persisted.delivered.contains(where: { $0.notificationId != nil }) {
                for call in self.persisted.delivered where call.notificationId != nil { self.cancelExpiry(call.key) }
                self.persisted.delivered.removeAll { $0.notificationId != nil }
                actions.append(.log(.notice, "Notification server restarted; forgetting its notification ids"))
                actions.append(.persist)
            }
        }
        return actions + self.finish(now: now)
    }

    /// The actions every step ends with: the queue published and the timer armed.
    private mutating func finish(now: Instant) -> [MachineAction] {
        self.armManagerDeadline(now: now)
        return [.publish, .arm(self.wheel.nextDeadline.map { Instant(seconds: $0) })]
    }

    /// With exact alarms, the manager's `AccuracySec=1s` is not exact enough: sd-event fires such a
    /// timer at the machine's boot-derived offset inside the second (0.44 s on one boot, anything
    /// below 1 s on another), and `daysomectl fire` adds its own start-up. The daemon is up anyway
    /// (every call is posted by it), so its wheel also wakes at the next start's minute and calls
    /// then; the manager keeps the week across restarts and fires as the backstop, finding the
    /// start delivered. Without exact alarms the manager's minute of slack is the promise.
    private mutating func armManagerDeadline(now: Instant) {
        let exact = self.household?.load.household.settings.exactAlarms ?? true
        let wanted: Instant? =
            self.config.startsLiveIn == .systemd && exact && self.display == .away && self.persisted.lay != nil
            ? self.managerStarts.first?.at : nil
        if let armed = self.managerDeadline, armed.at == wanted { return }
        if let armed = self.managerDeadline { self.wheel.cancel(armed.id) }
        self.managerDeadline = nil
        guard let at = wanted, at > now else { return }
        if case .scheduled(let id) = self.wheel.insert(.managerStart, at: at.seconds) {
            self.managerDeadline = (id, at)
        }
    }

    /// The manager's starts of the current lay whose minute has come, taken out of the list.
    private mutating func takeDueManagerStarts(now: Instant) -> [Start] {
        let due = self.managerStarts.prefix { $0.at <= now }
        self.managerStarts.removeFirst(due.count)
        return Array(due)
    }

    // MARK: Household

    private mutating func acceptHousehold(
        _ result: Result<LoadedHousehold, HouseholdFileError>, now: Instant
    ) -> (changed: Bool, actions: [MachineAction]) {
        switch result {
        case .failure(let error):
            self.householdError = error
            var actions = error.problems.map { MachineAction.log(.warning, $0.description) }
            let keeping =
                self.household == nil ? "nothing is laid until it is fixed" : "keeping the last good household"
            actions.append(.log(.error, "Invalid household file: \(error); \(keeping)"))
            return (false, actions)
        case .success(let read):
            self.householdError = nil
            let changed = self.household?.digest != read.digest
            // Rule 9: a settings value this file could not read keeps the last good one.
            let loaded = self.household.map { read.keepingSettings(of: $0.load.household.settings) } ?? read
            self.household = loaded
            var actions = loaded.load.problems.map { MachineAction.log(.warning, $0.description) }
            if changed {
                actions.append(.log(.info, "Loaded household with \(loaded.load.household.items.count) items"))
            }
            return (changed, actions)
        }
    }

    // MARK: Laying and clearing

    /// A new numbered lay from `now`, if the display is away and notifications are on.
    private mutating func newLay(now: Instant, reason: String) -> [MachineAction] {
        guard self.display == .away, let household = self.household else { return [] }
        guard household.load.household.settings.notifyInOtherApps else {
            return [.log(.info, "Not laying: notifications in other apps are off (settings.notifyInOtherApps)")]
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
    private mutating func extendLay(
        through until: Instant, now: Instant, replacing: Bool = false
    )
        -> (count: Int, actions: [MachineAction])
    {
        guard var lay = self.persisted.lay, let household = self.household?.load.household else { return (0, []) }
        // An occurrence already called (before a clock step, a zone change or a new lay) is never laid again.
        let starts = Planner.plan(household, after: lay.laidUntil, through: until).starts.filter {
            $0.at > now && !self.persisted.alreadyCalled($0)
        }
        var actions: [MachineAction] = []
        switch self.config.startsLiveIn {
        case .wheel:
            for start in starts {
                if case .scheduled(let id) = self.wheel.insert(.start(start), at: start.at.seconds) {
                    self.startTimers[start.at] = id
                }
            }
        case .systemd:
            self.managerStarts += starts
            if replacing {
                actions.append(.layTimers(lay: lay.number, starts: self.managerStarts, replacing: true))
            } else if !starts.isEmpty {
                actions.append(.layTimers(lay: lay.number, starts: starts, replacing: false))
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
    private mutating func resume(_ lay: LayRecord, now: Instant) -> [MachineAction] {
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
    private mutating func clear(now: Instant, reason: String) -> [MachineAction] {
        // A return before the day was brought back makes bringing it back moot.
        if let timer = self.bringBackTimer { self.wheel.cancel(timer.id) }
        self.bringBackTimer = nil
        var actions = self.clearLay(now: now, reason: reason)
        for call in self.persisted.delivered {
            self.cancelExpiry(call.key)
            if let id = call.notificationId { actions.append(.close(call.key, notificationId: id)) }
            actions.append(
                .record(
                    HistoryRecord(
                        time: now, event: .withdrawn, lay: call.key.lay, at: call.key.at, itemIds: call.itemIds,
                        reason: reason)))
        }
        // Posts still in flight are closed the moment their id arrives.
        for key in self.inFlight.keys { self.inFlight[key] = true }
        if !self.persisted.delivered.isEmpty {
            self.persisted.delivered = []
            actions.append(.persist)
        }
        return actions
    }

    /// Removes every pending start of the current lay and ends it.
    private mutating func clearLay(now: Instant, reason: String) -> [MachineAction] {
        for id in self.startTimers.values { self.wheel.cancel(id) }
        self.startTimers = [:]
        let hadManagerStarts = !self.managerStarts.isEmpty || self.persisted.lay != nil
        self.managerStarts = []
        if let id = self.topUpTimer { self.wheel.cancel(id) }
        self.topUpTimer = nil
        if let armed = self.managerDeadline { self.wheel.cancel(armed.id) }
        self.managerDeadline = nil
        // A clear stops every daysome- timer, also one whose creation is still in flight.
        let stop: [MachineAction] = self.config.startsLiveIn == .systemd && hadManagerStarts ? [.stopTimers] : []
        guard let lay = self.persisted.lay else { return stop }
        self.persisted.lay = nil
        return stop + [
            .record(HistoryRecord(time: now, event: .cleared, lay: lay.number, reason: reason)), .persist,
        ]
    }

    // MARK: Time passing

    /// Moves the wheel to `now` and acts on everything due.
    private mutating func advance(now: Instant) -> [MachineAction] {
        var due: [Start] = []
        var actions: [MachineAction] = []
        for expired in self.wheel.advance(to: now.seconds) {
            switch expired.payload {
            case .start(let start):
                self.startTimers[start.at] = nil
                due.append(start)
            case .expire(let key):
                self.expiryTimers[key] = nil
                actions += self.expire(key, now: now)
            case .bringBack:
                self.bringBackTimer = nil
                if self.display == .away {
                    actions.append(
                        .bringDisplayBack(reason: "a call was delivered \(self.config.bringBackDelay) s ago"))
                }
            case .managerStart:
                self.managerDeadline = nil
                due += self.takeDueManagerStarts(now: now)
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
    /// within the grace window and before its card would have left the display.
    private mutating func handleDue(_ due: [Start], now: Instant, lay: UInt64) -> [MachineAction] {
        guard let latest = due.max(by: { $0.at < $1.at }) else { return [] }
        var actions: [MachineAction] = []
        for start in due where start.at != latest.at {
            actions.append(
                .record(
                    HistoryRecord(
                        time: now, event: .dropped, lay: lay, at: start.at, itemIds: start.itemIds,
                        reason: "a later start was due as well: never a burst")))
        }
        let lateness = now.seconds - latest.at.seconds
        if self.display != .away {
            actions.append(
                .record(
                    HistoryRecord(
                        time: now, event: .dropped, lay: lay, at: latest.at, itemIds: latest.itemIds,
                        reason: "display in the foreground")))
        } else if lateness > self.config.grace {
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

    private mutating func deliver(_ start: Start, lay: UInt64, now: Instant, lateness: Int64) -> [MachineAction] {
        let key = DeliveryKey(lay: lay, at: start.at)
        let call = DeliveredCall(key: key, itemIds: start.itemIds, expiresAt: start.expiresAt, notificationId: nil)
        let (replaced, post) = self.takePlace(of: start, key: key, now: now)
        self.persisted.delivered.append(call)
        self.persisted.remember(start, now: now)
        self.inFlight[key] = false
        self.scheduleExpiry(call)
        let reason = lateness > 1 ? "\(lateness) s after its minute, within the grace window" : nil
        let settings = self.household?.load.household.settings ?? Settings()
        if settings.bringDayBack {
            self.scheduleBringBack(at: now.adding(seconds: self.config.bringBackDelay))
        }
        // Persist before posting: a crash in between loses one call rather than repeating it.
        return replaced + [
            .record(
                HistoryRecord(
                    time: now, event: .delivered, lay: lay, at: start.at, itemIds: start.itemIds, reason: reason)),
            .persist, post,
        ] + (settings.chime == .bell ? [.chime] : [])
    }

    // MARK: On every desktop

    /// One card at a time: the calls still on screen leave for the new one, recorded as replaced.
    /// The newest of them with an id is replaced in place (`replaces_id`), so servers that show
    /// one bubble at a time or queue banners never hide the newer call behind it; any other is
    /// closed, or withdrawn the moment its id arrives.
    private mutating func takePlace(
        of start: Start, key: DeliveryKey, now: Instant
    ) -> (actions: [MachineAction], post: MachineAction) {
        var actions: [MachineAction] = []
        var replacing: UInt32?
        for call in self.persisted.delivered.reversed() {
            self.cancelExpiry(call.key)
            if let id = call.notificationId {
                if replacing == nil { replacing = id } else { actions.append(.close(call.key, notificationId: id)) }
            } else if self.inFlight[call.key] != nil {
                self.inFlight[call.key] = true
            }
            actions.append(
                .record(
                    HistoryRecord(
                        time: now, event: .withdrawn, lay: call.key.lay, at: call.key.at, itemIds: call.itemIds,
                        reason: OnEveryDesktop.replacedReason(by: start.at))))
        }
        self.persisted.delivered = []
        return (actions, replacing.map { .replace(key, start, replacing: $0) } ?? .post(key, start))
    }

    /// The server closed a card itself (she dismissed it, or it timed it out): history says so.
    private mutating func serverClosed(_ id: UInt32, reason: UInt32, now: Instant) -> [MachineAction] {
        self.closedByServer = Array((self.closedByServer + [id]).suffix(8))
        guard let index = self.persisted.delivered.firstIndex(where: { $0.notificationId == id }) else { return [] }
        let call = self.persisted.delivered.remove(at: index)
        self.cancelExpiry(call.key)
        let (event, why) = OnEveryDesktop.serverClose(reason: reason)
        return [
            .record(
                HistoryRecord(
                    time: now, event: event, lay: call.key.lay, at: call.key.at, itemIds: call.itemIds, reason: why)),
            .persist,
        ]
    }

    /// She clicked a call: the day comes back, and a server that keeps a clicked card gets it closed.
    private mutating func clicked(_ id: UInt32, now: Instant) -> [MachineAction] {
        guard self.display == .away else { return [] }
        guard let index = self.persisted.delivered.firstIndex(where: { $0.notificationId == id }) else {
            // Most servers close a clicked card themselves, and some say so before the click.
            return self.closedByServer.contains(id) ? [.bringDisplayBack(reason: OnEveryDesktop.clickedReason)] : []
        }
        let call = self.persisted.delivered.remove(at: index)
        self.cancelExpiry(call.key)
        return [
            .close(call.key, notificationId: id),
            .record(
                HistoryRecord(
                    time: now, event: .withdrawn, lay: call.key.lay, at: call.key.at, itemIds: call.itemIds,
                    reason: OnEveryDesktop.clickedReason)),
            .persist, .bringDisplayBack(reason: OnEveryDesktop.clickedReason),
        ]
    }

    private mutating func expire(_ key: DeliveryKey, now: Instant) -> [MachineAction] {
        guard let index = self.persisted.delivered.firstIndex(where: { $0.key == key }) else { return [] }
        let call = self.persisted.delivered.remove(at: index)
        var actions: [MachineAction] = [
            .record(HistoryRecord(time: now, event: .expired, lay: key.lay, at: key.at, itemIds: call.itemIds)),
            .persist,
        ]
        if let id = call.notificationId {
            actions.insert(.close(key, notificationId: id), at: 0)
        } else if self.inFlight[key] != nil {
            self.inFlight[key] = true
        }
        return actions
    }

    /// Expires every delivered call whose card has already left the display.
    private mutating func expireDelivered(now: Instant) -> [MachineAction] {
        var actions: [MachineAction] = []
        for call in self.persisted.delivered where call.expiresAt <= now {
            self.cancelExpiry(call.key)
            actions += self.expire(call.key, now: now)
        }
        return actions
    }

    private mutating func scheduleExpiry(_ call: DeliveredCall) {
        self.cancelExpiry(call.key)
        if case .scheduled(let id) = self.wheel.insert(.expire(call.key), at: call.expiresAt.seconds) {
            self.expiryTimers[call.key] = id
        }
    }

    private mutating func cancelExpiry(_ key: DeliveryKey) {
        if let id = self.expiryTimers.removeValue(forKey: key) { self.wheel.cancel(id) }
    }

    /// A clock that jumped leaves the wheel's notion of now behind: start it again at `now`,
    /// keeping the expiries of what is shown.
    private mutating func rebuildWheel(now: Instant) -> [MachineAction] {
        self.wheel = TimerWheel(now: now.seconds)
        self.startTimers = [:]
        self.expiryTimers = [:]
        self.topUpTimer = nil
        self.managerDeadline = nil
        // Bringing the day back was promised three seconds after a call: a clock step does not cancel it.
        let bringBack = self.bringBackTimer
        self.bringBackTimer = nil
        if let bringBack {
            self.scheduleBringBack(at: min(max(bringBack.at, now), now.adding(seconds: self.config.bringBackDelay)))
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
    // MARK: Edges: clock steps, resumes, server restarts

    /// Everything due by `now`, whichever backend holds it, delivered within the grace window or
    /// dropped and recorded (rule 2): run before a change replaces the lay. Without exact alarms
    /// the manager's starts are not in the wheel, and its late fire may never come for this lay.
    private mutating func settleDue(now: Instant) -> [MachineAction] {
        var actions = self.advance(now: now)
        if self.config.startsLiveIn == .systemd, let lay = self.persisted.lay {
            actions += self.handleDue(self.takeDueManagerStarts(now: now), now: now, lay: lay.number)
        }
        return actions
    }

    /// After a clock step or a zone change: a plan that still yields the same instants keeps the
    /// lay and its number (a resume from suspend is not a new lay, and the manager's timers stay
    /// right); anything else is a new lay.
    private mutating func relayAfterClockChange(remaining: [Start], now: Instant, reason: String) -> [MachineAction] {
        if let lay = self.persisted.lay, let household = self.household?.load.household {
            let replanned = Planner.plan(household, after: max(now, lay.handledThrough), through: lay.laidUntil).starts
                .filter { !self.persisted.alreadyCalled($0) }
            let same = replanned.map { [$0.at.rfc3339] + $0.itemIds } == remaining.map { [$0.at.rfc3339] + $0.itemIds }
            if same {
                if self.config.startsLiveIn == .wheel {
                    for start in remaining {
                        if case .scheduled(let id) = self.wheel.insert(.start(start), at: start.at.seconds) {
                            self.startTimers[start.at] = id
                        }
                    }
                }
                let topUpAt = max(lay.laidUntil.seconds - self.config.minimumPending, now.seconds + 1)
                if case .scheduled(let id) = self.wheel.insert(.topUp, at: topUpAt) { self.topUpTimer = id }
                // The manager's timers are sent again under the same number, as a clock change always
                // did: what it holds is then exactly the lay, whatever it was doing when the clock moved.
                let refresh: [MachineAction] =
                    self.config.startsLiveIn == .systemd
                    ? [.layTimers(lay: lay.number, starts: self.managerStarts, replacing: true)] : []
                return refresh + [
                    .log(.info, "\(reason): the plan holds the same \(remaining.count) starts; lay \(lay.number) kept")
                ]
            }
        }
        return self.clearLay(now: now, reason: reason) + self.newLay(now: now, reason: reason)
    }

    /// The notification server instance now answering. Ids another instance gave (before a
    /// reboot, a server restart, or a session bus restart) mean nothing to it, or worse, name
    /// another app's notification: they are forgotten, never closed. An id this daemon got while
    /// no instance was known yet (a post that itself started the server) is that instance's; one
    /// found unstamped at start-up came from an earlier daemon and cannot be trusted.
    private mutating func identifyServer(_ identity: String?) -> [MachineAction] {
        let atStartUp = !self.serverIdentifiedOnce
        self.serverIdentifiedOnce = true
        self.serverIdentity = identity
        func isStale(_ call: DeliveredCall) -> Bool {
            call.notificationId != nil && (call.server.map { $0 != identity } ?? atStartUp)
        }
        for index in self.persisted.delivered.indices
        where !isStale(self.persisted.delivered[index]) && self.persisted.delivered[index].notificationId != nil {
            self.persisted.delivered[index].server = identity
        }
        let stale = self.persisted.delivered.filter(isStale)
        guard !stale.isEmpty else { return [] }
        self.persisted.delivered.removeAll(where: isStale)
        for call in stale { self.cancelExpiry(call.key) }
        return [
            .log(
                .notice,
                "Forgetting \(stale.count) notification id(s) of a server instance that is gone; none is closed"),
            .persist,
        ]
    }

    private mutating func scheduleBringBack(at instant: Instant) {
        if let timer = self.bringBackTimer { self.wheel.cancel(timer.id) }
        self.bringBackTimer = nil
        if case .scheduled(let id) = self.wheel.insert(.bringBack, at: instant.seconds) {
            self.bringBackTimer = (id, instant)
        }
    }
}
