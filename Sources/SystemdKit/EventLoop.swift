// EventLoop: one sd_event, run on one thread, with sources added as Swift closures (a box passed
// as userdata, released by the source's destroy callback; the C callbacks are one-line
// trampolines). Leaves out signal sources other than the clean SIGTERM/SIGINT exit, child sources
// (see addPidfdExit), exit sources, priorities and sd_event_run stepping; its one post source is
// releaseMemoryAfterWork's.

import CSystemd
import Glibc

/// epoll event bits for `EventLoop.addIO(fd:events:description:_:)`.
public struct IOEvents: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32

    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    /// EPOLLIN: data to read, or a pidfd whose process exited.
    public static var readable: IOEvents { IOEvents(rawValue: EPOLLIN.rawValue) }
    /// EPOLLOUT: writing will not block.
    public static var writable: IOEvents { IOEvents(rawValue: EPOLLOUT.rawValue) }
    /// EPOLLPRI: urgent data.
    public static var priority: IOEvents { IOEvents(rawValue: EPOLLPRI.rawValue) }
    /// EPOLLERR: an error condition (always reported).
    public static var error: IOEvents { IOEvents(rawValue: EPOLLERR.rawValue) }
    /// EPOLLHUP: the peer hung up (always reported).
    public static var hangUp: IOEvents { IOEvents(rawValue: EPOLLHUP.rawValue) }
}

/// Holds a Swift closure for the C side; retained once as userdata, released by `releaseBox`.
final class HandlerBox<Handler> {
    let handler: Handler
    init(_ handler: Handler) {
        self.handler = handler
    }
}

/// The destroy callback of every source and slot: drops the box retained as its userdata.
let releaseBox: @convention(c) (UnsafeMutableRawPointer?) -> Void = { userdata in
    Unmanaged<AnyObject>.fromOpaque(userdata!).release()
}

private typealias SourceHandler = (EventSource) -> Void
private typealias IOHandler = (EventSource, IOEvents) -> Void
private typealias InotifyHandler = (EventSource, InotifyEvent) -> Void

private func box<H>(_ userdata: UnsafeMutableRawPointer?, as _: H.Type) -> H {
    Unmanaged<HandlerBox<H>>.fromOpaque(userdata!).takeUnretainedValue().handler
}

private let timeTrampoline: sd_event_time_handler_t = { source, _, userdata in
    box(userdata, as: SourceHandler.self)(EventSource(borrowing: source!))
    return 0
}

private let deferTrampoline: sd_event_handler_t = { source, userdata in
    box(userdata, as: SourceHandler.self)(EventSource(borrowing: source!))
    return 0
}

private let postTrampoline: sd_event_handler_t = { source, userdata in
    box(userdata, as: SourceHandler.self)(EventSource(borrowing: source!))
    return 0
}

private let ioTrampoline: sd_event_io_handler_t = { source, _, revents, userdata in
    box(userdata, as: IOHandler.self)(EventSource(borrowing: source!), IOEvents(rawValue: revents))
    return 0
}

private let inotifyTrampoline: sd_event_inotify_handler_t = { source, event, userdata in
    box(userdata, as: InotifyHandler.self)(EventSource(borrowing: source!), InotifyEvent(event!))
    return 0
}

/// An sd-event loop.
///
/// Not `Sendable`: create it, add sources and run it on one thread; every handler runs on that
/// thread, inside `run()`. A plain non-`Sendable` class rather than `@MainActor`, so a test or a
/// daemon can own a loop on whatever thread it runs on.
public final class EventLoop {
    let pointer: OpaquePointer
    /// Sources the loop itself keeps (releaseMemoryAfterWork's).
    private var kept: [EventSource] = []

    /// Creates a new event loop.
    ///
    /// The corresponding C function is `sd_event_new`.
    public init() throws(Errno) {
        var pointer: OpaquePointer?
        try check(sd_event_new(&pointer))
        self.pointer = pointer!
    }

    deinit {
        sd_event_unref(self.pointer)
    }

    /// Runs the loop until `exit(code:)` is called or a SIGTERM/SIGINT ends it.
    ///
    /// - Returns: the exit code passed to `exit(code:)` (0 for a signal exit).
    /// - Throws: the error of a failed iteration.
    ///
    /// The corresponding C function is `sd_event_loop`.
    public func run() throws(Errno) -> Int32 {
        try check(sd_event_loop(self.pointer))
    }

    /// Asks the loop to return from `run()` with `code` once the current iteration ends.
    ///
    /// The corresponding C function is `sd_event_exit`.
    public func exit(code: Int32) throws(Errno) {
        try check(sd_event_exit(self.pointer, code))
    }

