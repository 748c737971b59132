// The daemon on a virtual clock: the real state machine and its timer wheel, driven the way the
// daemon's Manager drives them, with a virtual notification server that answers every post at
// once (unless told to hold its replies). `replay` and the state-machine tests both run on it.
// It enters the machine only where the daemon does: its start through `startAfterRestart`, the
// display's word through `displayRead`, as if the display wrote its file at that virtual instant.
// Nothing here touches a real timer, bus, file or clock: a week runs in milliseconds.

/// Drives a `DaemonMachine` as the daemon's loop does: time is a parameter that only moves when
/// told, the timer fires at each of the wheel's deadlines on the way, and every action is kept.
public struct VirtualDaemon: Sendable {
    public var machine: DaemonMachine
    /// The virtual clock.
    public private(set) var now: Instant
    /// The household the machine was started with.
    public let household: LoadedHousehold
    /// Every action the machine returned, in the order the daemon would have run them.
    public private(set) var actions: [MachineAction] = []
    /// While true, the virtual server keeps its replies (ids) back until `reply` is called.
    public var holdReplies = false
    /// Posts whose reply is held back, oldest first.
    public var heldPosts: [DeliveryKey] = []
    private var nextId: UInt32 = 1
    /// Notification ids shown right now, as the server would list them.
    public private(set) var shown: Set<UInt32> = []
    /// Every post, with the virtual time it happened.
    public private(set) var posts: [(at: Instant, key: DeliveryKey, start: Start)] = []

    /// Starts a machine on `household` at `now` with the display as given, as the daemon starts:
    /// its file last written at `displayWrittenAt` (nil: not since the state was written, so no
    /// return made while no daemon ran is replayed).
    public init(
        _ household: Household, now: Instant, display: DisplayState, persisted: PersistedState = PersistedState(),
        config: MachineConfig = MachineConfig(), stateProven: Bool = true, displayWrittenAt: Instant? = nil
    ) {
        self.now = now
        self.household = LoadedHousehold(
            load: HouseholdLoad(household: household, problems: []), digest: 1, loadedAt: now)
        self.machine = DaemonMachine(config: config, persisted: persisted, now: now)
        self.apply(
            self.machine.startAfterRestart(
                file: display, fileWrittenAt: displayWrittenAt, household: .success(self.household), lastGood: nil,
                stateProven: stateProven, now: now))
    }

    /// Runs actions as the Manager would, against the virtual server: posts are answered (or held),
    /// a replacement takes the older call's place, a close takes a call away. Persisting,
    /// publishing and arming real timers have no virtual counterpart; they are only kept.
    mutating func apply(_ actions: [MachineAction]) {
        self.actions += actions
        for action in actions {
            switch action {
            case .post(let key, let start):
                self.posts.append((self.now, key, start))
                if self.holdReplies {
                    self.heldPosts.append(key)
                } else {
                    self.reply(key)
                }
            case .replace(let key, let start, let replacing):
                // One card at a time: the newer call takes the older's place on the virtual server.
                self.shown.remove(replacing)
                self.apply([.post(key, start)])
            case .close(_, let id, _):
                self.shown.remove(id)
            default:
                break
            }
        }
        // Events come here one at a time: nothing more has queued once one is handled.
        if actions.contains(.judgeWhenCaughtUp) { self.send(.caughtUp) }
    }

    /// The virtual server answers a post with a fresh id.
    public mutating func reply(_ key: DeliveryKey) {
        let id = self.nextId
        self.nextId += 1
        self.shown.insert(id)
        self.apply(self.machine.handle(.posted(key, notificationId: id), now: self.now))
    }

    /// Tells the machine something at the current virtual time. The display's word comes as the
    /// daemon reads it: its file written now.
    public mutating func send(_ event: MachineEvent) {
        if case .display(let said) = event {
            self.apply(self.machine.displayRead(said, writtenAt: self.now, now: self.now))
        } else {
            self.apply(self.machine.handle(event, now: self.now))
        }
    }

    /// A carer's `try` at the current virtual time, with what the shell can tell; returns its words.
    public mutating func tryCall(_ facts: TryFacts) -> String {
        let (reply, actions) = self.machine.tryCall(facts, now: self.now)
        self.apply(actions)
        return reply
    }

    /// Fires the timer at the wheel's next deadline if it falls at or before `limit` (before it,
    /// when `inclusive` is false), moving the clock there but never backwards.
    /// - Returns: Whether the timer fired.
    public mutating func fireNextTimer(notAfter limit: Instant, inclusive: Bool = true) -> Bool {
        guard let next = self.machine.wheel.nextDeadline, inclusive ? next <= limit.seconds : next < limit.seconds
        else { return false }
        self.now = Instant(seconds: max(next, self.now.seconds))
        self.send(.timer)
        return true
    }

    /// Lets virtual time pass to `target`, firing the timer at every deadline on the way.
    public mutating func run(until target: Instant) {
        while self.fireNextTimer(notAfter: target) {}
        self.now = target
    }

    /// Jumps time without the timer firing on the way (a suspend, a stopped daemon, a clock step).
    public mutating func jump(to target: Instant) {
        self.now = target
    }

    /// What the daemon would have written to its history, in order.
    public var history: [HistoryRecord] {
        self.actions.compactMap { if case .record(let record) = $0 { return record } else { return nil } }
    }

    /// The history lines of one kind.
    public func events(_ event: HistoryRecord.Event) -> [HistoryRecord] { self.history.filter { $0.event == event } }
}
