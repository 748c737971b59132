// Where the current lay's starts wait until they are due, for either backend, behind one type:
// the machine's own wheel or the user's systemd manager. Either way the starts are kept here in
// order, and the wheel holds one timer at the next one's minute (for the systemd backend only
// with exact alarms): a dense week is 10,080 starts, and a timer each made laying and clearing
// it cost a wheel insert and cancel per start. The machine asks this type, never which backend
// it is, except where the manager needs telling.

/// The current lay's starts not yet due, in whichever store the daemon's options chose.
struct LaidStarts: Sendable {
    let store: StartStore
    /// Wheel backend: each start with the number the queue names its slot by, in order, from
    /// `wheelHead` on. Starts are added later than any held and fall due in order, so the list
    /// stays sorted without a sort.
    private var wheelOrder: [(id: TimerID, start: Start)] = []
    /// The first start of `wheelOrder` not yet due.
    private var wheelHead = 0
    /// Wheel backend: the wheel's timer at the first start's minute.
    private var headTimer: TimerID?
    /// The next slot number; never reused, so a handle names one start.
    private var nextSlot: UInt64 = 1
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
                self.wheelOrder.append((TimerID(rawValue: self.nextSlot), start))
                self.nextSlot += 1
            }
            if self.headTimer == nil { self.armHead(wheel: &wheel) }
        case .systemd:
            self.managerStarts += starts
        }
    }

    /// Wheel backend: the timer at the first start's minute fired. Takes out every start due by
    /// now, in order (after a resume or a stall, several at once: rule 2 decides which is
    /// called), and arms the timer at the next.
    mutating func wheelStartsDue(now: Instant, wheel: inout TimerWheel<WheelEntry>) -> [Start] {
        self.generation &+= 1
        self.headTimer = nil
        var due: [Start] = []
        while self.wheelHead < self.wheelOrder.count, self.wheelOrder[self.wheelHead].start.at <= now {
            due.append(self.wheelOrder[self.wheelHead].start)
            self.wheelHead += 1
        }
        // Due starts are dropped in one move once they are half the list, so taking stays O(1).
        if self.wheelHead > 64 && self.wheelHead * 2 > self.wheelOrder.count {
            self.wheelOrder.removeFirst(self.wheelHead)
            self.wheelHead = 0
        }
        self.armHead(wheel: &wheel)
        return due
    }

    /// Puts the wheel's one start timer at the first start's minute (a second after the wheel's
    /// time at the earliest: the wheel never holds a deadline it has passed).
    private mutating func armHead(wheel: inout TimerWheel<WheelEntry>) {
        if let armed = self.headTimer { wheel.cancel(armed) }
        self.headTimer = nil
        guard self.wheelHead < self.wheelOrder.count else { return }
        let next = self.wheelOrder[self.wheelHead].start
        if case .scheduled(let id) = wheel.insert(.start(next), at: max(next.at.seconds, wheel.now + 1)) {
            self.headTimer = id
        }
    }

    /// Wheel backend: the wheel's start timer, for the invariants.
    var wheelHeadTimer: TimerID? { self.headTimer }

    /// Wheel backend: the starts laid and not yet due, in order, with their slot numbers.
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
        if let armed = self.headTimer { wheel.cancel(armed) }
        self.headTimer = nil
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
        self.headTimer = nil
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