    /// Blocks SIGTERM and SIGINT in the calling thread and makes either end `run()` with code 0.
    ///
    /// The corresponding C function is `sd_event_set_signal_exit`.
    public func enableSignalExit() throws(Errno) {
        try check(sd_event_set_signal_exit(self.pointer, 1))
    }

    /// Turns on (or off) sending `WATCHDOG=1` to the service manager at half the watchdog interval.
    ///
    /// - Returns: whether the watchdog is now active; `false` when the manager asked for none.
    ///
    /// The corresponding C function is `sd_event_set_watchdog`.
    @discardableResult
    public func setWatchdog(_ on: Bool) throws(Errno) -> Bool {
        try check(sd_event_set_watchdog(self.pointer, on ? 1 : 0)) > 0
    }

    /// The time of the current loop iteration on `clock`, in microseconds (the current time when
    /// the loop has not run yet).
    ///
    /// - Parameter clock: `CLOCK_REALTIME`, `CLOCK_MONOTONIC` or `CLOCK_BOOTTIME`.
    ///
    /// The corresponding C function is `sd_event_now`.
    public func now(_ clock: clockid_t) -> UInt64 {
        var usec: UInt64 = 0
        let result = sd_event_now(self.pointer, clock, &usec)
        precondition(result >= 0, "sd_event_now failed for clock \(clock): \(Errno(rawValue: -result))")
        return usec
    }

    /// Hands `handler` to the C side, creates the source and gives it its description.
    private func addSource<H>(
        _ handler: H,
        description: String?,
        _ create: (UnsafeMutablePointer<OpaquePointer?>, UnsafeMutableRawPointer) -> Int32
    ) throws(Errno) -> EventSource {
        let userdata = Unmanaged.passRetained(HandlerBox(handler)).toOpaque()
        var pointer: OpaquePointer?
        let result = create(&pointer, userdata)
        if result < 0 {
            Unmanaged<AnyObject>.fromOpaque(userdata).release()
            throw Errno(rawValue: -result)
        }
        // From here on the source owns the box: it is released when the source is freed.
        sd_event_source_set_destroy_callback(pointer, releaseBox)
        let source = EventSource(owning: pointer!)
        if let description {
            try source.setDescription(description)
        }
        return source
    }

    /// Adds a timer that fires once at an absolute time of `clock`.
    ///
    /// - Parameters:
    ///   - clock: `CLOCK_REALTIME`, `CLOCK_MONOTONIC` or `CLOCK_BOOTTIME` (or an `_ALARM` one).
    ///   - usec: the time to fire, in microseconds of `clock`.
    ///   - accuracy: how late it may fire, in microseconds (1 ms unless told; sd-event turns 0
    ///     into its own default of 250 ms).
    ///   - description: a name for sd-event's debug logs.
    ///   - handler: called on the loop's thread; re-arm in place with `setTime` and
    ///     `setEnabled(.oneshot)` on the source it receives.
    /// - Returns: the source; keep it, or the timer is freed at once.
    ///
    /// The corresponding C function is `sd_event_add_time`.
    public func addTimer(
        clock: clockid_t,
        at usec: UInt64,
        accuracy: UInt64 = 1_000,
        description: String? = nil,
        _ handler: @escaping (EventSource) -> Void
    ) throws(Errno) -> EventSource {
        try self.addSource(handler as SourceHandler, description: description) { source, userdata in
            sd_event_add_time(self.pointer, source, clock, usec, accuracy, timeTrampoline, userdata)
        }
    }

    /// Adds a timer that fires once, `usec` microseconds from now on `clock`.
    ///
    /// The corresponding C function is `sd_event_add_time_relative`.
    public func addTimer(
        clock: clockid_t,
        after usec: UInt64,
        accuracy: UInt64 = 1_000,
        description: String? = nil,
        _ handler: @escaping (EventSource) -> Void
    ) throws(Errno) -> EventSource {
        try self.addSource(handler as SourceHandler, description: description) { source, userdata in
            sd_event_add_time_relative(self.pointer, source, clock, usec, accuracy, timeTrampoline, userdata)
        }
    }

