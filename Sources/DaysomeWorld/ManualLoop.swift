// A loop on one virtual time, in the manner of NIO's EmbeddedEventLoop: nothing happens until a
// test says so. `advance(by:)` moves both clocks, firing each timer at its time in order;
// `runPending()` runs one quiet iteration's worth of ready work; `jumpRealtime(to:)` sets the
// virtual realtime clock and fires the clock-jump watches, never touching the host's clock;
// `changed(path:_:)`, `overflowed(path:)` and `exited(pidfd:)` are the kernel's inotify (an
// event, or its queue overflowing) and pidfd. Where sd-event would fire an `on` timer or defer
// source in every iteration, this one fires it once per arming (the daemon arms them oneshot).
// As with sd-event, a source lives while its owner keeps it: the loop holds each weakly, so one
// dropped is gone (a long run never piles up old ones).

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

    public func setTime(_ usec: UInt64) throws(Errno) {
        guard case .timer(let clock, _) = self.kind else { throw Errno(rawValue: EDOM) }
        self.kind = .timer(clock: clock, at: usec)
        self.firedTime = nil
    }

    public func setEnabled(_ enablement: Enablement) throws(Errno) {
        guard !self.isCancelled else { throw Errno(rawValue: ESTALE) }
        self.enablement = enablement
        if enablement != .off { self.firedTime = nil }
        // A deferred source is ready whenever it is enabled.
        if case .deferred = self.kind, enablement != .off, self.pending.isEmpty { self.pending = [.fire] }
    }

    public func setPriority(_ priority: Int64) throws(Errno) {
        self.priority = priority
    }

    public func cancel() {
        self.isCancelled = true
        self.enablement = .off
        self.pending = []
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
    /// Every source added and still kept by its owner.
    private var sources: [WeakSource] = []
    private var added = 0
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
        self.sources.append(WeakSource(source: source))
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
        while let next = self.ready().first {
            rounds += 1
            precondition(rounds < 100_000, "ManualLoop: sources kept each other ready for 100000 dispatches")
            let trigger = next.pending.isEmpty ? ManualSource.Trigger.fire : next.pending.removeFirst()
            if next.enablement == .oneshot { try? next.setEnabled(.off) }
            if case .timer = next.kind { next.firedTime = next.time }
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
        while !self.stalled, let (source, offset) = self.nextTimer(), self.monotonic + offset <= target {
            _ = source
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
            if case .clockJump = source.kind { source.pending.append(.fire) }
        }
        self.runPending()
    }

    /// The kernel's inotify: `event` under `path` reaches the watches whose mask it matches.
    public func changed(path: String, _ event: InotifyEvent) {
        for source in self.live where source.enablement != .off {
            if case .inotify(let watched, let mask) = source.kind, watched == path, !mask.isDisjoint(with: event.mask) {
                source.pending.append(.inotify(event))
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
                source.pending.append(.inotify(InotifyEvent(mask: .queueOverflow, name: nil)))
            }
        }
        self.runPending()
    }

    /// The process behind `pidfd` exited, or `fd` became ready for `events`.
    public func ready(fd: Int32, _ events: IOEvents = .readable) {
        for source in self.live where source.enablement != .off {
            if case .io(let watched, let wanted) = source.kind, watched == fd, !wanted.isDisjoint(with: events) {
                source.pending.append(.io(events))
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

    /// The sources neither dropped nor cancelled; the others are forgotten.
    private var live: [ManualSource] {
        self.sources.removeAll { $0.source == nil || $0.source?.isCancelled == true }
        return self.sources.compactMap(\.source)
    }

    private func move(by usec: UInt64) {
        self.monotonic += usec
        self.realtime += usec
    }

    private func ready() -> [ManualSource] {
        return self.live.filter { source in
            guard source.enablement != .off else { return false }
            if case .timer(let clock, let at) = source.kind {
                return at <= self.now(clock) && source.firedTime != at
            }
            return !source.pending.isEmpty
        }.sorted { ($0.priority, $0.order) < ($1.priority, $1.order) }
    }

    /// The enabled timer due soonest, and how far (in microseconds) the clocks must move to reach it.
    private func nextTimer() -> (ManualSource, UInt64)? {
        self.live.compactMap { source -> (ManualSource, UInt64)? in
            guard source.enablement != .off, case .timer(let clock, let at) = source.kind,
                source.firedTime != at
            else { return nil }
            let now = self.now(clock)
            return (source, at > now ? at - now : 0)
        }.min { ($0.1, $0.0.priority, $0.0.order) < ($1.1, $1.0.priority, $1.0.order) }
    }
}

/// A source as the loop holds it: its owner keeps it alive.
private struct WeakSource {
    weak var source: ManualSource?
}

@available(*, unavailable)
extension ManualLoop: Sendable {}
