// The time machine: the daemon's real state machine and timer wheel, run on the virtual daemon
// the state-machine tests use (VirtualDaemon.swift). Between `from` and `to` the timer "fires"
// at each of the wheel's deadlines, the display changes at the instants a script gives (a change
// at the same instant as a deadline comes first: rule 1), and the virtual notification server
// answers every post at once with a fresh id. A week replays in milliseconds.

/// One change of the display, as a replay script gives it.
public struct DisplayChange: Sendable, Equatable {
    public let at: Instant
    public let state: DisplayState

    public init(at: Instant, state: DisplayState) {
        self.at = at
        self.state = state
    }
}

/// A stretch of the replay during which the display stayed in one state.
public struct DisplayPeriod: Sendable, Equatable {
    public let from: Instant
    public let to: Instant
    public let state: DisplayState

    public init(from: Instant, to: Instant, state: DisplayState) {
        self.from = from
        self.to = to
        self.state = state
    }
}

/// Something the daemon did during a replay, at its virtual instant.
public struct ReplayEvent: Sendable, Equatable {
    /// The history's vocabulary: laid, cleared, delivered, expired, withdrawn, dropped.
    public typealias Kind = HistoryRecord.Event

    /// The virtual instant it happened.
    public let time: Instant
    public let kind: Kind
    /// The lay it belongs to.
    public let lay: UInt64
    /// The start it concerns (not for laid and cleared).
    public let at: Instant?
    public let itemIds: [String]
    /// The start with its title, heading, body and expiry, where the event concerns one.
    public let start: Start?
    /// For `laid`: how many starts the new lay holds.
    public let count: Int?
    public let reason: String?

    public init(
        time: Instant, kind: Kind, lay: UInt64, at: Instant? = nil, itemIds: [String] = [], start: Start? = nil,
        count: Int? = nil, reason: String? = nil
    ) {
        self.time = time
        self.kind = kind
        self.lay = lay
        self.at = at
        self.itemIds = itemIds
        self.start = start
        self.count = count
        self.reason = reason
    }
}

/// One lay the daemon made during a replay, with every start it held (top-ups included).
public struct ReplayLay: Sendable, Equatable {
    public let number: UInt64
    /// When it was made.
    public let madeAt: Instant
    /// Every start the lay held at one time or another, in order.
    public internal(set) var starts: [Start]
}

/// What a replay produced.
public struct ReplayResult: Sendable {
    /// The household's zone name, as given.
    public let timeZone: String
    public let from: Instant
    public let to: Instant
    /// Everything the daemon did, in order.
    public let events: [ReplayEvent]
    /// The display's state from `from` to `to`, contiguous and in order.
    public let display: [DisplayPeriod]
    /// The lays made, in order.
    public let lays: [ReplayLay]
    /// What the daemon would have written to the journal, in order.
    public let log: [(priority: LogPriority, message: String)]
    /// Notifications still shown at `to`.
    public let shownAtEnd: Int

    /// The events of one kind.
    public func events(_ kind: ReplayEvent.Kind) -> [ReplayEvent] { self.events.filter { $0.kind == kind } }
}

/// Runs the daemon's state machine on a virtual clock.
public struct Replay: Sendable {
    public let household: Household
    public let from: Instant
    public let to: Instant
    /// The display's changes; away throughout unless it says otherwise.
    public let script: [DisplayChange]
    public let config: MachineConfig

    /// A replay of `household` from `from` to `to` (both included). The display is away at `from`
    /// unless the script's latest change at or before `from` says otherwise.
    public init(
        household: Household, from: Instant, to: Instant, display script: [DisplayChange] = [],
        config: MachineConfig = MachineConfig()
    ) {
        self.household = household
        self.from = from
        self.to = max(from, to)
        self.script = script
        self.config = config
    }

    /// The display's state at `from` and the changes after it, in order (a stable sort keeps
    /// the script's order for changes at one instant).
    var timeline: (initial: DisplayState, changes: [DisplayChange]) {
        let ordered = self.script.enumerated().sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }
            .map(\.element)
        let initial = ordered.last { $0.at <= self.from }?.state ?? .away
        return (initial, ordered.filter { $0.at > self.from && $0.at <= self.to })
    }

    /// Runs the replay.
    public func run() -> ReplayResult {
        let (initial, changes) = self.timeline
        var daemon = VirtualDaemon(self.household, now: self.from, display: initial, config: self.config)
        var book = ReplayBook()
        book.note(daemon)
        for change in changes {
            // Rule 1: a display change at the same instant as a deadline is handled first.
            while daemon.fireNextTimer(notAfter: change.at, inclusive: false) { book.note(daemon) }
            daemon.jump(to: max(daemon.now, change.at))
            daemon.send(.display(change.state))
            book.note(daemon)
        }
        while daemon.fireNextTimer(notAfter: self.to) { book.note(daemon) }
        var periods: [DisplayPeriod] = []
        var state = initial
        var since = self.from
        for change in changes where change.state != state {
            if change.at > since { periods.append(DisplayPeriod(from: since, to: change.at, state: state)) }
            state = change.state
            since = change.at
        }
        periods.append(DisplayPeriod(from: since, to: self.to, state: state))
        return ReplayResult(
            timeZone: self.household.zone.name, from: self.from, to: self.to, events: book.events, display: periods,
            lays: book.lays, log: book.log, shownAtEnd: daemon.shown.count)
    }
}

/// What a replay keeps beyond the virtual daemon's own record: each lay's starts (top-ups
/// included), its events with the start they concern, and the journal.
private struct ReplayBook {
    var events: [ReplayEvent] = []
    var lays: [ReplayLay] = []
    var log: [(priority: LogPriority, message: String)] = []
    /// Every start any lay held, by lay and instant: what later events refer to.
    var starts: [DeliveryKey: Start] = [:]
    /// How many of the daemon's actions have been read.
    var read = 0

    /// Reads what the daemon did in its last step.
    mutating func note(_ daemon: VirtualDaemon) {
        self.rememberPending(daemon.machine)
        let actions = daemon.actions[self.read...]
        self.read = daemon.actions.count
        for action in actions {
            switch action {
            case .post(let key, let start), .replace(let key, let start, _): self.starts[key] = start
            default: break
            }
        }
        for action in actions {
            switch action {
            case .record(let record): self.record(record)
            case .log(let priority, let message): self.log.append((priority, message))
            default: break
            }
        }
    }

    /// Notes the current lay's pending starts, so that events can name what they concern.
    private mutating func rememberPending(_ machine: DaemonMachine) {
        guard let lay = machine.currentLay else { return }
        if self.lays.last?.number != lay.number {
            self.lays.append(ReplayLay(number: lay.number, madeAt: lay.from, starts: []))
        }
        var added = false
        for entry in machine.pendingStarts {
            let key = DeliveryKey(lay: lay.number, at: entry.start.at)
            if self.starts.updateValue(entry.start, forKey: key) == nil {
                self.lays[self.lays.count - 1].starts.append(entry.start)
                added = true
            }
        }
        if added { self.lays[self.lays.count - 1].starts.sort { $0.at < $1.at } }
    }

    private mutating func record(_ record: HistoryRecord) {
        let start = record.at.flatMap { self.starts[DeliveryKey(lay: record.lay, at: $0)] }
        var count: Int?
        if record.event == .laid {
            count = self.lays.last { $0.number == record.lay }?.starts.count ?? 0
        }
        self.events.append(
            ReplayEvent(
                time: record.time, kind: record.event, lay: record.lay, at: record.at, itemIds: record.itemIds,
                start: start, count: count, reason: record.reason))
    }
}
