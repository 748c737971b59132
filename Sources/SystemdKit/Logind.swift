// logind's objects on the system bus, as far as the daemon needs them to tell a locked session:
// the Manager (which user object belongs to a uid), the User (its graphical `Display` session,
// which a lingering user's service reaches even though it runs in no session of its own) and
// the Session (its `LockedHint`). One type per D-Bus object; every call is asynchronous.

import CSystemd
import Glibc

/// `org.freedesktop.login1.Manager` at /org/freedesktop/login1.
public final class LogindManager {
    /// logind's well-known name on the system bus.
    public static let busName = "org.freedesktop.login1"
    /// The Manager's object path.
    public static let objectPath = "/org/freedesktop/login1"

    public let bus: Bus

    public init(bus: Bus) {
        self.bus = bus
    }

    /// The object path of the user with `uid`; fails with `org.freedesktop.login1.NoSuchUser`
    /// when the user has neither a session nor lingering.
    ///
    /// D-Bus: method `GetUser(uid u) -> (user o)`.
    ///
    /// - Parameter blockingFor: nil to ask on the loop; a timeout in microseconds to wait here.
    ///
    /// The corresponding C functions are `sd_bus_message_new_method_call` and `sd_bus_call_async`
    /// (or `sd_bus_call`).
    public func getUser(
        uid: UInt32, blockingFor: UInt64? = nil, completion: @escaping (Result<String, BusError>) -> Void
    ) {
        do throws(Errno) {
            let message = try self.bus.newMethodCall(
                destination: Self.busName, path: Self.objectPath, interface: "org.freedesktop.login1.Manager",
                member: "GetUser")
            try message.append(uid)
            let decode = { (reply: BusMessage) throws(Errno) -> String in try reply.readObjectPath() }
            if let usec = blockingFor {
                self.bus.send(message, blockingFor: usec, decode: decode, completion: completion)
            } else {
                self.bus.send(message, decode: decode, completion: completion)
            }
        } catch {
            completion(.failure(BusError(error)))
        }
    }

    /// Calls `handler` with logind's new unique name when it starts, or nil when it goes away.
    ///
    /// - Returns: the match; keep it as long as the handler should be called.
    public func onOwnerChanged(_ handler: @escaping (String?) -> Void) throws(Errno) -> BusSlot {
        try self.bus.onNameOwnerChanged(Self.busName) { _, new in handler(new) }
    }
}

/// `org.freedesktop.login1.User` at the path `LogindManager.getUser` returned.
public final class LogindUser {
    static let interfaceName = "org.freedesktop.login1.User"

    public let bus: Bus
    public let path: String

    public init(bus: Bus, path: String) {
        self.bus = bus
        self.path = path
    }

    /// The object path of the user's graphical session, or nil when there is none (logind
    /// says `("", "/")`).
    ///
    /// D-Bus: property `Display (so)`.
    /// - Parameter blockingFor: nil to ask on the loop; a timeout in microseconds to wait here.
    public func display(blockingFor: UInt64? = nil, completion: @escaping (Result<String?, BusError>) -> Void) {
        self.bus.getProperty(
            destination: LogindManager.busName, path: self.path, interface: Self.interfaceName, name: "Display",
            blockingFor: blockingFor, read: Self.readDisplay, completion: completion)
    }

    /// Calls `handler` whenever the user's `Display` session changes (a new login, a logout):
    /// with the new session path (nil: none), or with `.none` when only invalidated.
    ///
    /// - Returns: the match; keep it as long as the handler should be called.
    public func onDisplayChanged(_ handler: @escaping (String??) -> Void) throws(Errno) -> BusSlot {
        try self.bus.onPropertyChanged(
            sender: LogindManager.busName, path: self.path, interface: Self.interfaceName, name: "Display",
            read: Self.readDisplay, handler)
    }

    /// Reads a `v` holding `(so)`: the session id and its path, "/" for none.
    static func readDisplay(_ message: BusMessage) throws(Errno) -> String? {
        _ = try message.enterContainer("v", "(so)")
        _ = try message.enterContainer("r", "so")
        _ = try message.readString()
        let path = try message.readObjectPath()
        try message.exitContainer()
        try message.exitContainer()
        return path == "/" ? nil : path
    }
}

/// `org.freedesktop.login1.Session` at a session's object path.
public final class LogindSession {
    static let interfaceName = "org.freedesktop.login1.Session"

    public let bus: Bus
    public let path: String

    public init(bus: Bus, path: String) {
        self.bus = bus
        self.path = path
    }

    /// Whether the session is locked, as its locker told logind (`SetLockedHint`). A screen
    /// blanked by power saving does not set it.
    ///
    /// D-Bus: property `LockedHint b`.
    /// - Parameter blockingFor: nil to ask on the loop; a timeout in microseconds to wait here.
    public func lockedHint(blockingFor: UInt64? = nil, completion: @escaping (Result<Bool, BusError>) -> Void) {
        self.bus.getProperty(
            destination: LogindManager.busName, path: self.path, interface: Self.interfaceName, name: "LockedHint",
            blockingFor: blockingFor, read: Self.readBool, completion: completion)
    }

    /// Calls `handler` whenever `LockedHint` changes: with the new value, or nil when only
    /// invalidated (ask again with `lockedHint`).
    ///
    /// - Returns: the match; keep it as long as the handler should be called.
    public func onLockedHintChanged(_ handler: @escaping (Bool?) -> Void) throws(Errno) -> BusSlot {
        try self.bus.onPropertyChanged(
            sender: LogindManager.busName, path: self.path, interface: Self.interfaceName, name: "LockedHint",
            read: Self.readBool, handler)
    }

    /// Calls `handler` with true when logind asks the session's locker to lock (`loginctl
    /// lock-session`, a lid, an idle action) and false when it asks it to unlock. Requests only:
    /// a kiosk has no locker to carry them out, and Phosh's keypad unlocks with no `Unlock`.
    ///
    /// D-Bus: signals `org.freedesktop.login1.Session.Lock()` and `Unlock()`.
    ///
    /// - Returns: the two matches; keep them as long as the handler should be called.
    ///
    /// The corresponding C function is `sd_bus_add_match`.
    public func onLockRequests(_ handler: @escaping (Bool) -> Void) throws(Errno) -> [BusSlot] {
        var slots: [BusSlot] = []
        for (member, locked) in [("Lock", true), ("Unlock", false)] {
            let rule =
                "type='signal',sender='\(LogindManager.busName)',path='\(self.path)',"
                + "interface='\(Self.interfaceName)',member='\(member)'"
            slots.append(try self.bus.addMatch(rule) { _ in handler(locked) })
        }
        return slots
    }

    static func readBool(_ message: BusMessage) throws(Errno) -> Bool {
        guard case .bool(let value) = try message.readVariant() else { throw Errno(rawValue: EBADMSG) }
        return value
    }
}

@available(*, unavailable)
extension LogindManager: Sendable {}
@available(*, unavailable)
extension LogindUser: Sendable {}
@available(*, unavailable)
extension LogindSession: Sendable {}
