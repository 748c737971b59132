// A locked tablet is away, whatever the display state file says and without the app's help.
// Locked is what a locker says: logind's `LockedHint` of the user's graphical session
// (Manager.GetUser(uid) -> the user's `Display` session, which a lingering user's service reaches
// even in no session of its own) on the system bus, and `org.freedesktop.ScreenSaver` and
// `org.gnome.ScreenSaver` on the session bus. logind's `Lock`/`Unlock` requests are followed
// too, as requests (the core's `ScreenLock` never lets one lock). This file only reads the
// buses, on connections of its own (`LockBuses`: sd-bus's, or the embedded world's fake
// session). At start-up each locker is asked before the first decision (bounded waits);
// afterwards every step is one asynchronous call or a signal. A missing
// logind, user, session or screensaver is said once in the journal and leaves the file alone
// to decide. A bus that drops is tried again with the daemon's Reconnector; a system bus missing
// at start-up is connected when its socket appears.

import DaysomeCore
import DaysomeFiles
import Glibc
import SystemdKit

/// Reads the session's lock state from logind and the screensavers into `changed` calls.
final class LockWatch {
    /// What `changed` is told: a source's new word (nil: it has nothing to say).
    typealias Changed = (LockSource, Bool?) -> Void

    /// How long start-up waits for each locker's answer: a locker that hangs delays the first
    /// decision by this much per call (five calls at most), never more.
    static let startupWait: UInt64 = 500_000

    /// A logind object the watch follows, by path: a reply or signal for one it no longer
    /// follows (the session changed meanwhile) is dropped, by identity.
    private final class Followed {
        let path: String

        init(_ path: String) {
            self.path = path
        }
    }

    private let loop: any Loop
    private let buses: any LockBuses
    private let logger: Logger
    private let uid: UInt32
    private let changed: Changed
    private var logind: (any LogindPeer)?
    private var systemReconnector: Reconnector?
    /// The system bus socket's directory, watched while a bus missing at start-up is awaited.
    private var systemBusWatch: (any LoopSource)?
    private var sessionReconnector: Reconnector?
    private var user: Followed?
    private var session: Followed?
    private var logindOwner: AnyObject?
    private var userMatch: AnyObject?
    private var sessionMatch: AnyObject?
    /// logind's Lock and Unlock requests of the session: requests to a locker, for status.
    private var lockRequestMatches: [AnyObject] = []
    private var screenSavers: [ScreenSaverWatch] = []
    /// Why each source is or is not watched, for `status`.
    private(set) var detail: [LockSource: String] = [:]
    /// Each reason is said once in the journal, so that nothing here can become a log loop.
    private var said: Set<String> = []
    /// Set while `start` runs: each ask waits this long for its answer instead of going on the loop.
    private var blockingFor: UInt64?

    init(loop: any Loop, buses: any LockBuses, logger: Logger, uid: UInt32, changed: @escaping Changed) {
        self.loop = loop
        self.buses = buses
        self.logger = logger
        self.uid = uid
        self.changed = changed
        for source in LockSource.allCases { self.detail[source] = "not started" }
    }

    /// Starts every source, and returns once each locker answered, failed or timed out: what
    /// they said has reached `changed` by then. A system bus missing now is connected when its
    /// socket appears; a session bus missing now is not tried again. Meanwhile the file decides.
    func start() {
        self.blockingFor = Self.startupWait
        defer { self.blockingFor = nil }
        do {
            try self.connectSystemBus()
        } catch {
            self.nothingFrom(.logind, "no system bus (\(error))")
            self.nothingFrom(.logindLockSignal, "no system bus (\(error))")
            self.awaitSystemBus()
        }
        do {
            try self.connectSessionBus()
        } catch {
            self.nothingFrom(.screenSaver, "no session bus (\(error))")
            self.nothingFrom(.gnomeScreenSaver, "no session bus (\(error))")
        }
    }

