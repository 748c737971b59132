// The embedded world's session, as the daemon's lock watch sees it on its buses: logind (the
// user, the user's graphical session, its `LockedHint`, its `Lock` and `Unlock` requests) and the
// two screensaver interfaces. What a test does to it is what a locker does; the real LockWatch
// asks and follows it as it does the buses, on the daemon's manual loop: a reply or a signal
// arrives on the loop's next iteration, and a start-up ask (`blockingFor`) is answered at once.

import DaysomeCore
import DaysomeDaemon
import DaysomeFiles
import Glibc
import SystemdKit

/// logind and the screensavers of one session; they outlive the daemon's restarts.
public final class FakeSessionLock {
    static let userPath = "/org/freedesktop/login1/user/_1000"
    /// The user's graphical session's object path: a new one at each login.
    public private(set) var sessionPath = "/org/freedesktop/login1/session/_31"
    private var sessions = 31

    /// Whether logind runs (owns its name).
    public private(set) var logindRuns = true
    /// The session's `LockedHint`, as its locker told logind.
    public private(set) var lockedHint = false
    /// Each screensaver interface that runs, by its name, and whether it is active.
    public private(set) var savers: [String: Bool] = [:]
    /// Whether the system bus, and the session bus, take connections.
    public private(set) var systemBusUp = true
    public private(set) var sessionBusUp = true
    private var connections: [Connection] = []
    /// Where the system bus's socket is made when the bus starts.
    static let systemBusSocket = "/run/dbus/system_bus_socket"
    /// The running daemon's buses, whose loop hears the socket made (its inotify).
    private weak var daemonBuses: Buses?
    /// logind's and each screensaver's unique names, new at each start.
    private var generation = 100

    init() {}

    /// The lock watch's buses for a daemon on `loop`.
    func buses(loop: any Loop) -> any LockBuses {
        let buses = Buses(session: self, loop: loop)
        self.daemonBuses = buses
        return buses
    }

    /// The daemon's process died: its connections with it.
    func detach() {
        for connection in self.connections { connection.open = false }
        self.connections = []
    }

    /// A new boot: logind starts again, the session unlocked, no screensaver yet.
    func reboot() {
        self.detach()
        self.logindRuns = true
        self.lockedHint = false
        self.savers = [:]
        self.systemBusUp = true
        self.sessionBusUp = true
    }

    /// The system bus (or the session bus) goes down: each connection to it drops, and its owner
    /// hears so; no new connection is taken until `busBack`. What runs on it keeps its state.
    public func busGoes(system: Bool) {
        if system { self.systemBusUp = false } else { self.sessionBusUp = false }
        let dropped = self.connections.filter { $0.system == system }
        self.connections.removeAll { $0.system == system }
        for connection in dropped { connection.drop() }
    }

    /// The bus takes connections again; the system bus's socket is made anew, and inotify says so.
    public func busBack(system: Bool) {
        guard system else {
            self.sessionBusUp = true
            return
        }
        let wasUp = self.systemBusUp
        self.systemBusUp = true
        guard !wasUp else { return }
        self.daemonBuses?.systemBusSocketMade()
    }

    // MARK: What a locker does

    /// The session's locker tells logind locked or unlocked (`SetLockedHint`); logind starts
    /// first where it had gone.
    public func setLockedHint(_ locked: Bool) {
        let changed = self.lockedHint != locked
        self.lockedHint = locked
        if !self.logindRuns {
            self.logindRuns = true
            self.signal(.logindOwner(self.uniqueName()))
        } else if changed {
            // logind says a property changed only when it did.
            self.signal(.lockedHint(self.sessionPath, locked))
        }
    }

    /// She logs out and in again: the user's graphical session is a new one, unlocked (logind
    /// says the user's `Display` changed); the old session's object is gone.
    public func newSession() {
        self.sessions += 1
        self.sessionPath = "/org/freedesktop/login1/session/_\(self.sessions)"
        self.lockedHint = false
        guard self.logindRuns else { return }
        self.signal(.display(Self.userPath))
    }

    /// logind goes away: nothing it said holds.
    public func logindExits() {
        guard self.logindRuns else { return }
        self.logindRuns = false
        self.signal(.logindOwner(nil))
    }

