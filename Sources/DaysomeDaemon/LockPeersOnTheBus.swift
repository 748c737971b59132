// The lock watch's peers over sd-bus: SystemdKit's logind and screensaver types on connections
// of the watch's own, attached to the daemon's sd-event loop.

import DaysomeCore
import SystemdKit

/// Production's `LockBuses`: the system bus and the user's session bus, as sd-bus finds them.
final class LockBusesOnTheBus: LockBuses {
    private let loop: EventLoop

    init(loop: EventLoop) {
        self.loop = loop
    }

    var systemBusSocket: String? { BusAddress.systemSocketPath }

    func openSystem(lost: @escaping () -> Void) throws(Errno) -> any LogindPeer {
        let bus = try Bus.openSystem()
        try bus.attach(to: self.loop)
        return LogindOnTheBus(bus: bus, disconnected: try bus.onDisconnected(lost))
    }

    func openSession(lost: @escaping () -> Void) throws(Errno) -> [(ScreenSaverInterface, any ScreenSaverPeer)] {
        let bus = try Bus.openUser()
        try bus.attach(to: self.loop)
        let disconnected = try bus.onDisconnected(lost)
        return [ScreenSaverInterface.freedesktop, .gnome].map {
            ($0, ScreenSaverOnTheBus(ScreenSaver(bus: bus, interface: $0), disconnected: disconnected))
        }
    }
}

/// logind on one system bus connection, which it keeps open.
final class LogindOnTheBus: LogindPeer {
    private let manager: LogindManager
    private let disconnected: BusSlot

    init(bus: Bus, disconnected: BusSlot) {
        self.manager = LogindManager(bus: bus)
        self.disconnected = disconnected
    }

    func onOwnerChanged(_ handler: @escaping (String?) -> Void) throws(Errno) -> AnyObject {
        try self.manager.onOwnerChanged(handler)
    }

    func getUser(uid: UInt32, blockingFor: UInt64?, completion: @escaping (Result<String, BusError>) -> Void) {
        self.manager.getUser(uid: uid, blockingFor: blockingFor, completion: completion)
    }

    func display(user: String, blockingFor: UInt64?, completion: @escaping (Result<String?, BusError>) -> Void) {
        LogindUser(bus: self.manager.bus, path: user).display(blockingFor: blockingFor, completion: completion)
    }

    func onDisplayChanged(user: String, _ handler: @escaping (String??) -> Void) throws(Errno) -> AnyObject {
        try LogindUser(bus: self.manager.bus, path: user).onDisplayChanged(handler)
    }

    func lockedHint(session: String, blockingFor: UInt64?, completion: @escaping (Result<Bool, BusError>) -> Void) {
        LogindSession(bus: self.manager.bus, path: session).lockedHint(blockingFor: blockingFor, completion: completion)
    }

    func onLockedHintChanged(session: String, _ handler: @escaping (Bool?) -> Void) throws(Errno) -> AnyObject {
        try LogindSession(bus: self.manager.bus, path: session).onLockedHintChanged(handler)
    }

    func onLockRequests(session: String, _ handler: @escaping (Bool) -> Void) throws(Errno) -> [AnyObject] {
        try LogindSession(bus: self.manager.bus, path: session).onLockRequests(handler)
    }
}

/// One screensaver interface on a session bus connection; the connection stays open while any
/// of its interfaces is kept.
final class ScreenSaverOnTheBus: ScreenSaverPeer {
    private let saver: ScreenSaver
    private let disconnected: BusSlot

    init(_ saver: ScreenSaver, disconnected: BusSlot) {
        self.saver = saver
        self.disconnected = disconnected
    }

    func getActive(blockingFor: UInt64?, completion: @escaping (Result<Bool, BusError>) -> Void) {
        self.saver.getActive(blockingFor: blockingFor, completion: completion)
    }

    func onActiveChanged(_ handler: @escaping (Bool) -> Void) throws(Errno) -> AnyObject {
        try self.saver.onActiveChanged(handler)
    }

    func onOwnerChanged(_ handler: @escaping (String?) -> Void) throws(Errno) -> AnyObject {
        try self.saver.onOwnerChanged(handler)
    }
}

@available(*, unavailable)
extension LockBusesOnTheBus: Sendable {}
@available(*, unavailable)
extension LogindOnTheBus: Sendable {}
@available(*, unavailable)
extension ScreenSaverOnTheBus: Sendable {}
