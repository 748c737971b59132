// The daemon's brain as a pure state machine: events in, actions out, time a parameter.
// It owns the timer wheel, the current lay, and what was delivered. It never touches a file,
// a bus or a clock, so every rule (never over the display, nothing stale, no catch-up, one
// call per minute) is tested here on a virtual clock, and replayed by `daysomectl replay`.

/// The state machine of one daemon.
public struct DaemonMachine: Sendable {
    public let config: MachineConfig
    /// The display the daemon acts on (the file's word, or away while locked); it starts in the
    /// foreground until told (rule 1 first).
    public internal(set) var display: DisplayState = .foreground
    /// What the display's file and each locker said, combined (`lockSaid`, `displayRead`).
    public internal(set) var screenLock = ScreenLock()
    /// The first decision after a (re)start was made: a locker's word before it is only recorded.
    var decidedStart = false
    /// The last good household, kept when a later file cannot be used (rule 9).
    public internal(set) var household: LoadedHousehold?
    /// The latest whole-file failure, cleared by the next good file.
    public internal(set) var householdError: HouseholdFileError?
    /// The lay counter, the current lay and the delivered calls: what survives a restart.
    public internal(set) var persisted: PersistedState
    /// Starts, expiries and the top-up, by deadline.
    public internal(set) var wheel: TimerWheel<WheelEntry>
    /// The current lay's starts not yet due, in the wheel or the systemd manager.
    var laid: LaidStarts
    /// Expiry timers, posts in flight and waiting for a server, and what history says of them.
    var inHand = CallsInHand()
    /// The carer's sample call (`daysomectl try`), while it is on screen or on its way.
    var sample: SampleCall?
    /// The last sample's key instant: each sample gets its own, also two tries in one second.
    var lastSampleAt: Instant?
    /// When the lay is extended, so that enough stays pending while away.
    var topUpTimer: TimerID?
    /// Bringing the day back a few seconds after a call (`settings.bringDayBack`).
    var bringBackTimer: (id: TimerID, at: Instant)?
    /// The notification server instance now answering (`serverIdentified`); ids are stamped with it.
    public internal(set) var serverIdentity: String?
    var serverIdentifiedOnce = false
    /// Set for the start-up decision only: what was called before the restart cannot be proven
    /// (the state directory refuses writes and nothing of this boot kept a copy), so nothing
    /// owed from before the restart is called: it may have been called already (never twice).
    var callsBeforeRestartUnproven = false
    /// Starts that fell due before a return was read, held until the loop caught up (`.caughtUp`).
    var owed: [OwedStart] = []
    /// When she was last seen back at the day: the last `foreground` write read, or a write no
    /// daemon read that a restart replays as a return (DaemonMachine+CaughtUp.swift).
    var returnSeenAt: Instant?
    /// Server instances another took the name over from while they still ran: their cards stay on
    /// their screens and their ids are closed there, until they leave the bus.
    var takenOver: Set<String> = []
    /// Of those, the ones that let the name go with no other server taking it (a dunst that
    /// exits gives up its name before its connection closes): each went away, no takeover.
    var wentAway: Set<String> = []

    /// Creates a machine from what the state directory remembered.
    public init(config: MachineConfig, persisted: PersistedState, now: Instant) {
        self.config = config
        self.persisted = persisted
        self.wheel = TimerWheel(now: now.seconds)
        self.laid = LaidStarts(store: config.startsLiveIn)
    }

    /// The number of the current lay, if one is in force.
    public var currentLay: LayRecord? { self.persisted.lay }

    /// The pending starts of the current lay, in order, with their wheel handles.
    public var pendingStarts: [(id: TimerID, start: Start)] { Array(self.laid.wheelStarts) }

    /// Every start laid and not yet due, whichever backend holds it.
    public var laidStarts: [Start] {
        switch self.config.startsLiveIn {
        case .wheel: return self.laid.wheelStarts.map(\.start)
        case .systemd: return self.laid.managerStarts
        }
    }

    /// Moves on whenever the laid starts change (a lay, a top-up, a start due, a clear).
    public var laidGeneration: UInt64 { self.laid.generation }

