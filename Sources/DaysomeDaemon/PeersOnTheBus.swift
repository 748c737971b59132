// Production's peers: each opens its own sd-bus connection (the session bus for the notifier, the
// user manager for the systemd backend) and attaches it to the daemon's sd-event loop. The
// composition root (Daemon.swift) hands them to the Manager as `ManagerPeers`.

import DaysomeFiles
import SystemdKit

/// The session's real peers, on one sd-event loop.
final class PeersOnTheBus {
    let loop: EventLoop
    private let environment: [String: String]
    /// The notifier's connection now: the returner asks the screensaver on the same bus.
    private weak var session: NotificationsOnTheBus?
    /// The user manager connection's Disconnected match, replaced at each connect.
    private var managerDisconnected: BusSlot?

    init(loop: EventLoop, environment: [String: String]) {
        self.loop = loop
        self.environment = environment
    }

    /// The session bus, and the notification server on it.
    func notifications() throws(Errno) -> any NotificationsPeer {
        let bus = try Bus.openUser()
        try bus.attach(to: self.loop)
        let peer = NotificationsOnTheBus(bus: bus, loop: self.loop)
        self.session = peer
        return peer
    }

    /// The session bus the notifier is on, while one is.
    var sessionBus: Bus? { self.session?.bus }

    /// The user's own manager, watched for its connection to drop: `lost` runs then.
    func timers(lost: @escaping () -> Void) throws(Errno) -> any TimerManager {
        let manager = try self.userManager()
        self.managerDisconnected = try manager.bus.onDisconnected(lost)
        return manager
    }

    /// The user's own manager, where one answers.
    func userManager() throws(Errno) -> SystemdManager {
        let manager = try SystemdManager.connectUser(runtimeDirectory: self.environment["XDG_RUNTIME_DIR"])
        try manager.bus.attach(to: self.loop)
        return manager
    }
}
