// org.freedesktop.ScreenSaver on the session bus, where a desktop offers it (KDE, Xfce, LXQt and
// others; GNOME offers it too): whether the screen locker is active, and its `ActiveChanged`
// signal. Asking never starts a screensaver: the call carries the no-auto-start flag.

import CSystemd
import Glibc

/// `org.freedesktop.ScreenSaver` at /org/freedesktop/ScreenSaver.
public final class ScreenSaver {
    /// The screensaver's well-known name on the session bus.
    public static let busName = "org.freedesktop.ScreenSaver"
    /// Its object path.
    public static let objectPath = "/org/freedesktop/ScreenSaver"
    /// Its interface.
    public static let interfaceName = "org.freedesktop.ScreenSaver"

    public let bus: Bus

    public init(bus: Bus) {
        self.bus = bus
    }

    /// Whether the screensaver (the locker) is active now; fails with
    /// `org.freedesktop.DBus.Error.ServiceUnknown` where no desktop offers one.
    ///
    /// D-Bus: method `GetActive() -> (active b)`, sent without auto-start.
    ///
    /// The corresponding C functions are `sd_bus_message_new_method_call`,
    /// `sd_bus_message_set_auto_start` and `sd_bus_call_async`.
    public func getActive(completion: @escaping (Result<Bool, BusError>) -> Void) {
        do throws(Errno) {
            let message = try self.bus.newMethodCall(
                destination: Self.busName, path: Self.objectPath, interface: Self.interfaceName, member: "GetActive")
            try message.setAutoStart(false)
            self.bus.send(message, decode: { reply throws(Errno) in try reply.readBool() }, completion: completion)
        } catch {
            completion(.failure(BusError(error)))
        }
    }

    /// Calls `handler` with the new state whenever the screensaver becomes active or inactive.
    /// Only the owner of the screensaver's name is heard; desktops emit it from more than one
    /// path, so the match names no path.
    ///
    /// D-Bus: signal `ActiveChanged(active b)`.
    ///
    /// - Returns: the match; keep it as long as the handler should be called.
    ///
    /// The corresponding C function is `sd_bus_add_match`.
    public func onActiveChanged(_ handler: @escaping (Bool) -> Void) throws(Errno) -> BusSlot {
        let rule =
            "type='signal',sender='\(Self.busName)',interface='\(Self.interfaceName)',member='ActiveChanged'"
        return try self.bus.addMatch(rule) { message in
            guard let active = try? message.readBool() else { return }
            handler(active)
        }
    }

    /// Calls `handler` with the screensaver's new unique name when one starts, or nil when it
    /// goes away (a locker that crashed no longer holds the display away).
    ///
    /// - Returns: the match; keep it as long as the handler should be called.
    public func onOwnerChanged(_ handler: @escaping (String?) -> Void) throws(Errno) -> BusSlot {
        try self.bus.onNameOwnerChanged(Self.busName) { _, new in handler(new) }
    }
}

@available(*, unavailable)
extension ScreenSaver: Sendable {}