    /// How many starts are laid and not yet due: `laidStarts.count` without the copy.
    public var laidCount: Int {
        switch self.config.startsLiveIn {
        case .wheel: return self.laid.wheelStarts.count
        case .systemd: return self.laid.managerStarts.count
        }
    }

    /// The next start laid: `laidStarts.first` without the copy.
    public var nextLaid: Start? {
        switch self.config.startsLiveIn {
        case .wheel: return self.laid.wheelStarts.first?.start
        case .systemd: return self.laid.managerStarts.first
        }
    }

    /// Calls `body` with each laid start in order, and its wheel slot where the wheel holds it.
    public func forEachLaid(_ body: (Start, TimerID?) -> Void) {
        switch self.config.startsLiveIn {
        case .wheel: for entry in self.laid.wheelStarts { body(entry.start, entry.id) }
        case .systemd: for start in self.laid.managerStarts { body(start, nil) }
        }
    }

    /// Whether notifications would be laid if the display went away now.
    public var notifyInOtherApps: Bool { self.household?.load.household.settings.notifyInOtherApps ?? false }

    /// Whether a call due now could reach her, as status says it: the household turns calls on,
    /// one is in force, and a notification server owns the name (`serverPresent`). A hung or
    /// paused server still can: it shows the call when it wakes, or holds it as she asked.
    public func canDeliver(serverPresent: Bool) -> Bool {
        self.notifyInOtherApps && serverPresent && self.household != nil
    }

    /// Why nothing is laid, in a carer's words, or nil while a lay is in force.
    public var notLaidReason: String? {
        guard self.persisted.lay == nil else { return nil }
        guard let household = self.household else {
            return self.householdError.map { error in
                let what = error.field == nil ? "the household file " : "the household file's "
                return what + error.fieldAndMessage + ", and no earlier household is kept"
            }
                ?? "no household has been read yet"
        }
        if !household.load.household.settings.notifyInOtherApps {
            return "notifications in other apps are off (a carer turns on settings.notifyInOtherApps)"
        }
        if self.display == .foreground { return "the day display is in front: nothing is called over it" }
        if self.persisted.layCounter >= PersistedState.largestLayNumber { return Self.noLayNumberLeft }
        return nil
    }

    /// Why nothing is laid once the lay counter is at its largest.
    static let noLayNumberLeft =
        "no lay number is left: the lay counter in lay.json is at its largest (2^53), and a number is never used twice"

    /// Raises the lay counter to at least `number` (a lay the systemd manager still holds, found at
    /// start-up after a state file was lost): lay numbers are never used twice.
    public mutating func raiseLayCounter(atLeast number: UInt64) {
        // A number past the largest (a manager's timer named by hand) leaves no number to use.
        self.persisted.layCounter = max(self.persisted.layCounter, min(number, PersistedState.largestLayNumber))
    }

    // MARK: Start-up

    /// The first decision after a (re)start: the display state and household are already read.
    /// `display` is the one to act on, the lock already applied. Only `startAfterRestart`, the
    /// daemon's entry, calls it: it keeps the file's own word in `screenLock` first.
    /// - Parameter lastGood: the copy of the last household used, kept in the state directory: in
    ///   force when the file cannot be used now (rule 9 across restarts and reboots).
    /// - Parameter stateProven: false when the state read may be behind what was called before
    ///   the restart (the state directory refuses writes after a reboot): starts owed from before
    ///   are dropped and recorded rather than risk a second call.
    mutating func start(
        display: DisplayState, household: Result<LoadedHousehold, HouseholdFileError>,
        lastGood: LoadedHousehold? = nil, stateProven: Bool = true, now: Instant
    ) -> [MachineAction] {
        self.callsBeforeRestartUnproven = !stateProven
        defer { self.callsBeforeRestartUnproven = false }
        // Nothing more queued: the lockers were asked before the file was read.
        return self.started(display: display, household: household, lastGood: lastGood, now: now)
            + self.handle(.caughtUp, now: now)
    }

