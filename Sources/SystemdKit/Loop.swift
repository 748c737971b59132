// The loop seam: what the daemon asks of an event loop (the time on each clock, timers, deferred
// work, inotify, fd readiness, pidfd exits and the clock-jump watch), so that its shell can run
// on sd-event in production (`EventLoop`) and on one virtual time in tests (`ManualLoop`). The
// protocol's names differ from `EventLoop`'s own `add…` calls so that every existing call keeps
// meaning exactly what it meant: production is unchanged.

import Glibc

/// A source added to a loop: re-armed, reprioritised, switched or cancelled in place.
public protocol LoopSource: AnyObject {
    /// For a timer: the absolute time it fires, in microseconds of its clock.
    func setTime(_ usec: UInt64) throws(Errno)
    func setEnabled(_ enablement: Enablement) throws(Errno)
    /// Lower runs first when several sources are ready in one iteration.
    func setPriority(_ priority: Int64) throws(Errno)
    func cancel()
}

extension EventSource: LoopSource {}

/// What the daemon's shell needs of an event loop.
public protocol Loop: AnyObject {
    /// The time of the current iteration on `clock`, in microseconds.
    func now(_ clock: clockid_t) -> UInt64
    /// A timer at `usec` on `clock`, enabled for one dispatch.
    func timer(
        clock: clockid_t, at usec: UInt64, accuracy: UInt64, description: String, _ handler: @escaping () -> Void
    ) throws(Errno) -> any LoopSource
    /// Work for the next iteration, enabled for one dispatch.
    func deferred(description: String, _ handler: @escaping () -> Void) throws(Errno) -> any LoopSource
    /// Changes under `path` that match `mask`.
    func inotify(
        path: String, mask: InotifyMask, description: String, _ handler: @escaping (InotifyEvent) -> Void
    ) throws(Errno) -> any LoopSource
    /// `fd` ready for `events`.
    func io(
        fd: Int32, events: IOEvents, description: String, _ handler: @escaping (IOEvents) -> Void
    ) throws(Errno)
        -> any LoopSource
    /// The process behind `pidfd` exited (once).
    func pidfdExit(
        _ pidfd: Int32, description: String, _ handler: @escaping () -> Void
    ) throws(Errno)
        -> any LoopSource
    /// The realtime clock was set (stepped, or resumed from suspend). Keep what is returned: the
    /// watch ends with it.
    func clockJumps(description: String, _ handler: @escaping () -> Void) throws(Errno) -> AnyObject
    /// Ends the loop's run with `code` once the current iteration is over.
    func exit(code: Int32) throws(Errno)
}

extension Loop {
    /// A timer `usec` from the current iteration's time on `clock`, enabled for one dispatch.
    public func timer(
        clock: clockid_t, after usec: UInt64, accuracy: UInt64 = 1_000, description: String,
        _ handler: @escaping () -> Void
    ) throws(Errno) -> any LoopSource {
        try self.timer(
            clock: clock, at: self.now(clock) + usec, accuracy: accuracy, description: description, handler)
    }

    /// Re-arms `source`, a timer on `clock`, `usec` from the current iteration's time.
    public func rearm(_ source: any LoopSource, clock: clockid_t, after usec: UInt64) throws(Errno) {
        try source.setTime(self.now(clock) + usec)
    }

    /// A timer at `usec` on `clock`, to the millisecond.
    public func timer(
        clock: clockid_t, at usec: UInt64, description: String, _ handler: @escaping () -> Void
    ) throws(Errno) -> any LoopSource {
        try self.timer(clock: clock, at: usec, accuracy: 1_000, description: description, handler)
    }
}

extension EventLoop: Loop {
    public func timer(
        clock: clockid_t, at usec: UInt64, accuracy: UInt64, description: String, _ handler: @escaping () -> Void
    ) throws(Errno) -> any LoopSource {
        try self.addTimer(clock: clock, at: usec, accuracy: accuracy, description: description) { _ in handler() }
    }

    public func deferred(description: String, _ handler: @escaping () -> Void) throws(Errno) -> any LoopSource {
        let source = try self.addDefer(description: description) { _ in handler() }
        try source.setEnabled(.oneshot)
        return source
    }

    public func inotify(
        path: String, mask: InotifyMask, description: String, _ handler: @escaping (InotifyEvent) -> Void
    ) throws(Errno) -> any LoopSource {
        try self.addInotify(path: path, mask: mask, description: description) { _, event in handler(event) }
    }

    public func io(
        fd: Int32, events: IOEvents, description: String, _ handler: @escaping (IOEvents) -> Void
    )
        throws(Errno) -> any LoopSource
    {
        try self.addIO(fd: fd, events: events, description: description) { _, ready in handler(ready) }
    }

    public func pidfdExit(
        _ pidfd: Int32, description: String, _ handler: @escaping () -> Void
    ) throws(Errno)
        -> any LoopSource
    {
        try self.addPidfdExit(pidfd, description: description) { _ in handler() }
    }

    public func clockJumps(description: String, _ handler: @escaping () -> Void) throws(Errno) -> AnyObject {
        try ClockJumpWatch(loop: self, description: description, handler)
    }
}
