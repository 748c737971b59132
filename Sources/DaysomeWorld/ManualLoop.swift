// A loop on one virtual time, in the manner of NIO's EmbeddedEventLoop: nothing happens until a
// test says so. `advance(by:)` moves both clocks, firing each timer at its time in order;
// `runPending()` runs one quiet iteration's worth of ready work; `jumpRealtime(to:)` sets the
// virtual realtime clock and fires the clock-jump watches, never touching the host's clock;
// `changed(path:_:)`, `overflowed(path:)` and `exited(pidfd:)` are the kernel's inotify (an
// event, or its queue overflowing) and pidfd. Where sd-event would fire an `on` timer or defer
// source in every iteration, this one fires it once per arming (the daemon arms them oneshot).
// As with sd-event, a source lives while its owner keeps it: the loop does not own its sources,
// and one dropped takes itself out of the loop as it goes (a long run never piles up old ones,
// and no weak reference is made or read per source and dispatch). Like sd-event's priority queues, the loop
// keeps its armed timers in a heap by time and what is ready in a heap by priority, so a dispatch
// costs a logarithm of the sources, not a sort of them all: each change to a source (a new time,
// enabled or not, a new priority, a trigger) queues it anew, and an entry older than the source's
// last change is dropped when it comes up.

import Glibc
import SystemdKit

/// A source of a `ManualLoop`.
public final class ManualSource: LoopSource {
    enum Kind {
        case timer(clock: clockid_t, at: UInt64)
        case deferred
        case inotify(path: String, mask: InotifyMask)
        case io(fd: Int32, events: IOEvents)
        case clockJump
    }

    var kind: Kind
    public let description: String
    public private(set) var enablement: Enablement
    public private(set) var priority: Int64 = 0
    public private(set) var isCancelled = false
    /// The order sources were added in: ties run first-added first, as sd-event's do.
    let order: Int
    /// What the next dispatch hands the handler, once triggered.
    var pending: [Trigger] = []
    /// The time a timer last fired at: armed again only by a new time or a new enabling.
    var firedTime: UInt64?
    let handler: (Trigger) -> Void
    /// The loop that holds it, told of each change.
    weak var loop: ManualLoop?
    /// Moves on at each change: the loop's queue entries made before it are stale.
    var generation = 0

    enum Trigger {
        case fire
        case inotify(InotifyEvent)
        case io(IOEvents)
    }

    init(kind: Kind, description: String, enablement: Enablement, order: Int, handler: @escaping (Trigger) -> Void) {
        self.kind = kind
        self.description = description
        self.enablement = enablement
        self.order = order
        self.handler = handler
    }

    deinit {
        self.loop?.forget(order: self.order)
    }

    public func setTime(_ usec: UInt64) throws(Errno) {
        guard case .timer(let clock, _) = self.kind else { throw Errno(rawValue: EDOM) }
        self.kind = .timer(clock: clock, at: usec)
        self.firedTime = nil
        self.loop?.schedule(self)
    }

    public func setEnabled(_ enablement: Enablement) throws(Errno) {
        guard !self.isCancelled else { throw Errno(rawValue: ESTALE) }
        self.enablement = enablement
        if enablement != .off { self.firedTime = nil }
        // A deferred source is ready whenever it is enabled.
        if case .deferred = self.kind, enablement != .off, self.pending.isEmpty { self.pending = [.fire] }
        self.loop?.schedule(self)
    }

    public func setPriority(_ priority: Int64) throws(Errno) {
        self.priority = priority
        self.loop?.schedule(self)
    }

    public func cancel() {
        self.isCancelled = true
        self.enablement = .off
        self.pending = []
        self.loop?.schedule(self)
    }

    /// When a timer fires, on its clock.
    public var time: UInt64? {
        if case .timer(_, let at) = self.kind { return at }
        return nil
    }
}

/// An event loop whose time moves only when told.
public final class ManualLoop: Loop {
    public private(set) var realtime: UInt64
    public private(set) var monotonic: UInt64
    /// Every source added and still kept by its owner, by the order it was added in.
    private var sources: [Int: HeldSource] = [:]
    /// How many sources may be held before the dropped ones are forgotten.
    private var pruneAt = 64
    private var added = 0
    /// Armed timers on each clock, soonest first: one that falls due moves to `readyQueue`.
    private var realtimeTimers = MinHeap<Queued>(by: Queued.dueFirst)
    private var monotonicTimers = MinHeap<Queued>(by: Queued.dueFirst)
    /// Sources ready when queued (each is asked again when taken), by priority, then the order
    /// they were added in.
    private var readyQueue = MinHeap<Queued>(by: Queued.readyFirst)
    /// Handlers run so far, by source description: what a test reads back.
    public private(set) var dispatched: [String] = []
    /// The code the daemon asked its run to end with (`exit(code:)`), once it asked.
    public private(set) var exitCode: Int32?

