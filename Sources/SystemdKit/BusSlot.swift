// BusSlot: one sd_bus_slot, the handle of a pending asynchronous call or of a match. Dropping it
// (or `cancel()`) cancels the call or removes the match; `setFloating(true)` hands it to the bus
// instead. No object vtables, no filters.

import CSystemd

/// The lifetime of an asynchronous call or a signal match on a `Bus`.
///
/// Not `Sendable`: use it on the thread that runs the bus's loop.
public final class BusSlot {
    private var pointer: OpaquePointer?

    /// Wraps a slot whose reference the caller hands over.
    init(owning pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        if let pointer = self.pointer {
            sd_bus_slot_unref(pointer)
        }
    }

    /// Whether `cancel()` was called on this object.
    public var isCancelled: Bool {
        self.pointer == nil
    }

    /// Lets the bus own the slot: the call or match stays after this object goes, until the reply
    /// comes or the bus is freed.
    ///
    /// The corresponding C function is `sd_bus_slot_set_floating`.
    public func setFloating(_ floating: Bool) throws(Errno) {
        guard let pointer = self.pointer else {
            preconditionFailure("BusSlot used after cancel()")
        }
        try check(sd_bus_slot_set_floating(pointer, floating ? 1 : 0))
    }

    /// Cancels the pending call (its handler is never called) or removes the match, unless the
    /// slot was made floating. Calling it again does nothing.
    ///
    /// The corresponding C function is `sd_bus_slot_unref`.
    public func cancel() {
        if let pointer = self.pointer {
            sd_bus_slot_unref(pointer)
            self.pointer = nil
        }
    }
}

@available(*, unavailable)
extension BusSlot: Sendable {}