    /// logind asks the session's locker to lock (true) or unlock: a request, which only a
    /// locker's answer carries out. None while logind is away.
    public func request(lock: Bool) {
        guard self.logindRuns else { return }
        self.signal(.lockRequest(self.sessionPath, lock))
    }

    /// A screensaver interface becomes active (true) or inactive; one that did not run starts.
    public func screenSaver(_ interface: ScreenSaverInterface, active: Bool) {
        let name = interface.interfaceName
        let before = self.savers[name]
        self.savers[name] = active
        if before == nil {
            self.signal(.saverOwner(name, self.uniqueName()))
        } else if before != active {
            self.signal(.saverActive(name, active))
        }
    }

    /// A screensaver interface's owner goes away (a locker that crashed).
    public func screenSaverExits(_ interface: ScreenSaverInterface) {
        guard self.savers.removeValue(forKey: interface.interfaceName) != nil else { return }
        self.signal(.saverOwner(interface.interfaceName, nil))
    }

    private func uniqueName() -> String {
        self.generation += 1
        return ":1.\(self.generation)"
    }

    private func signal(_ signal: Signal) {
        for connection in self.connections { connection.deliver(signal) }
    }

    // MARK: The buses

    enum Signal {
        case logindOwner(String?)
        /// The user's `Display` property changed (only invalidated: the watch asks again).
        case display(String)
        case lockedHint(String, Bool)
        case lockRequest(String, Bool)
        case saverOwner(String, String?)
        case saverActive(String, Bool)
    }

    /// A match the watch keeps: it hears while it is kept.
    final class Match {
        let hears: (Signal) -> Void

        init(_ hears: @escaping (Signal) -> Void) {
            self.hears = hears
        }
    }

    struct WeakMatch {
        weak var match: Match?
    }

    final class Buses: LockBuses {
        private unowned let session: FakeSessionLock
        private let loop: any Loop

        init(session: FakeSessionLock, loop: any Loop) {
            self.session = session
            self.loop = loop
        }

        var systemBusSocket: String? { FakeSessionLock.systemBusSocket }

        /// The kernel's inotify for the socket's directory, on the daemon's loop.
        func systemBusSocketMade() {
            let socket = FakeSessionLock.systemBusSocket
            guard let loop = self.loop as? ManualLoop else { return }
            loop.changed(path: directory(of: socket), InotifyEvent(mask: .create, name: basename(of: socket)))
        }

        func openSystem(lost: @escaping () -> Void) throws(Errno) -> any LogindPeer {
            guard self.session.systemBusUp else { throw Errno(rawValue: ECONNREFUSED) }
            let connection = Connection(session: self.session, loop: self.loop, system: true, lost: lost)
            self.session.connections.append(connection)
            return connection
        }

        func openSession(lost: @escaping () -> Void) throws(Errno) -> [(ScreenSaverInterface, any ScreenSaverPeer)] {
            guard self.session.sessionBusUp else { throw Errno(rawValue: ECONNREFUSED) }
            let connection = Connection(session: self.session, loop: self.loop, system: false, lost: lost)
            self.session.connections.append(connection)
            return [ScreenSaverInterface.freedesktop, .gnome].map {
                ($0, SaverPeer(connection: connection, name: $0.interfaceName))
            }
        }
    }

    /// One of the watch's connections: its matches, and what is on its way to it.
    final class Connection: LogindPeer {
        unowned let session: FakeSessionLock
        /// Whether it is to the system bus (logind) or the session bus (the screensavers).
        let system: Bool
        /// What its owner hears when the bus drops it.
        private let lost: () -> Void
        /// Replies and signals on their way to the daemon.
        private let delivery: BusDelivery
        private var matches: [WeakMatch] = []

        init(session: FakeSessionLock, loop: any Loop, system: Bool, lost: @escaping () -> Void) {
            self.session = session
            self.system = system
            self.lost = lost
            self.delivery = BusDelivery(loop: loop)
        }

        /// The bus dropped it: what was on its way still arrives, then its owner hears it is lost
        /// (sd-bus's disconnect callback), and nothing more comes.
        func drop() {
            let lost = self.lost
            self.delivery.onLoop(description: "bus-disconnected") { [weak self] in
                self?.open = false
                lost()
            }
        }

        /// False once its process died: nothing reaches it any more.
        var open: Bool {
            get { self.delivery.open }
            set { self.delivery.open = newValue }
        }

