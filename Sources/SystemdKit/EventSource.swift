// EventSource: one sd_event_source, as an EventLoop's add* methods return it and as every handler
// receives it. It re-arms in place (set_time + set_enabled ONESHOT) and cancels; it deliberately
// leaves out priorities, exit/post sources and the per-kind getters nobody here needs.

import CSystemd
import Glibc

/// Whether a source dispatches: never, every time it is ready, or once and then never again.
public enum Enablement: Sendable, Hashable {
    /// The source is disabled (`SD_EVENT_OFF`).
    case off
    /// The source dispatches every time it is ready (`SD_EVENT_ON`).
    case on
    /// The source dispatches once, then turns itself `off` (`SD_EVENT_ONESHOT`).
    case oneshot

    var rawValue: Int32 {
        switch self {
        case .off: return 0
        case .on: return 1
        case .oneshot: return -1
        }
    }
}

/// An event source of an `EventLoop`: a timer, an I/O watch, an inotify watch or a defer.
///
/// The object holds one reference on the C source. Dropping the last `EventSource` that the
/// `add*` method returned frees the source (unless it was made floating), so an owner keeps it in a
/// property, typically `EventSource?` where `nil` means "disarmed". Handlers receive another
/// `EventSource` object for the same C source; it is not `===` to the stored one but controls the
/// same source.
///
/// Not `Sendable`: use it only on the thread that runs its loop.
public final class EventSource {
    private var pointer: OpaquePointer?

    /// Wraps a source whose reference the caller hands over.
    init(owning pointer: OpaquePointer) {
        self.pointer = pointer
    }

    /// Wraps a source the caller does not own, taking a reference of its own.
    init(borrowing pointer: OpaquePointer) {
        self.pointer = sd_event_source_ref(pointer)
    }

    deinit {
        // A plain unref: a floating source lives on in its loop, a non-floating one is freed here.
        if let pointer = self.pointer {
            sd_event_source_unref(pointer)
        }
    }

    private var live: OpaquePointer {
        guard let pointer = self.pointer else {
            preconditionFailure("EventSource used after cancel()")
        }
        return pointer
    }

    /// Whether `cancel()` was called on this object.
    public var isCancelled: Bool {
        self.pointer == nil
    }

    /// Sets the absolute time at which a timer source fires, in microseconds of its clock.
    ///
    /// Re-arming in place is `setTime(_:)` followed by `setEnabled(.oneshot)`.
    ///
    /// The corresponding C function is `sd_event_source_set_time`.
    public func setTime(_ usec: UInt64) throws(Errno) {
        try check(sd_event_source_set_time(self.live, usec))
    }

    /// Sets a timer source to fire `usec` microseconds from now on its clock.
    ///
    /// The corresponding C function is `sd_event_source_set_time_relative`.
    public func setTimeRelative(_ usec: UInt64) throws(Errno) {
        try check(sd_event_source_set_time_relative(self.live, usec))
    }

    /// The absolute time at which a timer source fires, in microseconds of its clock.
    ///
    /// The corresponding C function is `sd_event_source_get_time`.
    public var time: UInt64 {
        get throws(Errno) {
            var usec: UInt64 = 0
            try check(sd_event_source_get_time(self.live, &usec))
            return usec
        }
    }

    /// Sets how late a timer source may fire, in microseconds, so wake-ups can be coalesced.
    ///
    /// The corresponding C function is `sd_event_source_set_time_accuracy`.
    public func setAccuracy(_ usec: UInt64) throws(Errno) {
        try check(sd_event_source_set_time_accuracy(self.live, usec))
    }

    /// Sets the dispatch priority: lower runs first when several sources are ready at once.
    ///
    /// The corresponding C function is `sd_event_source_set_priority`.
    public func setPriority(_ priority: Int64) throws(Errno) {
        try check(sd_event_source_set_priority(self.live, priority))
    }

    /// Enables, disables, or arms the source for one dispatch.
    ///
    /// The corresponding C function is `sd_event_source_set_enabled`.
    public func setEnabled(_ enablement: Enablement) throws(Errno) {
        try check(sd_event_source_set_enabled(self.live, enablement.rawValue))
    }

    /// Whether the source is off, on, or armed for one dispatch.
    ///
    /// The corresponding C function is `sd_event_source_get_enabled`.
    public var enabled: Enablement {
        get throws(Errno) {
            var raw: Int32 = 0
            try check(sd_event_source_get_enabled(self.live, &raw))
            switch raw {
            case 0: return .off
            case 1: return .on
            default: return .oneshot
            }
        }
    }

    /// Names the source in sd-event's debug logs.
    ///
    /// The corresponding C function is `sd_event_source_set_description`.
    public func setDescription(_ text: String) throws(Errno) {
        try check(sd_event_source_set_description(self.live, text))
    }

    /// The name given with `setDescription(_:)`, if any.
    ///
    /// The corresponding C function is `sd_event_source_get_description`.
    public var sourceDescription: String? {
        get throws(Errno) {
            var text: UnsafePointer<CChar>?
            let result = sd_event_source_get_description(self.live, &text)
            if result == -ENXIO {
                return nil
            }
            try check(result)
            return text.map { String(cString: $0) }
        }
    }

    /// Makes the loop own the source, so it lives on after every `EventSource` object is gone.
    ///
    /// A floating source is freed with its loop. Use it for fire-and-forget sources only, and do
    /// not capture the `EventLoop` strongly in its handler: the loop would then keep itself alive.
    ///
    /// The corresponding C function is `sd_event_source_set_floating`.
    public func setFloating(_ floating: Bool) throws(Errno) {
        try check(sd_event_source_set_floating(self.live, floating ? 1 : 0))
    }

    /// Disables the source and drops this object's reference to it.
    ///
    /// The source never dispatches again, even if other references keep it allocated. Calling any
    /// other method on this object afterwards is a programming error; calling `cancel()` again
    /// does nothing.
    ///
    /// The corresponding C function is `sd_event_source_disable_unref`.
    public func cancel() {
        if let pointer = self.pointer {
            sd_event_source_disable_unref(pointer)
            self.pointer = nil
        }
    }
}

@available(*, unavailable)
extension EventSource: Sendable {}
