// The daemon's bus connections: the session bus that carries every call to the notification
// server, and the systemd manager that holds the week with `--backend systemd`. Either peer may
// go away and come back; the Reconnector tries again and the machine is told what was lost.

import DaysomeCore
import DaysomeFiles
import Glibc
import SystemdKit

extension Manager {
    func connectNotifier() throws(DaemonError) {
        switch self.options.notifier {
        case .log:
            self.notifier = LogNotifier(logger: self.logger)
        case .freedesktop:
            do {
                try self.connectSessionBus(startingUp: true)
            } catch {
                throw .setup(
                    "Failed to connect to the session bus: \(error) (is DBUS_SESSION_BUS_ADDRESS or XDG_RUNTIME_DIR set? --notifier log needs no bus)"
                )
            }
            if self.notifier?.server.present != true {
                self.logger.log(
                    .warning, "No notification server answers on the session bus yet; calls fail until one does")
            }
        }
    }

    /// Opens the session bus (the peer given) and the notifier on it, and watches for the bus
    /// itself to go away (`systemctl --user restart dbus`): every later post would fail with ENOTCONN.
    func connectSessionBus(startingUp: Bool = false) throws(Errno) {
        let peer = try self.peers.notifications()
        let notifier = try self.freedesktopNotifier(on: peer, startingUp: startingUp)
        self.sessionDisconnected = try peer.onDisconnected { [weak self] in self?.sessionBusLost() }
        self.notifier = notifier
    }

    /// The notifier on `peer`, its server's words wired to this Manager.
    func freedesktopNotifier(on peer: any NotificationsPeer, startingUp: Bool) throws(Errno) -> FreedesktopNotifier {
        try FreedesktopNotifier(
            peer: peer, loop: self.loop, environment: self.environment,
            respectDoNotDisturb: { [weak self] in self?.respectsDoNotDisturb ?? false },
            closedByServer: { [weak self] id, reason, sender in self?.serverClosed(id, reason: reason, by: sender) },
            clicked: { [weak self] id, sender in self?.clicked(id, by: sender) },
            ownerChanged: { [weak self] previous, runs in self?.serverOwnerChanged(from: previous, runs: runs) },
            left: { [weak self] previous in self?.serverLeft(previous) },
            appeared: { [weak self] in self?.syncServerIdentity() },
            learned: { [weak self] in self?.serverLearned() }, askOwnerNow: startingUp)
    }

    // What a notifier hears from its server, each with the instance (`Notifier.instance`'s form)
    // that said it: the session bus's notifier and the embedded world's server say it alike.

    /// The server closed a card itself (expired, dismissed), with the spec's reason.
    func serverClosed(_ id: UInt32, reason: UInt32, by sender: String?) {
        self.handle(.serverClosed(notificationId: id, reason: reason, server: sender.map(self.stamp)))
    }

    /// She activated a card (its `default` action).
    func clicked(_ id: UInt32, by sender: String?) {
        self.handle(.clicked(notificationId: id, server: sender.map(self.stamp)))
    }

    /// The server's name changed owner from `previous`, which the bus said still runs or not: the
    /// machine tells a restart from a takeover.
    func serverOwnerChanged(from previous: String, runs: Bool?) {
        self.handle(
            .serverOwnerChanged(previous: self.stamp(previous), previousRuns: runs, answering: self.serverIdentity()))
    }

    /// The session bus is new: every server instance on the old one went with it.
    func sessionBusReplaced() {
        self.handle(.serverOwnerChanged(previous: nil, previousRuns: false, answering: self.serverIdentity()))
    }

    /// A server another took the name over from left the bus, its cards with it.
    func serverLeft(_ previous: String) {
        self.handle(.serverInstanceGone(self.stamp(previous)))
    }

    /// A probe answered: publish what is known of the server, and tell the machine which instance
    /// answers when that changed (a server a post activated on a first boot stamps its ids too).
    func serverLearned() {
        self.syncServerIdentity()
        // A switch that went off: what it kept out of sight is the machine's to show again.
        let doNotDisturb = self.notifier?.server.doNotDisturb
        if self.lastDoNotDisturb == .on && doNotDisturb == .off { self.handle(.doNotDisturbWentOff) }
        self.lastDoNotDisturb = doNotDisturb
        self.publish()
    }

    func sessionBusLost() {
        (self.notifier as? FreedesktopNotifier)?.serverGone()
        self.publish()
        // The server's ids died with its connection to the old bus: forget them once back.
        if self.sessionReconnector == nil {
            self.sessionReconnector = self.reconnector(
                "session bus", connect: { try $0.connectSessionBus() }, then: { $0.sessionBusReplaced() })
        }
        self.sessionReconnector?.lost()
    }

    /// Connects to the user's systemd manager, stops what an earlier daemon left there, and
    /// watches for the connection to drop (the manager restarted: its transient units are gone).
    func connectManager() throws(DaemonError) {
        let reconnecting = self.systemd != nil
        do {
            self.layTimers(in: try self.peers.timers(self))
        } catch {
            throw .setup(
                "Failed to connect to the systemd user manager: \(error) (is XDG_RUNTIME_DIR set and systemd --user running?)"
            )
        }
        // A lay number the manager still holds is used: the counter starts above it (lay.json may
        // have been lost or set aside). Then whatever an earlier daemon left is stopped, and the
        // machine lays the current plan again.
        // Only at start-up, before the loop runs: a running daemon's own counter is ahead of
        // anything the manager holds, and a reconnect from the loop waits on no list.
        if !reconnecting, let held = self.systemd?.highestLayHeld() { self.machine.raiseLayCounter(atLeast: held) }
        self.systemd?.stopAll()
    }

    /// The systemd backend lays its timers in `manager` from now on: a new backend at start-up, the
    /// same one after the manager came back (it forgets what it asked of the old one).
    private func layTimers(in manager: any TimerManager) {
        if let backend = self.systemd {
            backend.reconnect(manager)
        } else {
            self.systemd = SystemdBackend(
                manager: manager, logger: self.logger, runtimeDirectory: self.options.paths.runtimeDirectory,
                environment: self.environment)
        }
    }

    /// The connection to the user manager dropped (it restarted: its transient units are gone).
    package func managerLost() {
        if self.managerReconnector == nil {
            self.managerReconnector = self.reconnector(
                "systemd manager", connect: { try $0.connectManager() }, then: { $0.handle(.timersLost) })
        }
        self.managerReconnector?.lost()
    }

    /// Retries `connect` until it succeeds, then tells the machine what the loss cost.
    private func reconnector(
        _ peer: String, connect: @escaping (Manager) throws -> Void, then: @escaping (Manager) -> Void
    ) -> Reconnector {
        Reconnector(loop: self.loop, logger: self.logger, peer: peer) { [weak self] in
            guard let self else { return true }
            do {
                try connect(self)
            } catch {
                return false
            }
            then(self)
            return true
        }
    }
}