    /// The bus dropped (dbus restarted): nothing to say until it is back, then ask again. The old
    /// connection's matches stay until the reconnect replaces them: this runs inside its dispatch.
    private func lost(_ source: LockSource) {
        if source == .logind {
            self.forgetSession()
            self.user = nil
            self.systemBusReconnector().lost()
            self.nothingFrom(.logind, "lost the system bus")
        } else {
            if self.sessionReconnector == nil {
                self.sessionReconnector = Reconnector(
                    loop: self.loop, logger: self.logger, peer: "session bus (screen lock)"
                ) {
                    [weak self] in (try? self?.connectSessionBus()) != nil
                }
            }
            self.sessionReconnector?.lost()
            self.nothingFrom(.screenSaver, "lost the session bus")
            self.nothingFrom(.gnomeScreenSaver, "lost the session bus")
        }
    }

    /// Watches the directory of the system bus's socket, so that a bus that starts after the
    /// daemon (a daemon restarted while dbus was away) is followed the moment its socket is made.
    /// inotify, not a timer: a machine that has no system bus at all costs no wakeups.
    private func awaitSystemBus() {
        guard let socket = self.buses.systemBusSocket else { return }
        let name = basename(of: socket)
        do {
            self.systemBusWatch = try self.loop.inotify(
                path: directory(of: socket), mask: [.create, .movedTo], description: "system-bus-socket"
            ) { [weak self] event in
                if event.name == name { self?.systemBusAppeared() }
            }
        } catch {
            self.logger.log(
                .info,
                "Screen lock: cannot watch '\(directory(of: socket))' for the system bus (\(error)); "
                    + "logind is followed after the daemon's next start")
        }
    }

    /// The system bus's socket was made: connect, and follow logind from now on. A socket made
    /// but not listening yet refuses the first connect; the reconnect's backoff tries again.
    private func systemBusAppeared() {
        self.systemBusWatch?.cancel()
        self.systemBusWatch = nil
        self.logger.log(.notice, "Screen lock: the system bus appeared; following logind")
        do {
            try self.connectSystemBus()
        } catch {
            self.systemBusReconnector().failed()
        }
    }

    private func systemBusReconnector() -> Reconnector {
        if let reconnector = self.systemReconnector { return reconnector }
        let reconnector = Reconnector(loop: self.loop, logger: self.logger, peer: "system bus") {
            [weak self] in (try? self?.connectSystemBus()) != nil
        }
        self.systemReconnector = reconnector
        return reconnector
    }

    // MARK: logind

    /// Opens the system bus as sd-bus finds it and starts asking logind.
    private func connectSystemBus() throws(Errno) {
        let logind = try self.buses.openSystem { [weak self] in self?.lost(.logind) }
        self.logind = logind
        // logind restarted: its objects are new; gone: it has nothing to say.
        self.logindOwner = try? logind.onOwnerChanged { [weak self] owner in
            guard let self else { return }
            if owner == nil {
                self.forgetSession()
                self.nothingFrom(.logind, "logind went away")
            } else {
                self.askUser(logind)
            }
        }
        self.askUser(logind)
    }

    private func askUser(_ logind: any LogindPeer) {
        logind.getUser(uid: self.uid, blockingFor: self.blockingFor) { [weak self] result in
            guard let self, self.logind === logind else { return }
            switch result {
            case .success(let path):
                let user = Followed(path)
                self.user = user
                // Installed before the first read, so that no change falls between the two.
                self.userMatch = try? logind.onDisplayChanged(user: path) { [weak self] _ in self?.askDisplay() }
                self.askDisplay()
            case .failure(let error):
                self.nothingFrom(.logind, "logind has no user \(self.uid) (\(error))")
                self.nothingFrom(.logindLockSignal, "logind has no user \(self.uid) (\(error))")
            }
        }
    }

