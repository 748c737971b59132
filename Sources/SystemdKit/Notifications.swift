// Notifications: a typed client for a desktop notification server (org.freedesktop.Notifications,
// spec 1.2: dunst, GNOME Shell, KDE, Phosh) over a Bus. It leaves out markup escaping, icons as
// image data and server quirks (GNOME refuses CloseNotification from other connections).

import CSystemd

/// A client of the notification server on one bus connection.
///
/// Asynchronous methods need the bus attached to a running `EventLoop`. Not `Sendable`.
public final class Notifications {
    /// The server's well-known bus name.
    public static let busName = "org.freedesktop.Notifications"
    /// The server's object path.
    public static let objectPath = "/org/freedesktop/Notifications"
    /// The server's interface.
    public static let interfaceName = "org.freedesktop.Notifications"

    /// Why a notification was closed (the NotificationClosed signal's second argument).
    public struct CloseReason: RawRepresentable, Hashable, Sendable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) {
            self.rawValue = rawValue
        }
        /// 1: it expired.
        public static let expired = CloseReason(rawValue: 1)
        /// 2: the user dismissed it.
        public static let dismissed = CloseReason(rawValue: 2)
        /// 3: a CloseNotification call closed it.
        public static let closedByCall = CloseReason(rawValue: 3)
        /// 4: undefined or reserved.
        public static let undefined = CloseReason(rawValue: 4)
    }

    /// The connection the client calls on.
    public let bus: Bus

    /// Creates a client on `bus`; nothing is sent until a method is called.
    public init(bus: Bus) {
        self.bus = bus
    }

    private func newCall(_ member: String, destination: String? = nil) throws(BusError) -> BusMessage {
        do {
            return try self.bus.newMethodCall(
                destination: destination ?? Notifications.busName,
                path: Notifications.objectPath,
                interface: Notifications.interfaceName,
                member: member
            )
        } catch {
            throw BusError(error)
        }
    }

    /// Builds a Notify call: `susssasa{sv}i`.
    private func notifyMessage(
        appName: String,
        replacesID: UInt32,
        icon: String,
        summary: String,
        body: String,
        actions: [String],
        hints: [(String, BusVariant)],
        expireTimeout: Int32
    ) throws(BusError) -> BusMessage {
        let message = try self.newCall("Notify")
        do {
            try message.append(appName)
            try message.append(replacesID)
            try message.append(icon)
            try message.append(summary)
            try message.append(body)
            try message.appendStringArray(actions)
            try message.appendVariantDictionary(hints)
            try message.append(expireTimeout)
        } catch {
            throw BusError(error)
        }
        return message
    }

    /// Shows (or, with `replacesID`, replaces) a notification, asynchronously.
    ///
    /// D-Bus: `Notify(app_name s, replaces_id u, app_icon s, summary s, body s, actions as,
    /// hints a{sv}, expire_timeout i) -> u`, signature "susssasa{sv}i".
    ///
    /// - Parameters:
    ///   - actions: pairs of key and label, flattened: `["default", "Open", "snooze", "Snooze"]`.
    ///   - hints: e.g. `("urgency", .byte(1))`, `("category", .string("im"))`.
    ///   - expireTimeout: milliseconds; -1 lets the server choose, 0 never expires.
    ///   - completion: called once with the notification's id or the error: from the loop, or at
    ///     once (before `notify` returns) if the call cannot even be sent.
    ///
    /// The corresponding C function is `sd_bus_call_async`.
    public func notify(
        appName: String,
        replacesID: UInt32 = 0,
        icon: String = "",
        summary: String,
        body: String = "",
        actions: [String] = [],
        hints: [(String, BusVariant)] = [],
        expireTimeout: Int32 = -1,
        completion: @escaping (Result<UInt32, BusError>) -> Void
    ) {
        self.post(
            appName: appName, replacesID: replacesID, icon: icon, summary: summary, body: body, actions: actions,
            hints: hints, expireTimeout: expireTimeout
        ) { completion($0.map(\.id)) }
    }

    /// What a server answered to a Notify: the id, and the unique name of the connection that gave
    /// it (ids are per server instance: only that one can close it).
    public struct Answer: Sendable, Equatable {
        public let id: UInt32
        public let server: String?

        public init(id: UInt32, server: String?) {
            self.id = id
            self.server = server
        }
    }

    /// Shows (or replaces) a notification as `notify` does, asynchronously, and tells which server
    /// instance answered: the reply's sender, also when the name changed owner meanwhile.
    ///
    /// D-Bus: `Notify`, signature "susssasa{sv}i", returning "u".
    ///
    /// - Parameters:
    ///   - timeout: how long to wait for the reply, in microseconds: 0 for sd-bus's default
    ///     (25 s), `Bus.noTimeout` to keep waiting for a server that is slow or hung.
    ///   - answered: called once with the id and the server that gave it, or the error, as
    ///     `notify`'s completion is.
    ///
    /// The corresponding C function is `sd_bus_call_async`.
    public func post(
        appName: String,
        replacesID: UInt32 = 0,
        icon: String = "",
        summary: String,
        body: String = "",
        actions: [String] = [],
        hints: [(String, BusVariant)] = [],
        expireTimeout: Int32 = -1,
        timeout: UInt64 = 0,
        answered: @escaping (Result<Answer, BusError>) -> Void
    ) {
        do throws(BusError) {
            let message = try self.notifyMessage(
                appName: appName,
                replacesID: replacesID,
                icon: icon,
                summary: summary,
                body: body,
                actions: actions,
                hints: hints,
                expireTimeout: expireTimeout
            )
            self.bus.send(
                message, timeout: timeout,
                decode: { reply throws(Errno) in Answer(id: try reply.readUInt32(), server: reply.sender) },
                completion: answered)
        } catch {
            // sd-bus would not build the call (a string it cannot carry): our message, never sent.
            answered(.failure(error.asUnsent))
        }
    }

    /// Shows (or replaces) a notification and waits for its id.
    ///
    /// D-Bus: `Notify` with signature "susssasa{sv}i" returning "u"; see the asynchronous variant.
    ///
    /// The corresponding C function is `sd_bus_call`.
    public func notify(
        appName: String,
        replacesID: UInt32 = 0,
        icon: String = "",
        summary: String,
        body: String = "",
        actions: [String] = [],
        hints: [(String, BusVariant)] = [],
        expireTimeout: Int32 = -1
    ) throws(BusError) -> UInt32 {
        let message = try self.notifyMessage(
            appName: appName,
            replacesID: replacesID,
            icon: icon,
            summary: summary,
            body: body,
            actions: actions,
            hints: hints,
            expireTimeout: expireTimeout
        )
        let reply = try self.bus.call(message)
        do {
            return try reply.readUInt32()
        } catch {
            throw BusError(error)
        }
    }

    /// Closes a notification; the server then emits NotificationClosed with reason 3.
    ///
    /// D-Bus: `CloseNotification(id u)`. `completion` is called once, as for `notify`.
    ///
    /// - Parameter server: the unique name of the server instance that gave the id, where it may
    ///   no longer own the well-known name (another took it over); nil for the name's owner.
    ///
    /// The corresponding C function is `sd_bus_call_async`.
    public func close(
        id: UInt32, server: String? = nil, completion: @escaping (Result<Void, BusError>) -> Void = { _ in }
    ) {
        do throws(BusError) {
            let message = try self.newCall("CloseNotification", destination: server)
            do {
                try message.append(id)
            } catch {
                throw BusError(error)
            }
            self.bus.send(message, decode: { _ throws(Errno) in () }, completion: completion)
        } catch {
            completion(.failure(error))
        }
    }

    private func onSignal(
        _ member: String,
        _ read: @escaping (BusMessage) throws(Errno) -> Void
    ) throws(Errno) -> BusSlot {
        let rule =
            "type='signal',path='\(Notifications.objectPath)',interface='\(Notifications.interfaceName)',"
            + "member='\(member)'"
        // A malformed signal is dropped: a misbehaving server must not stop the daemon.
        return try self.bus.addMatch(rule) { message in try? read(message) }
    }

    /// Calls `handler` with the id and the reason whenever the server closes a notification.
    ///
    /// D-Bus: signal `NotificationClosed(id u, reason u)`.
    ///
    /// - Returns: the match; keep it as long as the handler should be called.
    ///
    /// The corresponding C function is `sd_bus_add_match`.
    public func onClosed(_ handler: @escaping (UInt32, CloseReason) -> Void) throws(Errno) -> BusSlot {
        try self.onClosedBy { id, reason, _ in handler(id, reason) }
    }

    /// As `onClosed`, with the unique name of the server that sent the signal: ids are per server
    /// instance, and two servers (one that took the name over from the other) may both use one.
    ///
    /// The corresponding C function is `sd_bus_add_match`.
    public func onClosedBy(_ handler: @escaping (UInt32, CloseReason, String?) -> Void) throws(Errno) -> BusSlot {
        try self.onSignal("NotificationClosed") { message throws(Errno) in
            handler(try message.readUInt32(), CloseReason(rawValue: try message.readUInt32()), message.sender)
        }
    }

    /// Calls `handler` with the id and the action key whenever the user invokes an action.
    ///
    /// D-Bus: signal `ActionInvoked(id u, action_key s)`.
    ///
    /// - Returns: the match; keep it as long as the handler should be called.
    ///
    /// The corresponding C function is `sd_bus_add_match`.
    public func onActionInvoked(_ handler: @escaping (UInt32, String) -> Void) throws(Errno) -> BusSlot {
        try self.onActionInvokedBy { id, key, _ in handler(id, key) }
    }

    /// As `onActionInvoked`, with the unique name of the server that sent the signal.
    ///
    /// The corresponding C function is `sd_bus_add_match`.
    public func onActionInvokedBy(_ handler: @escaping (UInt32, String, String?) -> Void) throws(Errno) -> BusSlot {
        try self.onSignal("ActionInvoked") { message throws(Errno) in
            handler(try message.readUInt32(), try message.readString(), message.sender)
        }
    }
}

@available(*, unavailable)
extension Notifications: Sendable {}