    /// Starts at `realtime` (microseconds since the epoch) and `monotonic` (microseconds since boot).
    public init(realtime: UInt64, monotonic: UInt64 = 1_000_000_000) {
        self.realtime = realtime
        self.monotonic = monotonic
    }

    public func now(_ clock: clockid_t) -> UInt64 {
        clock == CLOCK_REALTIME ? self.realtime : self.monotonic
    }

    private func add(
        _ kind: ManualSource.Kind, _ description: String, _ enablement: Enablement,
        _ handler: @escaping (ManualSource.Trigger) -> Void
    ) -> ManualSource {
        self.added += 1
        let source = ManualSource(
            kind: kind, description: description, enablement: enablement, order: self.added, handler: handler)
        if case .deferred = kind { source.pending = [.fire] }
        if self.sources.count >= self.pruneAt {
            self.forgetGone()
            self.pruneAt = max(64, 2 * self.sources.count)
        }
        self.sources[source.order] = HeldSource(source: source)
        source.loop = self
        self.schedule(source)
        return source
    }

    public func timer(
        clock: clockid_t, at usec: UInt64, accuracy: UInt64, description: String, _ handler: @escaping () -> Void
    ) throws(Errno) -> any LoopSource {
        self.add(.timer(clock: clock, at: usec), description, .oneshot) { _ in handler() }
    }

    public func deferred(description: String, _ handler: @escaping () -> Void) throws(Errno) -> any LoopSource {
        self.add(.deferred, description, .oneshot) { _ in handler() }
    }

    public func inotify(
        path: String, mask: InotifyMask, description: String, _ handler: @escaping (InotifyEvent) -> Void
    ) throws(Errno) -> any LoopSource {
        self.add(.inotify(path: path, mask: mask), description, .on) {
            if case .inotify(let event) = $0 { handler(event) }
        }
    }

    public func io(
        fd: Int32, events: IOEvents, description: String, _ handler: @escaping (IOEvents) -> Void
    )
        throws(Errno) -> any LoopSource
    {
        self.add(.io(fd: fd, events: events), description, .on) {
            if case .io(let ready) = $0 { handler(ready) }
        }
    }

    public func pidfdExit(
        _ pidfd: Int32, description: String, _ handler: @escaping () -> Void
    ) throws(Errno)
        -> any LoopSource
    {
        self.add(.io(fd: pidfd, events: .readable), description, .oneshot) { _ in handler() }
    }

    public func clockJumps(description: String, _ handler: @escaping () -> Void) throws(Errno) -> AnyObject {
        self.add(.clockJump, description, .on) { _ in handler() }
    }

    public func exit(code: Int32) throws(Errno) {
        self.exitCode = code
    }

    // MARK: Driving it

    /// Timers due now, and sources triggered, run in priority order (then the order they were
    /// added in) until none is ready: one settled moment of the daemon.
    public func runPending() {
        guard !self.stalled else { return }
        var rounds = 0
        while let next = self.takeReady() {
            rounds += 1
            precondition(rounds < 100_000, "ManualLoop: sources kept each other ready for 100000 dispatches")
            let trigger = next.pending.isEmpty ? ManualSource.Trigger.fire : next.pending.removeFirst()
            if next.enablement == .oneshot { try? next.setEnabled(.off) }
            if case .timer = next.kind { next.firedTime = next.time }
            // Queued again if still ready (an `on` source with more triggers waiting); what the
            // handler changes of it queues it anew.
            self.schedule(next)
            self.dispatched.append(next.description)
            next.handler(trigger)
        }
    }

    /// While true the loop dispatches nothing (the daemon is stopped or starved): events and timers
    /// queue, and `resume` dispatches them in one burst, by priority, as sd-event does at SIGCONT.
    public private(set) var stalled = false

    /// Stops dispatching until `resume`.
    public func stall() {
        self.stalled = true
    }

    /// Dispatches everything that queued during the stall.
    public func resume() {
        self.stalled = false
        self.runPending()
    }

    /// Moves both clocks on by `usec`, firing every timer on the way at its own time, in order.
    public func advance(by usec: UInt64) {
        let target = self.monotonic + usec
        // Stalled, nothing fires on the way: what fell due is dispatched at `resume`.
        while !self.stalled, let offset = self.nextTimer(), self.monotonic + offset <= target {
            self.move(by: offset)
            self.runPending()
        }
        self.move(by: target - self.monotonic)
        self.runPending()
    }