    private func askDisplay() {
        guard let user = self.user, let logind = self.logind else { return }
        logind.display(user: user.path, blockingFor: self.blockingFor) { [weak self] result in
            guard let self, self.user === user else { return }
            switch result {
            case .success(let path?):
                self.follow(session: path, logind: logind)
            case .success(nil):
                self.forgetSession()
                self.nothingFrom(.logind, "user \(self.uid) has no graphical session")
            case .failure(let error):
                self.forgetSession()
                self.nothingFrom(.logind, "logind did not say user \(self.uid)'s session (\(error))")
            }
        }
    }

    private func follow(session path: String, logind: any LogindPeer) {
        guard self.session?.path != path else { return }
        let session = Followed(path)
        self.session = session
        self.sessionMatch = try? logind.onLockedHintChanged(session: path) { [weak self] locked in
            guard let self, self.session === session else { return }
            if let locked {
                self.report(.logind, locked, "session \(path)")
            } else {
                self.askLocked()
            }
        }
        // A request asks the session's locker to lock or unlock; only a locker's own word locks
        // (a kiosk has none, and Phosh's keypad unlocks with no Unlock). A request is a signal,
        // not a state logind keeps, and none from before this daemon started is remembered.
        do {
            self.lockRequestMatches = try logind.onLockRequests(session: path) { [weak self] locked in
                guard let self, self.session === session else { return }
                self.logger.log(
                    .notice,
                    locked
                        ? "Lock requested for session \(path); only a locker's answer makes the display away"
                        : "Unlock requested for session \(path)")
                self.report(.logindLockSignal, locked, "following Lock and Unlock requests for session \(path)")
            }
            self.report(.logindLockSignal, false, "following Lock and Unlock requests for session \(path)")
        } catch {
            self.nothingFrom(.logindLockSignal, "could not follow Lock and Unlock requests for \(path) (\(error))")
        }
        self.askLocked()
    }

    private func askLocked() {
        guard let session = self.session, let logind = self.logind else { return }
        logind.lockedHint(session: session.path, blockingFor: self.blockingFor) { [weak self] result in
            guard let self, self.session === session else { return }
            switch result {
            case .success(let locked):
                self.report(.logind, locked, "session \(session.path)")
            case .failure(let error):
                self.nothingFrom(.logind, "logind did not say whether \(session.path) is locked (\(error))")
            }
        }
    }

    private func forgetSession() {
        self.session = nil
        self.sessionMatch = nil
        self.lockRequestMatches = []
        self.detail[.logindLockSignal] = "no graphical session to follow"
        self.changed(.logindLockSignal, nil)
    }

    // MARK: The screensavers

    /// Opens a session bus connection of its own (the notifier's may be absent or reconnecting)
    /// and starts following both screensaver interfaces.
    private func connectSessionBus() throws(Errno) {
        let savers = try self.buses.openSession { [weak self] in self?.lost(.screenSaver) }
        self.screenSavers = savers.map { interface, saver in
            let (source, label) =
                interface == .gnome
                ? (LockSource.gnomeScreenSaver, "GNOME screensaver") : (LockSource.screenSaver, "screensaver")
            return ScreenSaverWatch(
                saver, name: interface.interfaceName, label: label, blockingFor: self.blockingFor
            ) {
                [weak self] locked, detail in
                if let locked {
                    self?.report(source, locked, detail)
                } else {
                    self?.nothingFrom(source, detail)
                }
            }
        }
    }

    // MARK: Reporting

    private func report(_ source: LockSource, _ locked: Bool, _ detail: String) {
        self.detail[source] = detail
        self.changed(source, locked)
    }

    private func nothingFrom(_ source: LockSource, _ reason: String) {
        self.detail[source] = reason
        if self.said.insert(reason).inserted {
            self.logger.log(
                .info, "Screen lock: \(reason); the display state file alone decides for \(source.rawValue)")
        }
        self.changed(source, nil)
    }
}

