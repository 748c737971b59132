// What a Manager is given rather than makes: the loop it runs on, and, in the embedded world
// (Embedded/EmbeddedTablet.swift), what stands for the session's peers: a notification server, the bell,
// the display's return and the journal. Production's are the sd-event loop and the real ones.

import DaysomeCore
import DaysomeFiles
import SystemdKit

/// Plays the bell (ChimePlayer.swift), or records that it rang.
protocol BellPlayer: AnyObject {
    /// The sound file played.
    var file: String { get }
    /// The player the next ring starts with; nil when there is none (the bell is silent).
    var player: String? { get }
    func play()
}

/// Brings the day display back (DisplayReturner.swift), or records that it was asked to.
protocol DisplayBringer: AnyObject {
    /// How, for status; nil when no means is configured.
    var means: String? { get }
    func bringBack(reason: String)
}

/// The loop a Manager runs on and the peers it is given.
struct ManagerPeers {
    let loop: any Loop
    /// The sd-event loop behind `loop` in production: buses attach to it. Nil in the embedded world,
    /// which opens no bus: its notifier's server and its lock watch's buses are given, and it runs
    /// on the wheel.
    let eventLoop: EventLoop?
    /// The notification server the real notifier talks to, on the loop it is given; nil for the
    /// session bus's. A daemon started anew connects anew, and so does one whose connection
    /// dropped (the bus restarted): it fails while the bus takes no connection.
    var notifications: ((any Loop) throws(Errno) -> any NotificationsPeer)? = nil
    /// Makes the user manager the systemd backend lays its timers in, given the Manager their fires
    /// reach; nil for the user's own over the bus. The backend itself is always the real one.
    var timers: ((Manager) -> any TimerManager)? = nil
    var bell: (any BellPlayer)? = nil
    var returner: (any DisplayBringer)? = nil
    /// The buses the lock watch asks logind and the screensavers on; nil for the session's own
    /// over sd-bus.
    var lockBuses: (any LockBuses)? = nil
    /// Where the embedded world fails the state files' writes; nil for none but the kernel's.
    var disk: DiskFaults? = nil
    /// The disk every file of the daemon is on (StateDisk.swift); nil for the kernel's own.
    var stateDisk: (any StateDisk)? = nil
    /// Takes every log line instead of the journal.
    var log: ((LogPriority, String, [(String, String)]) -> Void)? = nil
    /// Where the daemon's sd_notify states go (READY=1, STATUS=…, STOPPING=1): the service
    /// manager that started it. The embedded world keeps them: $NOTIFY_SOCKET is the process's,
    /// and a test of sd_notify may point it at a socket of its own that nobody else's daemon
    /// must fill (a full datagram socket blocks the sender).
    var serviceManager: (String) -> Void = { _ = ServiceManager.notify($0) }

    /// Production's: a new sd-event loop, and the session's own peers, opened by the Manager.
    static func production() throws(DaemonError) -> ManagerPeers {
        do {
            let loop = try EventLoop()
            return ManagerPeers(loop: loop, eventLoop: loop)
        } catch {
            throw .setup("Failed to create the event loop: \(error)")
        }
    }
}
