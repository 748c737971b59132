// Bus: one sd_bus client connection, to the user bus, the system bus or an address, attached to an
// EventLoop for asynchronous calls and signal matches. Leaves out serving objects (vtables),
// credentials, and sd_bus_call_method and friends, which are C variadics (see BusMessage).

import CSystemd
import Glibc

private typealias ReplyHandler = (Result<BusMessage, BusError>) -> Void
private typealias MessageHandler = (BusMessage) -> Void

private let replyTrampoline: sd_bus_message_handler_t = { message, userdata, _ in
    Bus.deliverReply(BusMessage(borrowing: message!), to: userdata!)
    return 0
}

private let matchTrampoline: sd_bus_message_handler_t = { message, userdata, _ in
    Unmanaged<HandlerBox<MessageHandler>>.fromOpaque(userdata!).takeUnretainedValue().handler(
        BusMessage(borrowing: message!)
    )
    return 0
}

/// A connection to a D-Bus bus.
///
/// Not `Sendable`: use it on one thread, the one running its loop once `attach(to:)` was called.
public final class Bus {
    let pointer: OpaquePointer

    private init(owning pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        // Writes what is queued, closes, and drops our reference; pending calls and matches end.
        sd_bus_flush_close_unref(self.pointer)
    }

    /// Connects to the user's session bus ($DBUS_SESSION_BUS_ADDRESS, else
    /// $XDG_RUNTIME_DIR/bus).
    ///
    /// The corresponding C function is `sd_bus_open_user`.
    public static func openUser() throws(Errno) -> Bus {
        var pointer: OpaquePointer?
        try check(sd_bus_open_user(&pointer))
        return Bus(owning: pointer!)
    }

    /// Connects to the system bus as sd-bus finds it: `$DBUS_SYSTEM_BUS_ADDRESS`, else
    /// /run/dbus/system_bus_socket.
    ///
    /// The corresponding C function is `sd_bus_open_system`.
    public static func openSystem() throws(Errno) -> Bus {
        var pointer: OpaquePointer?
        try check(sd_bus_open_system(&pointer))
        return Bus(owning: pointer!)
    }

    /// Connects to the bus at a D-Bus address such as "unix:path=/run/user/0/bus" and says Hello.
    ///
    /// The corresponding C functions are `sd_bus_new`, `sd_bus_set_address`,
    /// `sd_bus_set_bus_client` and `sd_bus_start`.
    /// - Parameter busClient: false for a peer-to-peer socket with no bus daemon behind it, such
    ///   as the user manager's private socket: no Hello is sent.
    public static func open(address: String, busClient: Bool = true) throws(Errno) -> Bus {
        var pointer: OpaquePointer?
        try check(sd_bus_new(&pointer))
        let bus = Bus(owning: pointer!)
        try check(sd_bus_set_address(bus.pointer, address))
        try check(sd_bus_set_bus_client(bus.pointer, busClient ? 1 : 0))
        try check(sd_bus_start(bus.pointer))
        return bus
    }

    /// Lets `loop` dispatch this connection's replies and signals.
    ///
    /// sd-bus also adds an exit source: when the loop exits (`exit(code:)` or a signal), the
    /// connection is flushed and closed, so a bus is not reused after its loop's `run()` returns.
    ///
    /// The corresponding C function is `sd_bus_attach_event`.
    public func attach(to loop: EventLoop) throws(Errno) {
        try check(sd_bus_attach_event(self.pointer, loop.pointer, 0))
    }

    /// The unique name the bus gave this connection, e.g. ":1.42".
    ///
    /// The corresponding C function is `sd_bus_get_unique_name`.
    public var uniqueName: String {
        get throws(Errno) {
            var name: UnsafePointer<CChar>?
            try check(sd_bus_get_unique_name(self.pointer, &name))
            return String(cString: name!)
        }
    }

    /// The id of the bus this connection is on (the bus daemon's own, new at each start of it),
    /// as 32 hexadecimal digits: with a unique name, it tells one server instance from another.
    ///
    /// The corresponding C function is `sd_bus_get_bus_id`.
    public var busId: String {
        get throws(Errno) {
            var id = sd_id128_t()
            try check(sd_bus_get_bus_id(self.pointer, &id))
            return withUnsafeBytes(of: id.bytes) { bytes in
                bytes.map { byte in
                    let digits = Array("0123456789abcdef")
                    return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
                }.joined()
            }
        }
    }

    /// Whether the connection is open (or still being set up).
    ///
    /// The corresponding C function is `sd_bus_is_open`.
    public var isOpen: Bool {
        sd_bus_is_open(self.pointer) > 0
    }

    /// Creates an empty method call; append its arguments, then `call` or `callAsync` it.
    ///
    /// The corresponding C function is `sd_bus_message_new_method_call`.
    public func newMethodCall(
        destination: String?,
        path: String,
        interface: String?,
        member: String
    ) throws(Errno) -> BusMessage {
        var message: OpaquePointer?
        try check(sd_bus_message_new_method_call(self.pointer, &message, destination, path, interface, member))
        return BusMessage(owning: message!)
    }

