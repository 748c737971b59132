// Where the current lay's starts wait until they are due, for either backend, behind one type:
// the machine's own wheel (one wheel timer per start) or the user's systemd manager (the starts
// in order, with an optional wheel deadline at the next one's minute for exact alarms). The
// machine asks this type, never which backend it is, except where the manager needs telling.

/// The current lay's starts not yet due, in whichever store the daemon's options chose.
struct LaidStarts: Sendable {
    let store: StartStore
    /// Wheel backend: each start with its wheel timer, in order, from `wheelHead` on. The wheel
    /// answers "what is laid" only by copying and sorting every entry; this list answers it at
    /// once (a dense week is 10,080 starts, asked after every step). Starts are added later than
    /// any held and fire in order, so the list stays sorted without a sort.
    private var wheelOrder: [(id: TimerID, start: Start)] = []
    /// The first start of `wheelOrder` not yet fired.
    private var wheelHead = 0
    /// Systemd backend: the starts the manager holds and has not fired yet, in order.
    private(set) var managerStarts: [Start] = []
    /// Systemd backend with exact alarms: the wheel's deadline at the next manager start.
    private var managerDeadline: (id: TimerID, at: Instant)?

    /// Moves on whenever the starts held change: what the published queue is keyed by.
    private(set) var generation: UInt64 = 0

    init(store: StartStore) {
        self.store = store
    }

    /// Adds starts later than any held; the wheel backend puts them into the wheel at once.
    mutating func add(_ starts: [Start], wheel: inout TimerWheel<WheelEntry>) {
        self.generation &+= 1
        switch self.store {
        case .wheel:
            self.wheelOrder.reserveCapacity(self.wheelOrder.count + starts.count)
            for start in starts {
                if case .scheduled(let id) = wheel.insert(.start(start), at: start.at.seconds) {
                    self.wheelOrder.append((id, start))
                }
            }
        case .systemd:
            self.managerStarts += starts
        }
    }

    /// A wheel start fired: the wheel no longer holds it.
    mutating func fired(_ start: Start) {
        self.generation &+= 1
        if self.wheelHead < self.wheelOrder.count, self.wheelOrder[self.wheelHead].start.at == start.at {
            self.wheelHead += 1
        } else if let index = self.wheelOrder[self.wheelHead...].firstIndex(where: { $0.start.at == start.at }) {
            self.wheelOrder.remove(at: index)
        }
        // Fired starts are dropped in one move once they are half the list, so firing stays O(1).
        if self.wheelHead > 64 && self.wheelHead * 2 > self.wheelOrder.count {
            self.wheelOrder.removeFirst(self.wheelHead)
            self.wheelHead = 0
        }
    }

    /// Wheel backend: the starts laid and not yet fired, in order, with their wheel timers.
    var wheelStarts: ArraySlice<(id: TimerID, start: Start)> { self.wheelOrder[self.wheelHead...] }

    /// Systemd backend: the manager's starts whose minute has come, taken out of the list.
    mutating func takeDue(now: Instant) -> [Start] {
        self.generation &+= 1
        let due = self.managerStarts.prefix { $0.at <= now }
        self.managerStarts.removeFirst(due.count)
        return Array(due)
    }

    /// The wheel's exact-alarm deadline fired: it is no longer armed.
    mutating func deadlineFired() {
        self.managerDeadline = nil
    }

    /// Forgets every start and cancels their wheel timers; true when the manager held (or may
    /// hold) some, so that its timers must be stopped.
    mutating func removeAll(wheel: inout TimerWheel<WheelEntry>) {
        self.generation &+= 1
        for entry in self.wheelStarts { wheel.cancel(entry.id) }
        self.wheelOrder = []
        self.wheelHead = 0
        self.managerStarts = []
        if let armed = self.managerDeadline { wheel.cancel(armed.id) }
        self.managerDeadline = nil
    }

    /// The wheel was made again after a clock jump: no timer of the old one is valid. The
    /// manager's starts are kept; the wheel's are laid again by the caller if the plan holds.
    mutating func forgetWheelTimers() {
        self.generation &+= 1
        self.wheelOrder = []
        self.wheelHead = 0
        self.managerDeadline = nil
    }

    /// With exact alarms, the manager's `AccuracySec=1s` is not exact enough: sd-event fires such a
    /// timer at the machine's boot-derived offset inside the second (0.44 s on one boot, anything
    /// below 1 s on another), and `daysomectl fire` adds its own start-up. The daemon is up anyway
    /// (every call is posted by it), so its wheel also wakes at the next start's minute and calls
    /// then; the manager keeps the week across restarts and fires as the backstop, finding the
    /// start delivered. Without exact alarms the manager's minute of slack is the promise.
    mutating func armManagerDeadline(wanted: Bool, now: Instant, wheel: inout TimerWheel<WheelEntry>) {
        let at: Instant? = self.store == .systemd && wanted ? self.managerStarts.first?.at : nil
        if let armed = self.managerDeadline, armed.at == at { return }
        if let armed = self.managerDeadline { wheel.cancel(armed.id) }
        self.managerDeadline = nil
        guard let at, at > now else { return }
        if case .scheduled(let id) = wheel.insert(.managerStart, at: at.seconds) {
            self.managerDeadline = (id, at)
        }
    }
}
