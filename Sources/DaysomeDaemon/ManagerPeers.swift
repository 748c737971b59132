// What a Manager is given rather than makes: the loop it runs on, its clock and log, and the
// session's peers (the notification server, the systemd manager, the lockers, the bell, the
// display's return, the service manager). The Manager sees them through these protocols only.
// daysomed's composition root (Daemon.swift) gives it production's: an sd-event loop and the real
// peers over sd-bus (PeersOnTheBus.swift). The test-support library DaysomeWorld, which daysomed
// does not link, gives it a manual loop and fakes (DaysomeWorld/EmbeddedTablet.swift).

import DaysomeCore
import DaysomeFiles
import SystemdKit

/// Plays the bell (ChimePlayer.swift), or records that it rang.
package protocol BellPlayer: AnyObject {
    /// The sound file played.
    var file: String { get }
    /// The player the next ring starts with; nil when there is none (the bell is silent).
    var player: String? { get }
    func play()
}

/// Brings the day display back (DisplayReturner.swift), or records that it was asked to.
package protocol DisplayBringer: AnyObject {
    /// How, for status; nil when no means is configured.
    var means: String? { get }
    func bringBack(reason: String)
}

/// The loop a Manager runs on and the peers it is given.
package struct ManagerPeers {
    let loop: any Loop
    /// Every read of the time goes through here (DaemonClock.swift).
    var clock: any DaemonClock
    let logger: Logger
    /// The notification server the notifier talks to. A daemon started anew connects anew, and so
    /// does one whose connection dropped (the bus restarted): it fails while the bus takes no
    /// connection.
    let notifications: () throws(Errno) -> any NotificationsPeer
    /// The user manager the systemd backend lays its timers in, given the Manager their fires and
    /// the connection's loss reach.
    let timers: (Manager) throws(Errno) -> any TimerManager
    /// The user manager a wheel daemon stops what a systemd-backend daemon left in
    /// (LeftoverTimers.swift); nil where none is reachable.
    let leftoverTimers: () -> (any TimerManager)?
    /// Made once the notifier and the watches are up.
    let bell: () -> any BellPlayer
    let returner: () -> any DisplayBringer
    /// The buses the lock watch asks logind and the screensavers on.
    let lockBuses: any LockBuses
    /// Where the state files' writes may be refused (DiskFaults.swift).
    let disk: DiskFaults
    /// The disk every file of the daemon is on (StateDisk.swift): the kernel's in production.
    let stateDisk: any StateDisk
    /// Whether the daemon listens on its control socket for `daysomectl fire` and `try`. A world
    /// that reaches the daemon otherwise calls `Manager.control` itself.
    let controlSocket: Bool
    /// Where the daemon's sd_notify states go (READY=1, STATUS=…, STOPPING=1): the service
    /// manager that started it.
    let serviceManager: (String) -> Void

    package init(
        loop: any Loop, clock: any DaemonClock, logger: Logger,
        notifications: @escaping () throws(Errno) -> any NotificationsPeer,
        timers: @escaping (Manager) throws(Errno) -> any TimerManager,
        leftoverTimers: @escaping () -> (any TimerManager)?, bell: @escaping () -> any BellPlayer,
        returner: @escaping () -> any DisplayBringer, lockBuses: any LockBuses, disk: DiskFaults, controlSocket: Bool,
        serviceManager: @escaping (String) -> Void, stateDisk: any StateDisk = SystemDisk.shared
    ) {
        self.stateDisk = stateDisk
        self.loop = loop
        self.clock = clock
        self.logger = logger
        self.notifications = notifications
        self.timers = timers
        self.leftoverTimers = leftoverTimers
        self.bell = bell
        self.returner = returner
        self.lockBuses = lockBuses
        self.disk = disk
        self.controlSocket = controlSocket
        self.serviceManager = serviceManager
    }
}
