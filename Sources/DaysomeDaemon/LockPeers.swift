// What the lock watch (LockWatch.swift) asks of the buses: logind on the system bus, and the two
// screensaver interfaces on the session bus. Production's go over sd-bus (LockPeersOnTheBus.swift);
// the embedded world's are a fake session (DaysomeWorld/FakeSessionLock.swift), so the watch's own
// sequencing (a session that changes, logind or a locker that leaves, a request, a bus that drops)
// runs on the virtual clock too.

import DaysomeCore
import SystemdKit

/// Opens the lock watch's own connections.
package protocol LockBuses: AnyObject {
    /// The system bus's socket file, where its address names one: a system bus missing at
    /// start-up is connected the moment this appears.
    var systemBusSocket: String? { get }
    /// A system bus connection to logind; `lost` runs when the connection drops.
    func openSystem(lost: @escaping () -> Void) throws(Errno) -> any LogindPeer
    /// A session bus connection to the screensavers, one per interface; `lost` runs when the
    /// connection drops.
    func openSession(lost: @escaping () -> Void) throws(Errno) -> [(ScreenSaverInterface, any ScreenSaverPeer)]
}

/// logind's Manager, User and Session objects, by path, on one connection. Each `on…` returns the
/// match: keep it as long as the handler should be called. `blockingFor` (µs): wait here for the
/// answer (start-up) instead of on the loop.
package protocol LogindPeer: AnyObject {
    /// logind's new unique name when it starts; nil when it goes away.
    func onOwnerChanged(_ handler: @escaping (String?) -> Void) throws(Errno) -> AnyObject
    /// The object path of the user with `uid`.
    func getUser(uid: UInt32, blockingFor: UInt64?, completion: @escaping (Result<String, BusError>) -> Void)
    /// The user's graphical session's path (nil: none).
    func display(user: String, blockingFor: UInt64?, completion: @escaping (Result<String?, BusError>) -> Void)
    /// The user's `Display` changed: the new session (nil: none), or `.none` when only invalidated.
    func onDisplayChanged(user: String, _ handler: @escaping (String??) -> Void) throws(Errno) -> AnyObject
    /// The session's `LockedHint`.
    func lockedHint(session: String, blockingFor: UInt64?, completion: @escaping (Result<Bool, BusError>) -> Void)
    /// `LockedHint` changed: the new value, or nil when only invalidated.
    func onLockedHintChanged(session: String, _ handler: @escaping (Bool?) -> Void) throws(Errno) -> AnyObject
    /// logind's `Lock` (true) and `Unlock` (false) requests of the session.
    func onLockRequests(session: String, _ handler: @escaping (Bool) -> Void) throws(Errno) -> [AnyObject]
}

/// One screensaver interface on one connection.
package protocol ScreenSaverPeer: AnyObject {
    /// Whether it is active (locked) now, asked without starting one.
    func getActive(blockingFor: UInt64?, completion: @escaping (Result<Bool, BusError>) -> Void)
    /// Its `ActiveChanged` signal.
    func onActiveChanged(_ handler: @escaping (Bool) -> Void) throws(Errno) -> AnyObject
    /// Its name's new owner; nil when it went away.
    func onOwnerChanged(_ handler: @escaping (String?) -> Void) throws(Errno) -> AnyObject
}