    /// Sends a method call and blocks until its reply, dispatching nothing else meanwhile.
    ///
    /// - Parameter usec: the timeout in microseconds; 0 means sd-bus's default (25 s).
    /// - Throws: the error reply, or a local failure such as a timeout as a `BusError`.
    ///
    /// The corresponding C function is `sd_bus_call`.
    public func call(_ message: BusMessage, timeout usec: UInt64 = 0) throws(BusError) -> BusMessage {
        var error = sd_bus_error()
        defer { sd_bus_error_free(&error) }
        var reply: OpaquePointer?
        let result = sd_bus_call(self.pointer, message.pointer, usec, &error, &reply)
        if result < 0 {
            if sd_bus_error_is_set(&error) == 0 {
                sd_bus_error_set_errno(&error, result)
            }
            throw BusError(copying: &error)
        }
        return BusMessage(owning: reply!)
    }

    /// A timeout that never ends: sd-bus keeps the call until its reply or an error comes (the
    /// bus daemon sends one when the callee leaves without answering).
    public static let noTimeout = UInt64.max

    /// Sends a method call; the loop calls `handler` once with the reply or the error.
    ///
    /// - Parameter usec: the timeout in microseconds; 0 means sd-bus's default (25 s), and
    ///   `Bus.noTimeout` none at all.
    /// - Returns: the pending call. Dropping it cancels the call (`handler` is then never called);
    ///   `setFloating(true)` on it lets the call finish without keeping it.
    ///
    /// The corresponding C function is `sd_bus_call_async`.
    public func callAsync(
        _ message: BusMessage,
        timeout usec: UInt64 = 0,
        _ handler: @escaping (Result<BusMessage, BusError>) -> Void
    ) throws(Errno) -> BusSlot {
        try self.addSlot(handler as ReplyHandler) { slot, userdata in
            sd_bus_call_async(self.pointer, slot, message.pointer, replyTrampoline, userdata, usec)
        }
    }

    /// Calls `handler` when this connection drops (the bus went away: `systemctl --user restart
    /// dbus`, a system bus restart): sd-bus's own `org.freedesktop.DBus.Local.Disconnected`.
    ///
    /// - Returns: the match; keep it as long as the handler should be called.
    ///
    /// The corresponding C function is `sd_bus_add_match`.
    public func onDisconnected(_ handler: @escaping () -> Void) throws(Errno) -> BusSlot {
        try self.addMatch(
            "type='signal',sender='org.freedesktop.DBus.Local',path='/org/freedesktop/DBus/Local',"
                + "interface='org.freedesktop.DBus.Local',member='Disconnected'"
        ) { _ in handler() }
    }

    /// Calls `handler` for every message matching `rule`, e.g.
    /// "type='signal',interface='org.freedesktop.Notifications',member='NotificationClosed'".
    ///
    /// Installing the match is a synchronous AddMatch call to the bus.
    ///
    /// - Returns: the match; dropping it removes the match.
    ///
    /// The corresponding C function is `sd_bus_add_match`.
    public func addMatch(_ rule: String, _ handler: @escaping (BusMessage) -> Void) throws(Errno) -> BusSlot {
        try self.addSlot(handler as MessageHandler) { slot, userdata in
            sd_bus_add_match(self.pointer, slot, rule, matchTrampoline, userdata)
        }
    }

    /// Handles every message already received or waiting on the socket (their handlers run now),
    /// without waiting for more: what the manager said before a question is heard before the
    /// question is answered. Not from inside one of this connection's own handlers.
    ///
    /// The corresponding C function is `sd_bus_process`.
    public func processWaiting() throws(Errno) {
        while try check(sd_bus_process(self.pointer, nil)) > 0 {}
    }

    /// Writes every queued outgoing message, blocking until done.
    ///
    /// The corresponding C function is `sd_bus_flush`.
    public func flush() throws(Errno) {
        try check(sd_bus_flush(self.pointer))
    }

    /// Closes the connection; later calls fail with errno ENOTCONN ("System.Error.ENOTCONN").
    ///
    /// The corresponding C function is `sd_bus_close`.
    public func close() {
        sd_bus_close(self.pointer)
    }

    /// Hands `handler` to the C side as the userdata of a new slot, released with the slot.
    private func addSlot<H>(
        _ handler: H,
        _ create: (UnsafeMutablePointer<OpaquePointer?>, UnsafeMutableRawPointer) -> Int32
    ) throws(Errno) -> BusSlot {
        let userdata = Unmanaged.passRetained(HandlerBox(handler)).toOpaque()
        var slot: OpaquePointer?
        let result = create(&slot, userdata)
        if result < 0 {
            Unmanaged<AnyObject>.fromOpaque(userdata).release()
            throw Errno(rawValue: -result)
        }
        sd_bus_slot_set_destroy_callback(slot, releaseBox)
        return BusSlot(owning: slot!)
    }

    /// Turns a reply (a method return or an error, possibly synthesized by sd-bus for a timeout)
    /// into a `Result` for the handler in `userdata`.
    fileprivate static func deliverReply(_ reply: BusMessage, to userdata: UnsafeMutableRawPointer) {
        let handler = Unmanaged<HandlerBox<ReplyHandler>>.fromOpaque(userdata).takeUnretainedValue().handler
        if let error = reply.error {
            handler(.failure(error))
        } else {
            handler(.success(reply))
        }
    }
}

@available(*, unavailable)
extension Bus: Sendable {}