        private func onLoop(_ work: @escaping () -> Void) {
            self.delivery.onLoop(description: "lock-bus-message", work)
        }

        /// A method's answer: at once for a start-up ask, else on the loop.
        func answer<T>(
            _ blockingFor: UInt64?, _ completion: @escaping (Result<T, BusError>) -> Void, _ result: Result<T, BusError>
        ) {
            if blockingFor != nil {
                completion(result)
            } else {
                self.onLoop { completion(result) }
            }
        }

        func deliver(_ signal: Signal) {
            self.matches.removeAll { $0.match == nil }
            // A match dropped before the signal is dispatched hears nothing, as a slot sd-bus freed.
            let now = self.matches
            self.onLoop {
                for weak in now { weak.match?.hears(signal) }
            }
        }

        func match(_ hears: @escaping (Signal) -> Void) -> Match {
            let match = Match(hears)
            self.matches.append(WeakMatch(match: match))
            return match
        }

        static let noLogind = BusError(
            name: BusError.serviceUnknown, message: "The name org.freedesktop.login1 was not provided",
            errno: EHOSTUNREACH)

        // MARK: LogindPeer

        func onOwnerChanged(_ handler: @escaping (String?) -> Void) throws(Errno) -> AnyObject {
            self.match { if case .logindOwner(let owner) = $0 { handler(owner) } }
        }

        func getUser(uid: UInt32, blockingFor: UInt64?, completion: @escaping (Result<String, BusError>) -> Void) {
            self.answer(
                blockingFor, completion,
                self.session.logindRuns ? .success(FakeSessionLock.userPath) : .failure(Self.noLogind))
        }

        func display(user: String, blockingFor: UInt64?, completion: @escaping (Result<String?, BusError>) -> Void) {
            self.answer(
                blockingFor, completion,
                self.session.logindRuns ? .success(self.session.sessionPath) : .failure(Self.noLogind))
        }

        func onDisplayChanged(user: String, _ handler: @escaping (String??) -> Void) throws(Errno) -> AnyObject {
            self.match { if case .display(user) = $0 { handler(.none) } }
        }

        func lockedHint(session: String, blockingFor: UInt64?, completion: @escaping (Result<Bool, BusError>) -> Void) {
            let result: Result<Bool, BusError> =
                !self.session.logindRuns
                ? .failure(Self.noLogind)
                : session != self.session.sessionPath
                    ? .failure(
                        BusError(
                            name: "org.freedesktop.DBus.Error.UnknownObject",
                            message: "Unknown object '\(session)'.", errno: ENOENT))
                    : .success(self.session.lockedHint)
            self.answer(blockingFor, completion, result)
        }

        func onLockedHintChanged(session: String, _ handler: @escaping (Bool?) -> Void) throws(Errno) -> AnyObject {
            self.match { if case .lockedHint(session, let locked) = $0 { handler(locked) } }
        }

        func onLockRequests(session: String, _ handler: @escaping (Bool) -> Void) throws(Errno) -> [AnyObject] {
            [self.match { if case .lockRequest(session, let lock) = $0 { handler(lock) } }]
        }
    }

    /// One screensaver interface on a session connection.
    final class SaverPeer: ScreenSaverPeer {
        private let connection: Connection
        private let name: String

        init(connection: Connection, name: String) {
            self.connection = connection
            self.name = name
        }

        func getActive(blockingFor: UInt64?, completion: @escaping (Result<Bool, BusError>) -> Void) {
            let result: Result<Bool, BusError> =
                self.connection.session.savers[self.name].map { .success($0) }
                ?? .failure(
                    BusError(
                        name: BusError.serviceUnknown, message: "The name \(self.name) was not provided",
                        errno: EHOSTUNREACH))
            self.connection.answer(blockingFor, completion, result)
        }

        func onActiveChanged(_ handler: @escaping (Bool) -> Void) throws(Errno) -> AnyObject {
            let name = self.name
            return self.connection.match { if case .saverActive(name, let active) = $0 { handler(active) } }
        }

        func onOwnerChanged(_ handler: @escaping (String?) -> Void) throws(Errno) -> AnyObject {
            let name = self.name
            return self.connection.match { if case .saverOwner(name, let owner) = $0 { handler(owner) } }
        }
    }
}

@available(*, unavailable)
extension FakeSessionLock: Sendable {}
