// Production's `NotificationsPeer`: SystemdKit's `Notifications` on the session bus, the bus
// driver's answers, the user manager's `Environment`, and each server's own Do Not Disturb calls
// and signals (`OnEveryDesktop`'s tables say which).

import DaysomeCore
import Glibc
import SystemdKit

/// The notification server on one session-bus connection.
final class NotificationsOnTheBus: NotificationsPeer {
    private let notifications: Notifications
    /// GSettings' key file is watched on it (GLib's keyfile backend).
    private let loop: EventLoop

    init(bus: Bus, loop: EventLoop) {
        self.notifications = Notifications(bus: bus)
        self.loop = loop
    }

    /// The session bus it is on: the display's returner asks a screensaver there too.
    var bus: Bus { self.notifications.bus }

    var busId: String { (try? self.bus.busId) ?? "?" }

    func onDisconnected(_ handler: @escaping () -> Void) throws(Errno) -> AnyObject {
        try self.bus.onDisconnected(handler)
    }

    func subscribeActionInvoked(_ handler: @escaping (UInt32, String, String?) -> Void) throws(Errno) -> AnyObject {
        try self.notifications.onActionInvokedBy(handler)
    }

    func subscribeNotificationClosed(
        _ handler: @escaping (UInt32, Notifications.CloseReason, String?) -> Void
    ) throws(Errno) -> AnyObject {
        try self.notifications.onClosedBy(handler)
    }

    func subscribeOwnerChanged(_ handler: @escaping (String?, String?) -> Void) throws(Errno) -> AnyObject {
        try self.notifications.onOwnerChange(handler)
    }

    func subscribeLeaving(_ uniqueName: String, _ handler: @escaping () -> Void) throws(Errno) -> AnyObject {
        try self.notifications.onLeaving(uniqueName, handler)
    }

    func isOnBus(_ uniqueName: String, completion: @escaping (Bool?) -> Void) {
        self.notifications.isOnBus(uniqueName, completion: completion)
    }

    func isOnBus(_ uniqueName: String) throws(BusError) -> Bool {
        try self.notifications.isOnBus(uniqueName)
    }

    func serverOwner() throws(BusError) -> String? {
        try self.notifications.serverOwner()
    }

    func serverOwner(completion: @escaping (Result<String?, BusError>) -> Void) {
        self.notifications.serverOwner(completion: completion)
    }

    func probeServer(completion: @escaping (Result<ServerDescription, BusError>) -> Void) {
        self.notifications.probeServer(completion: completion)
    }

    func post(_ call: NotifyCall, timeout: UInt64, answered: @escaping (Result<Notifications.Answer, BusError>) -> Void)
    {
        self.notifications.post(
            appName: call.appName, replacesID: call.replacesID, icon: call.icon, summary: call.summary, body: call.body,
            actions: call.actions, hints: call.hints, expireTimeout: call.expireTimeout, timeout: timeout,
            answered: answered)
    }

    func close(id: UInt32, server: String?) {
        self.notifications.close(id: id, server: server)
    }

    func sessionEnvironment(completion: @escaping (Result<[String], BusError>) -> Void) {
        self.bus.getProperty(
            destination: "org.freedesktop.systemd1", path: "/org/freedesktop/systemd1",
            interface: "org.freedesktop.systemd1.Manager", name: "Environment", autoStart: false,
            read: { reply throws(Errno) -> [String] in
                guard try reply.enterContainer("v", "as") else { throw Errno(rawValue: EBADMSG) }
                return try reply.readStringArray()
            },
            completion: completion)
    }

    func readDoNotDisturb(
        _ query: DoNotDisturbQuery, timeout: UInt64,
        completion: @escaping (Result<ServerDoNotDisturb, BusError>) -> Void
    ) {
        let message: BusMessage
        do throws(Errno) {
            message = try self.bus.newMethodCall(
                destination: query.destination, path: query.path, interface: query.interface, member: query.member)
            // Asking never starts a service.
            try message.setAutoStart(false)
            for argument in query.arguments { try message.append(argument) }
        } catch {
            completion(.failure(BusError(error).asUnsent))
            return
        }
        let shape = query.reply
        self.bus.send(
            message, timeout: timeout,
            decode: { reply throws(Errno) -> ServerDoNotDisturb in
                switch shape {
                case .propertyBoolean:
                    return shape.doNotDisturb(boolean: try reply.enterContainer("v", "b") ? try reply.readBool() : nil)
                case .boolean:
                    return shape.doNotDisturb(boolean: try reply.readBool())
                case .namesInclude:
                    return shape.doNotDisturb(names: try reply.readStringArray())
                }
            },
            completion: completion)
    }

    func followDoNotDisturb(
        serverName: String, changed: @escaping (ServerDoNotDisturb?) -> Void, settled: @escaping () -> Void
    ) -> any DoNotDisturbFollowing {
        DoNotDisturbWatch(bus: self.bus, serverName: serverName, changed: changed, settled: settled)
    }

    func followShowBanners(
        environment: [String: String], changed: @escaping (ServerDoNotDisturb) -> Void
    )
        -> AnyObject?
    {
        GSettingsDoNotDisturb(bus: self.bus, loop: self.loop, environment: environment, changed: changed)
    }
}