extension Manager {
    /// Starts following the session's lock, and returns once each locker has answered (or the
    /// bounded start-up wait passed): `run` calls it before the first decision reads the file.
    func watchLock() {
        // An older daemon kept logind's Lock request here across a restart; a request never
        // locks now, and one from before a restart means nothing.
        do {
            try self.disk.removeFile(self.options.paths.lockRequestFile)
        } catch {
            if error.errno != ENOENT {
                self.logger.log(
                    .warning,
                    "Failed to remove '\(self.options.paths.lockRequestFile)': errno \(error.errno ?? 0), ignoring")
            }
        }
        let watch = LockWatch(loop: self.loop, buses: self.peers.lockBuses, logger: self.logger, uid: getuid()) {
            [weak self] source, locked in
            self?.lockChanged(source, locked)
        }
        self.lockWatch = watch
        watch.start()
    }

    /// A source's new word, for the machine to combine (`DaemonMachine.lockSaid`: while locked
    /// the display is away; on unlock the file, read afresh, decides again). Before the first
    /// decision the word is only recorded: that decision reads the file and combines the two.
    func lockChanged(_ source: LockSource, _ locked: Bool?) {
        let hadRequest = self.machine.screenLock.request
        // Most words change nothing (a screensaver saying active again): nothing to execute, so
        // no step, and no retry of a state write that is behind.
        let actions = self.machine.lockSaid(source, locked, at: self.clock.realtime())
        if !actions.isEmpty { self.execute(actions) }
        guard self.decided else { return }
        if self.machine.screenLock.request != hadRequest { self.armLockRequestTimer() }
        self.publish()
    }

    /// Arms (or disarms) the one timer that republishes status when a Lock request's answer
    /// window closes: status then says no locker answered. Nothing polls meanwhile.
    func armLockRequestTimer() {
        do {
            guard let deadline = self.machine.screenLock.requestDeadline else {
                try self.lockRequestTimer?.setEnabled(.off)
                return
            }
            if let timer = self.lockRequestTimer {
                try timer.setTime(deadline)
                try timer.setEnabled(.oneshot)
            } else {
                self.lockRequestTimer = try self.loop.timer(
                    clock: CLOCK_REALTIME, at: deadline, description: "lock-request"
                ) { [weak self] in self?.lockRequestWindowClosed() }
            }
        } catch {
            self.logger.log(.error, "Failed to arm the lock request timer: \(error), ignoring")
        }
    }

    /// The 2 s a locker had to answer a Lock request are over.
    func lockRequestWindowClosed() {
        if let request = self.machine.screenLock.request, request.state(now: self.clock.realtime()) == .unanswered {
            self.logger.log(
                .notice, "No locker answered the Lock request: nothing is locked, the display state file decides")
        }
        self.publish()
    }

    /// `status`'s `lock` object: whether the session is locked, what the file says, each source,
    /// and a Lock request that stands.
    var lockStatus: StatusSnapshot.Lock {
        var sources: [LockSource: StatusSnapshot.Lock.Source] = [:]
        for source in LockSource.allCases {
            let locked = self.machine.screenLock.locked(by: source)
            sources[source] = StatusSnapshot.Lock.Source(
                watched: locked != nil, locked: locked, detail: self.lockWatch?.detail[source])
        }
        let request = self.machine.screenLock.request.map { request in
            let state: StatusSnapshot.Lock.Request.State
            var answeredBy: LockSource?
            switch request.state(now: self.clock.realtime()) {
            case .waiting: state = .waiting
            case .unanswered: state = .unanswered
            case .answered(let by):
                state = .answered
                answeredBy = by
            }
            return StatusSnapshot.Lock.Request(
                at: Instant(seconds: Int64(request.at / 1_000_000)), state: state, answeredBy: answeredBy)
        }
        return StatusSnapshot.Lock(
            locked: self.machine.screenLock.locked, fileSays: self.machine.screenLock.file, sources: sources,
            decidedBy: self.machine.screenLock.decidedBy, request: request)
    }
}