    /// Sets the virtual realtime clock (monotonic time does not move) and fires each clock-jump watch.
    public func jumpRealtime(to usec: UInt64) {
        self.realtime = usec
        for source in self.live where source.enablement != .off {
            if case .clockJump = source.kind { self.trigger(source, .fire) }
        }
        self.runPending()
    }

    /// The kernel's inotify: `event` under `path` reaches the watches whose mask it matches.
    public func changed(path: String, _ event: InotifyEvent) {
        for source in self.live where source.enablement != .off {
            if case .inotify(let watched, let mask) = source.kind, watched == path, !mask.isDisjoint(with: event.mask) {
                self.trigger(source, .inotify(event))
            }
        }
        self.runPending()
    }

    /// The kernel's inotify queue of the instance watching `path` overflowed: the events it held
    /// are lost, and one nameless `IN_Q_OVERFLOW` takes their place. sd-event keeps one inotify
    /// instance per priority and hands that event to every source of the instance, whatever its
    /// mask or path; so does this loop, to every inotify source of the same priority as `path`'s.
    public func overflowed(path: String) {
        let watching = self.live.filter { source in
            if case .inotify(let watched, _) = source.kind { return watched == path }
            return false
        }
        let priorities = Set(watching.map(\.priority))
        for source in self.live where source.enablement != .off && priorities.contains(source.priority) {
            if case .inotify = source.kind {
                self.trigger(source, .inotify(InotifyEvent(mask: .queueOverflow, name: nil)))
            }
        }
        self.runPending()
    }

    /// The process behind `pidfd` exited, or `fd` became ready for `events`.
    public func ready(fd: Int32, _ events: IOEvents = .readable) {
        for source in self.live where source.enablement != .off {
            if case .io(let watched, let wanted) = source.kind, watched == fd, !wanted.isDisjoint(with: events) {
                self.trigger(source, .io(events))
            }
        }
        self.runPending()
    }

    /// The process behind `pidfd` exited.
    public func exited(pidfd: Int32) {
        self.ready(fd: pidfd, .readable)
    }

    /// Live sources: what a leak check counts.
    public var liveSources: Int { self.live.count }

    /// The sources neither dropped nor cancelled, in the order they were added; the others are
    /// forgotten.
    private var live: [ManualSource] {
        self.forgetGone()
        return self.sources.values.map(\.source).sorted { $0.order < $1.order }
    }

    private func forgetGone() {
        self.sources = self.sources.filter { !$0.value.source.isCancelled }
    }

    /// A source its owner dropped: it is gone (`ManualSource.deinit`).
    fileprivate func forget(order: Int) {
        self.sources[order] = nil
    }

    private func move(by usec: UInt64) {
        self.monotonic += usec
        self.realtime += usec
    }

    private func trigger(_ source: ManualSource, _ trigger: ManualSource.Trigger) {
        source.pending.append(trigger)
        self.schedule(source)
    }

    // MARK: The queues

    /// Whether `source` is to be dispatched now: an enabled timer due and not yet fired at its
    /// time, or another enabled source with a trigger waiting.
    private func isReady(_ source: ManualSource) -> Bool {
        guard !source.isCancelled, source.enablement != .off else { return false }
        if case .timer(let clock, let at) = source.kind {
            return at <= self.now(clock) && source.firedTime != at
        }
        return !source.pending.isEmpty
    }

    /// Queues `source` where it belongs after a change, its earlier entries gone stale: ready,
    /// armed for a time still ahead on its clock, or nowhere (off, cancelled, already fired at
    /// its time, no trigger waiting).
    func schedule(_ source: ManualSource) {
        source.generation &+= 1
        guard !source.isCancelled, source.enablement != .off else { return }
        let entry = Queued(source)
        if case .timer(let clock, let at) = source.kind {
            guard source.firedTime != at else { return }
            if at > self.now(clock) {
                if clock == CLOCK_REALTIME {
                    self.realtimeTimers.push(entry)
                    self.compact(&self.realtimeTimers)
                } else {
                    self.monotonicTimers.push(entry)
                    self.compact(&self.monotonicTimers)
                }
                return
            }
        } else if source.pending.isEmpty {
            return
        }
        self.readyQueue.push(entry)
        self.compact(&self.readyQueue)
    }

    /// Stale entries are dropped as they come up; a queue grown well past the sources held
    /// (timers moved again and again, far ahead) is rebuilt from its current entries.
    private func compact(_ queue: inout MinHeap<Queued>) {
        guard queue.count > 2 * self.sources.count + 64 else { return }
        queue.keep { self.current($0) != nil }
    }

