// A locked tablet is away, whatever the display state file says and without the app's help:
// the daemon follows logind's `LockedHint` of the user's graphical session (Manager.GetUser(uid)
// -> the user's `Display` session, which a lingering user's service reaches even in no session
// of its own) on the system bus, and the screensaver's `ActiveChanged` on the session bus where
// a desktop offers it. The core's `ScreenLock` combines what they say with the file; this file
// only reads the buses, on connections of its own. Every step is one asynchronous call or a
// signal: a missing logind, user, session or screensaver is said once in the journal and leaves
// the file alone to decide. A bus that drops is tried again with the daemon's Reconnector.

import DaysomeCore
import DaysomeFiles
import Glibc
import SystemdKit

/// Reads the session's lock state from logind and the screensaver into `changed` calls.
final class LockWatch {
    /// What `changed` is told: a source's new word (nil: it has nothing to say).
    typealias Changed = (LockSource, Bool?) -> Void

    private let loop: EventLoop
    private let logger: Logger
    private let uid: UInt32
    private let changed: Changed
    /// Where a standing Lock request is kept across a daemon restart (`Paths.lockRequestFile`).
    private let lockRequestFile: String
    private var systemBus: Bus?
    private var systemDisconnected: BusSlot?
    private var systemReconnector: Reconnector?
    private var sessionBus: Bus?
    private var sessionDisconnected: BusSlot?
    private var sessionReconnector: Reconnector?
    private var user: LogindUser?
    private var session: LogindSession?
    private var logindOwner: BusSlot?
    private var userMatch: BusSlot?
    private var sessionMatch: BusSlot?
    /// logind's Lock and Unlock requests of the session: a kiosk's only word that it was locked.
    private var lockRequestMatches: [BusSlot] = []
    private var screenSaver: ScreenSaver?
    private var screenSaverMatch: BusSlot?
    private var screenSaverOwner: BusSlot?
    /// Why each source is or is not watched, for `status`.
    private(set) var detail: [LockSource: String] = [:]
    /// What LockedHint said last.
    private var lockedHint: Bool?
    /// Each reason is said once in the journal, so that nothing here can become a log loop.
    private var said: Set<String> = []

    init(loop: EventLoop, logger: Logger, uid: UInt32, lockRequestFile: String, changed: @escaping Changed) {
        self.lockRequestFile = lockRequestFile
        self.loop = loop
        self.logger = logger
        self.uid = uid
        self.changed = changed
        self.detail = [.logind: "not started", .screenSaver: "not started", .logindLockSignal: "not started"]
    }

    /// Starts both sources. A bus missing now is not tried again: the file alone decides.
    func start() {
        do {
            try self.connectSystemBus()
        } catch {
            self.nothingFrom(.logind, "no system bus (\(error))")
        }
        do {
            try self.connectSessionBus()
        } catch {
            self.nothingFrom(.screenSaver, "no session bus (\(error))")
        }
    }

    /// The bus dropped (dbus restarted): nothing to say until it is back, then ask again. The old
    /// connection's matches stay until the reconnect replaces them: this runs inside its dispatch.
    private func lost(_ source: LockSource) {
        if source == .logind {
            self.forgetSession()
            self.user = nil
            if self.systemReconnector == nil {
                self.systemReconnector = Reconnector(loop: self.loop, logger: self.logger, peer: "system bus") {
                    [weak self] in (try? self?.connectSystemBus()) != nil
                }
            }
            self.systemReconnector?.lost()
        } else {
            if self.sessionReconnector == nil {
                self.sessionReconnector = Reconnector(
                    loop: self.loop, logger: self.logger, peer: "session bus (screen lock)"
                ) {
                    [weak self] in (try? self?.connectSessionBus()) != nil
                }
            }
            self.sessionReconnector?.lost()
        }
        self.nothingFrom(source, "lost the \(source == .logind ? "system" : "session") bus")
    }

    // MARK: logind

