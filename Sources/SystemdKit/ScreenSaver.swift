// A screen locker's screensaver interface on the session bus: org.freedesktop.ScreenSaver (KDE,
// Xfce, LXQt and others) or org.gnome.ScreenSaver (GNOME Shell, Phosh), which share their
// `GetActive` method and `ActiveChanged` signal. Asking never starts a screensaver: the call
// carries the no-auto-start flag.

import CSystemd
import Glibc

/// One of the screensaver interfaces a locker speaks: its well-known name, object path and interface.
public struct ScreenSaverInterface: Sendable, Equatable {
    public let busName: String
    public let objectPath: String
    public let interfaceName: String

    public init(busName: String, objectPath: String, interfaceName: String) {
        self.busName = busName
        self.objectPath = objectPath
        self.interfaceName = interfaceName
    }

    /// `org.freedesktop.ScreenSaver` at /org/freedesktop/ScreenSaver.
    public static let freedesktop = ScreenSaverInterface(
        busName: "org.freedesktop.ScreenSaver", objectPath: "/org/freedesktop/ScreenSaver",
        interfaceName: "org.freedesktop.ScreenSaver")
    /// `org.gnome.ScreenSaver` at /org/gnome/ScreenSaver: Phosh's only word that it locked.
    public static let gnome = ScreenSaverInterface(
        busName: "org.gnome.ScreenSaver", objectPath: "/org/gnome/ScreenSaver", interfaceName: "org.gnome.ScreenSaver")
}

/// A screensaver interface on one bus.
public final class ScreenSaver {
    public let bus: Bus
    public let interface: ScreenSaverInterface

    public init(bus: Bus, interface: ScreenSaverInterface = .freedesktop) {
        self.bus = bus
        self.interface = interface
    }

    /// Whether the screensaver (the locker) is active now; fails with
    /// `org.freedesktop.DBus.Error.ServiceUnknown` where no desktop offers one, and with
    /// `NotSupported` from a proxy that only forwards inhibitions (gsd's, under Phosh).
    ///
    /// D-Bus: method `GetActive() -> (active b)`, sent without auto-start.
    ///
    /// - Parameter blockingFor: nil to ask on the loop; a timeout in microseconds to wait here.
    ///
    /// The corresponding C functions are `sd_bus_message_new_method_call`,
    /// `sd_bus_message_set_auto_start` and `sd_bus_call_async` (or `sd_bus_call`).
    public func getActive(blockingFor: UInt64? = nil, completion: @escaping (Result<Bool, BusError>) -> Void) {
        do throws(Errno) {
            let message = try self.bus.newMethodCall(
                destination: self.interface.busName, path: self.interface.objectPath,
                interface: self.interface.interfaceName, member: "GetActive")
            try message.setAutoStart(false)
            let decode = { (reply: BusMessage) throws(Errno) -> Bool in try reply.readBool() }
            if let usec = blockingFor {
                self.bus.send(message, blockingFor: usec, decode: decode, completion: completion)
            } else {
                self.bus.send(message, decode: decode, completion: completion)
            }
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
            "type='signal',sender='\(self.interface.busName)',interface='\(self.interface.interfaceName)',"
            + "member='ActiveChanged'"
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
        try self.bus.onNameOwnerChanged(self.interface.busName) { _, new in handler(new) }
    }
}

@available(*, unavailable)
extension ScreenSaver: Sendable {}
