// The seam under the notifier: what `FreedesktopNotifier` asks of the session bus and the
// notification server on it. Production's is the session bus itself (NotificationsOnTheBus.swift);
// the embedded world's `FakeNotificationServer` (DaysomeWorld) answers the same calls on a manual loop, so that
// the notifier's own decisions (presence, probes, Do Not Disturb, waiting, which instance gave an
// id) run in the simulator too, not a copy of them.

import DaysomeCore
import SystemdKit

/// A Notify's arguments (`susssasa{sv}i`), and the start it calls.
package struct NotifyCall {
    var appName: String
    package var replacesID: UInt32
    var icon: String
    package var summary: String
    package var body: String
    var actions: [String]
    package var hints: [(String, BusVariant)]
    package var expireTimeout: Int32
    /// What the call is for. Never sent: a fake server keeps it beside the card, so that a
    /// simulation can judge each card against the start it calls.
    package var start: Start?
}

/// The subscription to a server's Do Not Disturb signal, held while that server answers.
package protocol DoNotDisturbFollowing: AnyObject {
    /// The server name it follows (`GetServerInformation`).
    var serverName: String { get }
    /// Whether the signal is followed (for mako, once its `Modes` property was found).
    var followed: Bool { get }
}

/// The notification server's name on the session bus, its signals, and the bus driver's and the
/// user manager's answers about it. Every answer comes back from the loop; a subscription lasts
/// while what it returns is kept.
package protocol NotificationsPeer: AnyObject {
    /// The bus's id: an instance is named by it and a unique name ("?" where it cannot be read).
    var busId: String { get }
    /// The connection dropped (the bus restarted): `handler` runs from the loop. Keep the match as
    /// long as it should.
    func onDisconnected(_ handler: @escaping () -> Void) throws(Errno) -> AnyObject

    /// `ActionInvoked(id, key)`, with the unique name that sent it.
    func subscribeActionInvoked(_ handler: @escaping (UInt32, String, String?) -> Void) throws(Errno) -> AnyObject
    /// `NotificationClosed(id, reason)`, with the unique name that sent it.
    func subscribeNotificationClosed(
        _ handler: @escaping (UInt32, Notifications.CloseReason, String?) -> Void
    ) throws(Errno) -> AnyObject
    /// The server's name changed owner (nil: none).
    func subscribeOwnerChanged(_ handler: @escaping (_ old: String?, _ new: String?) -> Void) throws(Errno) -> AnyObject
    /// `uniqueName` left the bus.
    func subscribeLeaving(_ uniqueName: String, _ handler: @escaping () -> Void) throws(Errno) -> AnyObject

    /// Whether `uniqueName` is still connected (nil where the bus did not say).
    func isOnBus(_ uniqueName: String, completion: @escaping (Bool?) -> Void)
    /// The same, asked before the loop runs.
    func isOnBus(_ uniqueName: String) throws(BusError) -> Bool
    /// The unique name that owns the server's name now, asked before the loop runs.
    func serverOwner() throws(BusError) -> String?
    /// The same, from the loop.
    func serverOwner(completion: @escaping (Result<String?, BusError>) -> Void)
    /// The running server's name and capabilities; never starts one.
    func probeServer(completion: @escaping (Result<ServerDescription, BusError>) -> Void)

    /// A Notify (the bus may start a server for it), waited for up to `timeout` µs (0 for
    /// sd-bus's default, `Bus.noTimeout` for however long it takes).
    func post(_ call: NotifyCall, timeout: UInt64, answered: @escaping (Result<Notifications.Answer, BusError>) -> Void)
    /// `CloseNotification(id)` at `server` (a unique name), or at the name's owner where nil.
    func close(id: UInt32, server: String?)

    /// The user manager's environment (`KEY=value` entries): what a server the bus starts gets.
    func sessionEnvironment(completion: @escaping (Result<[String], BusError>) -> Void)
    /// Reads a server's Do Not Disturb as `query` says, never starting a service for it.
    func readDoNotDisturb(
        _ query: DoNotDisturbQuery, timeout: UInt64,
        completion: @escaping (Result<ServerDoNotDisturb, BusError>) -> Void)
    /// Subscribes to the Do Not Disturb signal of the server named `serverName`, if it has one;
    /// `changed` gets the new value (nil: it changed, ask again), `settled` runs once it is known
    /// whether the signal is followed.
    func followDoNotDisturb(
        serverName: String, changed: @escaping (ServerDoNotDisturb?) -> Void, settled: @escaping () -> Void
    ) -> any DoNotDisturbFollowing
    /// Follows GSettings' `show-banners` (GNOME Shell's and Phosh's switch); nil where it cannot.
    func followShowBanners(
        environment: [String: String], changed: @escaping (ServerDoNotDisturb) -> Void
    )
        -> AnyObject?
}