    /// Opens the system bus as sd-bus finds it and starts asking logind.
    private func connectSystemBus() throws(Errno) {
        let bus = try Bus.openSystem()
        try bus.attach(to: self.loop)
        self.systemDisconnected = try bus.onDisconnected { [weak self] in self?.lost(.logind) }
        self.systemBus = bus
        let manager = LogindManager(bus: bus)
        // logind restarted: its objects are new; gone: it has nothing to say.
        self.logindOwner = try? manager.onOwnerChanged { [weak self] owner in
            guard let self else { return }
            if owner == nil {
                self.forgetSession()
                self.nothingFrom(.logind, "logind went away")
            } else {
                self.askUser(manager)
            }
        }
        self.askUser(manager)
    }

    private func askUser(_ manager: LogindManager) {
        manager.getUser(uid: self.uid) { [weak self] result in
            guard let self else { return }
            switch result {
            case .success(let path):
                let user = LogindUser(bus: manager.bus, path: path)
                self.user = user
                // Installed before the first read, so that no change falls between the two.
                self.userMatch = try? user.onDisplayChanged { [weak self] _ in self?.askDisplay() }
                self.askDisplay()
            case .failure(let error):
                self.nothingFrom(.logind, "logind has no user \(self.uid) (\(error))")
            }
        }
    }

    private func askDisplay() {
        guard let user = self.user else { return }
        user.display { [weak self] result in
            guard let self, self.user === user else { return }
            switch result {
            case .success(let path?):
                self.follow(session: path, bus: user.bus)
            case .success(nil):
                self.forgetSession()
                self.nothingFrom(.logind, "user \(self.uid) has no graphical session")
            case .failure(let error):
                self.forgetSession()
                self.nothingFrom(.logind, "logind did not say user \(self.uid)'s session (\(error))")
            }
        }
    }

    private func follow(session path: String, bus: Bus) {
        guard self.session?.path != path else { return }
        let session = LogindSession(bus: bus, path: path)
        self.session = session
        self.sessionMatch = try? session.onLockedHintChanged { [weak self] locked in
            guard let self, self.session === session else { return }
            if let locked {
                self.report(.logind, locked, "session \(path)")
            } else {
                self.askLocked()
            }
        }
        // Without a locker (a kiosk), `loginctl lock-session` changes no LockedHint: the request
        // itself says the display is out of her sight until logind asks to unlock.
        do {
            self.lockRequestMatches = try session.onLockRequests { [weak self] locked in
                guard let self, self.session === session else { return }
                self.keepLockRequest(locked ? path : nil)
                self.report(.logindLockSignal, locked, "\(locked ? "Lock" : "Unlock") requested for session \(path)")
            }
            // A request is a signal, not a state logind keeps: one that stood when this daemon
            // was restarted (an upgrade while the kiosk was locked) is read back from the runtime
            // directory, for this session only.
            if self.keptLockRequest() == path {
                self.report(.logindLockSignal, true, "Lock requested for session \(path) before this daemon started")
            } else {
                self.keepLockRequest(nil)
                self.report(.logindLockSignal, false, "following Lock and Unlock requests for session \(path)")
            }
        } catch {
            self.nothingFrom(.logindLockSignal, "could not follow Lock and Unlock requests for \(path) (\(error))")
        }
        self.askLocked()
    }

    private func keptLockRequest() -> String? {
        guard let bytes = try? FileIO.read(self.lockRequestFile, limit: 4_096, followLinks: false) else { return nil }
        let text = String(decoding: bytes, as: UTF8.self)
        return text.hasSuffix("\n") ? String(text.dropLast()) : text
    }

    private func keepLockRequest(_ session: String?) {
        do {
            if let session {
                try FileIO.writeAtomically(self.lockRequestFile, session + "\n")
            } else if unlink(self.lockRequestFile) != 0 && errno != ENOENT {
                self.logger.log(.warning, "Failed to remove \(self.lockRequestFile): errno \(errno)")
            }
        } catch {
            self.logger.log(.warning, "Failed to keep the Lock request in \(self.lockRequestFile): \(error)")
        }
    }