    /// The live source `entry` was queued for, if it has not changed since.
    private func current(_ entry: Queued) -> ManualSource? {
        guard let source = self.sources[entry.order]?.source else { return nil }
        return source.generation == entry.generation ? source : nil
    }

    /// The timers of `timers` that have fallen due by `now`, moved to the ready queue.
    private func promoteDue(_ timers: inout MinHeap<Queued>, now: UInt64) {
        while let top = timers.first, top.at <= now {
            timers.popFirst()
            if self.current(top) != nil { self.readyQueue.push(top) }
        }
    }

    /// The next source to dispatch: of those ready, the first by priority, then by the order
    /// they were added in.
    private func takeReady() -> ManualSource? {
        self.promoteDue(&self.realtimeTimers, now: self.realtime)
        self.promoteDue(&self.monotonicTimers, now: self.monotonic)
        while let entry = self.readyQueue.popFirst() {
            guard let source = self.current(entry) else { continue }
            if self.isReady(source) { return source }
            // No longer due (the realtime clock was set back): armed again for its time.
            self.schedule(source)
        }
        return nil
    }

    /// How far (in microseconds) the clocks must move to reach the enabled timer due soonest.
    private func nextTimer() -> UInt64? {
        var soonest: UInt64?
        func consider(_ entry: Queued) {
            guard case .timer(let clock, let at)? = self.current(entry)?.kind else { return }
            let now = self.now(clock)
            let offset = at > now ? at - now : 0
            soonest = min(soonest ?? offset, offset)
        }
        // A timer that fell due while nothing dispatched waits in the ready queue.
        for entry in self.readyQueue.elements { consider(entry) }
        self.dropStale(&self.realtimeTimers)
        self.dropStale(&self.monotonicTimers)
        self.realtimeTimers.first.map(consider)
        self.monotonicTimers.first.map(consider)
        return soonest
    }

    private func dropStale(_ timers: inout MinHeap<Queued>) {
        while let top = timers.first, self.current(top) == nil { timers.popFirst() }
    }
}

/// A source as the loop holds it: its owner keeps it alive, and it leaves the loop in its
/// `deinit`, so the loop never holds one that is gone.
private struct HeldSource {
    unowned(unsafe) let source: ManualSource
}

/// A source as a queue holds it: by its order, with what the queue orders it by when queued.
private struct Queued {
    let order: Int
    let generation: Int
    let priority: Int64
    /// A timer's time on its clock (0 for another source).
    let at: UInt64

    init(_ source: ManualSource) {
        self.order = source.order
        self.generation = source.generation
        self.priority = source.priority
        self.at = source.time ?? 0
    }

    static func readyFirst(_ lhs: Queued, _ rhs: Queued) -> Bool {
        (lhs.priority, lhs.order) < (rhs.priority, rhs.order)
    }

    static func dueFirst(_ lhs: Queued, _ rhs: Queued) -> Bool {
        (lhs.at, lhs.order) < (rhs.at, rhs.order)
    }
}

/// A binary min-heap: `first` is the element no other comes before.
private struct MinHeap<Element> {
    private(set) var elements: [Element] = []
    private let before: (Element, Element) -> Bool

    init(by before: @escaping (Element, Element) -> Bool) {
        self.before = before
    }

    var count: Int { self.elements.count }
    var first: Element? { self.elements.first }

    mutating func push(_ element: Element) {
        self.elements.append(element)
        var child = self.elements.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard self.before(self.elements[child], self.elements[parent]) else { break }
            self.elements.swapAt(child, parent)
            child = parent
        }
    }

    @discardableResult
    mutating func popFirst() -> Element? {
        guard !self.elements.isEmpty else { return nil }
        self.elements.swapAt(0, self.elements.count - 1)
        let first = self.elements.removeLast()
        self.siftDown(from: 0)
        return first
    }

    /// Keeps only the elements `keep` accepts, in heap order again.
    mutating func keep(_ keep: (Element) -> Bool) {
        self.elements = self.elements.filter(keep)
        for index in stride(from: self.elements.count / 2 - 1, through: 0, by: -1) {
            self.siftDown(from: index)
        }
    }

    private mutating func siftDown(from start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < self.elements.count else { return }
            var first = left
            if left + 1 < self.elements.count && self.before(self.elements[left + 1], self.elements[left]) {
                first = left + 1
            }
            guard self.before(self.elements[first], self.elements[parent]) else { return }
            self.elements.swapAt(first, parent)
            parent = first
        }
    }
}

@available(*, unavailable)
extension ManualLoop: Sendable {}