    /// The start-up decision, before the starts it held are judged (`start`, `startAfterRestart`).
    mutating func started(
        display: DisplayState, household: Result<LoadedHousehold, HouseholdFileError>,
        lastGood: LoadedHousehold?, now: Instant
    ) -> [MachineAction] {
        let before = self.persisted
        self.decidedStart = true
        self.inHand.fromBeforeRestart = Set(self.persisted.delivered.map(\.key))
        let actions = self.startUp(display: display, household: household, lastGood: lastGood, now: now)
        return Self.persistingOnce(actions, changed: self.persisted != before)
    }

    private mutating func startUp(
        display: DisplayState, household: Result<LoadedHousehold, HouseholdFileError>,
        lastGood: LoadedHousehold?, now: Instant
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
            // What fell due while no daemon ran is held and named (`judgeOwed`), never lost unsaid.
            actions += self.owedSinceTheLastStart(lastGood: lastGood, now: now)
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
            // Rule 2 before the lay is replaced: what fell due while the daemon was down is
            // delivered within the grace window or dropped and recorded.
            actions += self.owedSinceTheLastStart(lastGood: lastGood, now: now)
            let reason =
                self.household == nil
                ? "the household file cannot be used and no earlier household is kept"
                : "household changed while the daemon was stopped"
            actions += self.clearLay(now: now, reason: reason)
            actions += self.newLay(now: now, reason: "display away at start-up")
        }
        return actions + self.finish(now: now)
    }

    /// The remembered lay's starts whose minute passed while no daemon ran, as the lay's own
    /// household planned them (the kept copy, when it is that household), handed to rule 2.
    private mutating func owedSinceTheLastStart(lastGood: LoadedHousehold?, now: Instant) -> [MachineAction] {
        guard let lay = self.persisted.lay else { return [] }
        let planned = lastGood?.digest == lay.householdDigest ? lastGood : self.household
        guard let plannedFrom = planned?.load.household, plannedFrom.settings.notifyInOtherApps else { return [] }
        let owed = Planner.plan(plannedFrom, after: lay.handledThrough, through: max(now, lay.handledThrough))
        return self.handleDue(owed.starts, now: now, lay: lay.number)
    }

    // MARK: Events

    /// Handles one event at `now`.
    public mutating func handle(_ event: MachineEvent, now: Instant) -> [MachineAction] {
        // The display's word enters only where the daemon gives it: with its file's time and
        // the lock applied (`displayRead`, `startAfterRestart`).
        if case .display = event { preconditionFailure("the display's word enters through displayRead") }
        return self.handled(event, now: now)
    }

    /// Any event, the display's word included: for `displayRead` and `startAfterRestart`.
    mutating func handled(_ event: MachineEvent, now: Instant) -> [MachineAction] {
        let before = self.persisted
        let actions = self.dispatch(event, now: now)
        return Self.persistingOnce(actions, changed: self.persisted != before)
    }

    /// A fire of lay N from the systemd manager: what is due is delivered, and the reply says
    /// what happened (`daysomectl fire` prints it, and the manager's journal keeps it).
    public mutating func fire(lay: UInt64, now: Instant) -> (reply: FireReply, actions: [MachineAction]) {
        let before = Set(self.persisted.delivered.map(\.key))
        let actions = self.handle(.fired(lay: lay), now: now)
        let shown = self.persisted.delivered
        if shown.contains(where: { !before.contains($0.key) }) { return (.delivered, actions) }
        // With exact alarms the daemon called at the minute on its own deadline, before this fire.
        if self.currentLay?.number == lay, self.display == .away,
            let call = shown.last(where: { $0.key.lay == lay && $0.key.at <= now })
        {
            return (.alreadyDelivered(at: call.key.at), actions)
        }
        return (.nothingDue(lay: lay), actions)
    }

    /// One write of the state file per step, only when the state changed, placed where the
    /// step first needed it and never after a post or a manager timer that depends on it (a
    /// crash in between loses one call rather than repeating it, and never reuses a lay number).
    /// The daemon writes the machine's state as it is after the step, so one write is enough.
    static func persistingOnce(_ actions: [MachineAction], changed: Bool) -> [MachineAction] {
        // Every card is closed before the state that forgets it is written: the write waits on
        // fsync, and a daemon killed meanwhile would leave a card up that no later daemon knows
        // of. Nothing waits on a close, so the closes go first.
        let closes = actions.filter(\.isClose)
        let others = actions.filter { !$0.isClose }
        var rest = others.filter { $0 != .persist }
        guard changed else { return closes + rest }
        let dependsOnIt: (MachineAction) -> Bool = {
            switch $0 {
            case .post, .replace, .layTimers, .publish: return true
            default: return false
            }
        }
        // The first `.persist` has no other before it: its index is the same in `rest`.
        let wanted = others.firstIndex(of: .persist)
        let needed = rest.firstIndex(where: dependsOnIt)
        let at = [wanted, needed].compactMap { $0 }.min() ?? rest.count
        rest.insert(.persist, at: at)
        return closes + rest
    }

    private mutating func dispatch(_ event: MachineEvent, now: Instant) -> [MachineAction] {
        var actions: [MachineAction] = []
        switch event {
        case .display(.foreground):
            self.display = .foreground
            // What fell due before this return was read is held until the loop caught up.
            actions += self.settleDue(now: now)
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
        case .trySample:
            actions += self.trySample(now: now)
        case .posted(let key, let id, let answeredBy, let held, let bellHeld):
            actions += self.posted(key, id: id, answeredBy: answeredBy, held: held, bellHeld: bellHeld, now: now)
        case .postFailed(let key, let reason, let failure):
            actions += self.postFailed(key, reason: reason, failure: failure, now: now)
        case .serverClosed(let id, let reason, let server):
            actions += self.serverClosed(id, reason: reason, server: server, now: now)
        case .fired(let lay):
            guard let current = self.persisted.lay, current.number == lay, self.display == .away else {
                actions.append(
                    .log(.info, "A timer of lay \(lay) fired, but that lay is not current: nothing delivered"))
                break
            }
            let due = self.laid.takeDue(now: now)
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
            actions.append(self.layTimers(lay: lay.number, starts: self.laid.managerStarts, replacing: true))
        case .clicked(let id, let server):
            actions += self.clicked(id, server: server, now: now)
        case .earlierServers(let running, let gone):
            actions += self.earlierServers(running: running, gone: gone, now: now)
        case .serverIdentified(let identity):
            actions += self.identifyServer(identity, now: now)
        case .serverOwnerChanged(let previous?, true?, let answering):
            // The one before still runs: a takeover (or, where no server answers now, it let the
            // name go on its way out), not a restart. Its cards stay, and are closed there.
            actions += self.serverTakenOver(previous, answering: answering, now: now)
            actions += self.identifyServer(answering, now: now)
        case .serverOwnerChanged(_, _, let answering):
            // Gone, or nobody could tell: ids restart with the server, none of ours can be closed
            // any more, and the new server shows none of them. A post still in flight is kept:
            // its reply comes from whoever answers now (a server the post itself started, on a
            // first boot), and so is a card the instance answering now gave already. One that got
            // no answer in time went with the server that left: it may be posted again. Then the
            // instance that answers now is identified: calls waiting for it go out.
            actions += self.serverRestarted(now: now, answering: answering)
            actions += self.identifyServer(answering, now: now)
        case .serverInstanceGone(let instance):
            actions += self.serverInstanceGone(instance, now: now)
        case .caughtUp:
            actions += self.judgeOwed(now: now)
        case .doNotDisturbWentOff:
            actions += self.showWhatDoNotDisturbHid(now: now)
        }
        return actions + self.finish(now: now)
    }

    /// The manager's timers for a lay, under the household's exact-alarms setting.
    func layTimers(lay: UInt64, starts: [Start], replacing: Bool) -> MachineAction {
        .layTimers(
            lay: lay, starts: starts, replacing: replacing,
            exactAlarms: self.household?.load.household.settings.exactAlarms ?? true)
    }

    /// The actions every step ends with: the queue published and the timer armed.
    private mutating func finish(now: Instant) -> [MachineAction] {
        let exact = self.household?.load.household.settings.exactAlarms ?? true
        self.laid.armManagerDeadline(
            wanted: exact && self.display == .away && self.persisted.lay != nil, now: now, wheel: &self.wheel)
        return [.publish, .arm(self.wheel.nextDeadline.map { Instant(seconds: $0) })]
    }
}