    private func askLocked() {
        guard let session = self.session else { return }
        session.lockedHint { [weak self] result in
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

    // MARK: The screensaver

    /// Opens a session bus connection of its own (the notifier's may be absent or reconnecting)
    /// and starts following the screensaver.
    private func connectSessionBus() throws(Errno) {
        let bus = try Bus.openUser()
        try bus.attach(to: self.loop)
        self.sessionDisconnected = try bus.onDisconnected { [weak self] in self?.lost(.screenSaver) }
        self.sessionBus = bus
        let saver = ScreenSaver(bus: bus)
        self.screenSaver = saver
        self.screenSaverMatch = try? saver.onActiveChanged { [weak self] active in
            self?.report(.screenSaver, active, "org.freedesktop.ScreenSaver")
        }
        // A locker that crashed while active must not hold the display away for ever.
        self.screenSaverOwner = try? saver.onOwnerChanged { [weak self] owner in
            if owner == nil {
                self?.nothingFrom(.screenSaver, "the screensaver went away")
            } else {
                self?.askActive()
            }
        }
        self.askActive()
    }

    private func askActive() {
        self.screenSaver?.getActive { [weak self] result in
            switch result {
            case .success(let active):
                self?.report(.screenSaver, active, "org.freedesktop.ScreenSaver")
            case .failure(let error):
                let reason =
                    error.name == BusError.serviceUnknown || error.name == BusError.nameHasNoOwner
                    ? "no screensaver on the session bus" : "the screensaver did not answer (\(error))"
                self?.nothingFrom(.screenSaver, reason)
            }
        }
    }

    // MARK: Reporting

    private func report(_ source: LockSource, _ locked: Bool, _ detail: String) {
        // A locker unlocked on her password (LockedHint from true to false, no Unlock request):
        // the request it answered is over, here as in ScreenLock.
        if source == .logind, !locked, self.lockedHint == true {
            self.keepLockRequest(nil)
            // Its detail follows, or status would go on saying "Lock requested" beside "unlocked".
            if let session = self.session, self.detail[.logindLockSignal]?.hasPrefix("Lock requested") == true {
                self.detail[.logindLockSignal] =
                    "the Lock request for session \(session.path) ended when the locker unlocked"
            }
        }
        if source == .logind { self.lockedHint = locked }
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
    /// Starts following the session's lock (a few lines in `run`).
    func watchLock() {
        let watch = LockWatch(
            loop: self.loop, logger: self.logger, uid: getuid(), lockRequestFile: self.options.paths.lockRequestFile
        ) { [weak self] source, locked in
            self?.lockChanged(source, locked)
        }
        self.lockWatch = watch
        watch.start()
    }

    /// A source's new word: while locked the display is away; on unlock the file decides again.
    /// The file is read afresh at each change (its word is kept for status while locked), since
    /// it may have been written while the session was locked.
    func lockChanged(_ source: LockSource, _ locked: Bool?) {
        let wasLocked = self.screenLock.locked
        _ = self.screenLock.source(source, says: locked)
        if wasLocked != self.screenLock.locked {
            self.logger.log(
                .notice,
                self.screenLock.locked
                    ? "The session is locked (\(source.rawValue)); the display is away"
                    : "The session is unlocked; the display state file decides again")
            self.handle(.display(self.readDisplay(startup: false) ?? self.screenLock.file))
        }
        self.publish()
    }

    /// `status`'s `lock` object: whether the session is locked, what the file says, and each source.
    var lockStatus: StatusSnapshot.Lock {
        var sources: [LockSource: StatusSnapshot.Lock.Source] = [:]
        for source in LockSource.allCases {
            let locked = self.screenLock.locked(by: source)
            sources[source] = StatusSnapshot.Lock.Source(
                watched: locked != nil, locked: locked, detail: self.lockWatch?.detail[source])
        }
        return StatusSnapshot.Lock(
            locked: self.screenLock.locked, fileSays: self.screenLock.file, sources: sources,
            decidedBy: self.screenLock.decidedBy)
    }
}