    /// Returns what an idle daemon need not keep resident at the end of the loop iterations that
    /// did work: the read-only pages of the program and its libraries are unmapped and the heap's
    /// free pages trimmed (`daysome_release_idle_memory`). Idle, the daemon then keeps resident
    /// only what it touches while idle, not the code it ran once (start-up, a lay, a publish); the
    /// page cache keeps the pages, so the next work maps back what it runs with minor faults.
    ///
    /// At most once per `interval` microseconds: an iteration sooner than that after the last
    /// release arms a timer for the rest of the interval instead, so a burst of iterations pays
    /// once and its last one is covered too. No wakeup while nothing happens; at most one,
    /// `interval` after a burst. The loop's first iteration releases what start-up touched.
    ///
    /// The corresponding C functions are `sd_event_add_post`, `sd_event_add_defer` and
    /// `sd_event_add_time`.
    public func releaseMemoryAfterWork(atMostEvery interval: UInt64) throws(Errno) {
        final class Releases {
            var last: UInt64?
            var byTimer = false
        }
        let releases = Releases()
        let release: (EventSource) -> Void = { [unowned self] _ in
            daysome_release_idle_memory()
            releases.last = self.now(CLOCK_MONOTONIC)
            releases.byTimer = true
        }
        let timer = try self.addTimer(
            clock: CLOCK_MONOTONIC, at: 0, accuracy: interval / 4, description: "release-memory", release)
        try timer.setEnabled(.off)
        // A post source runs after every iteration that dispatched another source: work was done.
        let post = try self.addSource(
            { [unowned self] (_: EventSource) in
                // The iteration of the timer's own release did no work of its own to release.
                if releases.byTimer {
                    releases.byTimer = false
                    return
                }
                let now = self.now(CLOCK_MONOTONIC)
                if let last = releases.last, now - last < interval {
                    try? timer.setTime(last + interval)
                    try? timer.setEnabled(.oneshot)
                    return
                }
                daysome_release_idle_memory()
                releases.last = now
            } as SourceHandler, description: "release-memory-after-work"
        ) { source, userdata in
            sd_event_add_post(self.pointer, source, postTrampoline, userdata)
        }
        // Last among the iteration's post sources (SD_EVENT_PRIORITY_IDLE): a publish made in
        // one of them is work this release covers.
        try post.setPriority(100)
        // The first iteration dispatches at least this, so start-up's pages are released then.
        let first = try self.addDefer(description: "release-memory-at-start") { _ in }
        self.kept += [timer, post, first]
    }

    /// Adds a watch on a file descriptor, called whenever one of `events` is ready.
    ///
    /// The source does not own `fd`: keep it open while the source lives, and drain it in the
    /// handler (the watch is level-triggered).
    ///
    /// The corresponding C function is `sd_event_add_io`.
    public func addIO(
        fd: Int32,
        events: IOEvents,
        description: String? = nil,
        _ handler: @escaping (EventSource, IOEvents) -> Void
    ) throws(Errno) -> EventSource {
        try self.addSource(handler as IOHandler, description: description) { source, userdata in
            sd_event_add_io(self.pointer, source, fd, events.rawValue, ioTrampoline, userdata)
        }
    }

    /// Adds an inotify watch on `path`; sd-event shares one inotify fd between watches.
    ///
    /// Watch the directory with `[.closeWrite, .movedTo, .delete]` to see a file replaced by
    /// rename, as editors do.
    ///
    /// The corresponding C function is `sd_event_add_inotify`.
    public func addInotify(
        path: String,
        mask: InotifyMask,
        description: String? = nil,
        _ handler: @escaping (EventSource, InotifyEvent) -> Void
    ) throws(Errno) -> EventSource {
        try self.addSource(handler as InotifyHandler, description: description) { source, userdata in
            sd_event_add_inotify(self.pointer, source, path, mask.rawValue, inotifyTrampoline, userdata)
        }
    }

    /// Adds a one-shot watch that fires when the process behind `pidfd` exits, child or not.
    ///
    /// An I/O source on the pidfd (it turns readable at exit), armed `.oneshot`. It does not reap
    /// the process: a child of ours stays a zombie until someone calls `waitpid`. It is used
    /// instead of `sd_event_add_child_pidfd`, which needs SIGCHLD blocked in every thread
    /// (`EBUSY` otherwise) and calls `waitid()` on the pid, so for a process that is not our
    /// child the whole `run()` fails with `ECHILD`. The source does not own the pidfd.
    ///
    /// The corresponding C function is `sd_event_add_io`.
    public func addPidfdExit(
        _ pidfd: Int32,
        description: String? = nil,
        _ handler: @escaping (EventSource) -> Void
    ) throws(Errno) -> EventSource {
        let source = try self.addIO(fd: pidfd, events: .readable, description: description) { source, _ in
            handler(source)
        }
        try source.setEnabled(.oneshot)
        return source
    }

    /// Adds a source that runs once, on the next loop iteration; coalesce bursts with it.
    ///
    /// The source is `.oneshot`: `setEnabled(.oneshot)` arms it again.
    ///
    /// The corresponding C function is `sd_event_add_defer`.
    public func addDefer(
        description: String? = nil,
        _ handler: @escaping (EventSource) -> Void
    ) throws(Errno) -> EventSource {
        try self.addSource(handler as SourceHandler, description: description) { source, userdata in
            sd_event_add_defer(self.pointer, source, deferTrampoline, userdata)
        }
    }
}

@available(*, unavailable)
extension EventLoop: Sendable {}
