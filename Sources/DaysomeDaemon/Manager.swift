// The daemon's owner object, in the manner of timesyncd's Manager: one sd-event loop, one
// source per watch or timer (re-armed in place, never stacked), and the core's state machine.
// The machine decides; this file only reads the world into events and executes actions.

import DaysomeCore
import DaysomeFiles
import Glibc
import SystemdKit

/// Owns the loop, the watches, the notifier and the machine.
final class Manager {
    let options: DaemonOptions
    let environment: [String: String]
    let logger = Logger()
    let loop: EventLoop
    let publisher: Publisher
    private var machine: DaemonMachine
    private var notifier: (any Notifier)?
    private var bus: Bus?
    private let lock: DaemonLock

    /// The one realtime timer: armed at the wheel's next deadline only.
    private var wheelTimer: EventSource?
    private var displayWatch: EventSource?
    private var householdWatch: EventSource?
    private var zoneWatch: EventSource?
    private var clockWatch: ClockJumpWatch?
    private var displayPid: (pid: Int32, fd: Pidfd, source: EventSource)?
    private var lastDisplayLine: DisplayStateLine?
    private var reloadHousehold: EventSource?
    /// With `--backend systemd`: the manager that holds the starts.
    private var systemd: SystemdBackend?
    private var control: ControlSocket?
    private var managerRetry: EventSource?
    private var managerRetryDelay: UInt64 = 1_000_000
    private var managerDisconnected: BusSlot?
    private var chimePlayer: ChimePlayer?
    private var returner: DisplayReturner?
    /// The sample call of `daysomectl try`, withdrawn after a short while.
    private var sample: (id: UInt32?, close: EventSource?)?

    init(options: DaemonOptions, environment: [String: String]) throws(DaemonError) {
        self.options = options
        self.environment = environment
        let paths = options.paths
        do {
            try preparePrivateDirectory(paths.runtimeDirectory)
            try FileIO.makeDirectories(paths.stateDirectory, mode: 0o700)
            try FileIO.makeDirectories(directory(of: paths.displayState), mode: 0o700)
        } catch {
            throw .setup(error.description)
        }
        do {
            self.lock = try DaemonLock(runtimeDirectory: paths.runtimeDirectory)
        } catch {
            throw .setup("another daysomed already owns '\(paths.runtimeDirectory)' (\(error.reason))")
        }
        do {
            self.loop = try EventLoop()
        } catch {
            throw .setup("Failed to create the event loop: \(error)")
        }
        self.publisher = Publisher(paths: paths)
        let config = MachineConfig(grace: options.grace, startsLiveIn: options.backend == .systemd ? .systemd : .wheel)
        // A daemon killed between lay.json and its history line left the history behind: catch up first.
        let (persisted, caughtUp) = self.publisher.catchUpHistory(Publisher.readPersisted(paths), now: currentInstant())
        for record in caughtUp {
            self.logger.log(.notice, "History caught up at start-up: \(record.event.rawValue) lay \(record.lay)")
        }
        self.machine = DaemonMachine(config: config, persisted: persisted, now: currentInstant())
    }

    /// Runs until SIGTERM or SIGINT; returns the exit status.
    func run() throws(DaemonError) -> Int32 {
        do {
            try self.loop.enableSignalExit()
            _ = try self.loop.setWatchdog(true)
            try self.connectNotifier()
            try self.watch()
            try self.openControlSocket()
            self.chimePlayer = ChimePlayer(
                options: self.options, environment: self.environment, loop: self.loop, logger: self.logger)
            self.returner = DisplayReturner(options: self.options, environment: self.environment, logger: self.logger)
            if self.options.backend == .systemd { try self.connectManager() }
        } catch let error as DaemonError {
            throw error
        } catch {
            throw .setup("\(error)")
        }
        // State before anything else: missing is away, unreadable at start-up is foreground.
        let display = self.readDisplay(startup: true) ?? .foreground
        let household = self.loadHousehold()
        if display == .away, let lay = self.machine.currentLay, let written = self.displayStateWritten(),
            written > lay.handledThrough
        {
            // The display wrote its state after the remembered lay's last handled start, while no
            // daemon ran: she came back (and left again) meanwhile. The display chimed for what fell
            // due then (rule 3), and what was shown must go (rule 1): replay the return, then the away.
            self.logger.log(
                .notice,
                "The display state changed at \(written.rfc3339) while the daemon was stopped; treating it as a return, then an away"
            )
            self.execute(self.machine.start(display: .foreground, household: household, now: currentInstant()))
            self.handle(.display(.away))
        } else {
            self.execute(self.machine.start(display: display, household: household, now: currentInstant()))
        }
        _ = ServiceManager.notify("READY=1\nSTATUS=\(self.statusLine())")
        self.logger.log(
            .info,
            "Started: display \(display.rawValue), backend \(self.options.backend.rawValue), notifier \(self.options.notifier.rawValue)"
        )
        let code: Int32
        do {
            code = try self.loop.run()
        } catch {
            throw .runtime("The event loop failed: \(error)")
        }
        _ = ServiceManager.notify("STOPPING=1")
        self.logger.log(.info, "Stopping")
        return code
    }

    // MARK: Set-up

    private func connectNotifier() throws(DaemonError) {
        switch self.options.notifier {
        case .log:
            self.notifier = LogNotifier(logger: self.logger)
        case .freedesktop:
            do {
                let bus = try Bus.openUser()
                try bus.attach(to: self.loop)
                self.bus = bus
                let notifier = try FreedesktopNotifier(
                    bus: bus, urgency: self.options.doNotDisturb == .override ? 2 : 1,
                    closedByServer: { [weak self] id in self?.handle(.closedByServer(notificationId: id)) },
                    clicked: { [weak self] id in self?.handle(.clicked(notificationId: id)) },
                    restarted: { [weak self] in self?.handle(.serverRestarted) })
                self.notifier = notifier
                if !notifier.server.present {
                    self.logger.log(
                        .warning, "No notification server answers on the session bus yet; calls fail until one does")
                }
            } catch {
                throw .setup(
                    "Failed to connect to the session bus: \(error) (is DBUS_SESSION_BUS_ADDRESS or XDG_RUNTIME_DIR set? --notifier log needs no bus)"
                )
            }
        }
    }

    private func openControlSocket() throws(DaemonError) {
        do {
            self.control = try ControlSocket(path: self.options.paths.controlSocket, loop: self.loop) {
                [weak self] request in
                self?.control(request) ?? "error: stopping"
            }
        } catch {
            throw .setup("\(error)")
        }
    }

    /// Answers one control request: `fire <lay>` from a systemd timer's service, `try` from a carer.
    private func control(_ request: String) -> String {
        if request == "try" { return self.tryCall() }
        let words = request.split(separator: " ")
        guard words.count == 2, words[0] == "fire", let lay = UInt64(words[1]) else {
            return "error: unknown request"
        }
        let before = self.machine.persisted.delivered.count
        self.handle(.fired(lay: lay))
        let delivered = self.machine.persisted.delivered.count > before
        return delivered ? "delivered" : "nothing due for lay \(lay)"
    }

    /// Plays the bell, unless a respected Do Not Disturb holds calls back or no player exists.
    /// Returns what happened, in words for `try` to pass on.
    @discardableResult
    private func playChime() -> String {
        if self.options.doNotDisturb == .respect, (self.notifier as? FreedesktopNotifier)?.isPaused() == true {
            self.logger.log(.info, "The notification server is paused (Do Not Disturb): the bell stays silent")
            return "the bell stays silent: the notification server is paused (Do Not Disturb, --dnd respect)"
        }
        guard let player = self.chimePlayer, player.player != nil else {
            return "no sound player was found (pw-play, paplay, aplay): the bell is silent"
        }
        player.play()
        return "the bell is playing"
    }

    /// `daysomectl try`: one sample call now, withdrawn after ten seconds, so a carer hears what
    /// she will hear. Over the display only the bell plays (rule 1: nothing shown over it).
    private func tryCall() -> String {
        let now = currentInstant()
        let chimeOn = self.machine.household?.load.household.settings.chime != .off
        let sound = chimeOn ? self.playChime() : "the bell is off (settings.chime)"
        guard self.machine.display == .away else {
            return "\(sound); nothing shown, because the day display is in front (rule 1)"
        }
        guard let notifier = self.notifier else { return "\(sound); no notifier" }
        let zone = self.machine.household?.load.household.zone ?? Zone(name: "UTC", rules: .utc)
        let local = zone.local(now)
        let parts = self.machine.household?.load.household.dayParts ?? DayParts()
        let sample = Start(
            at: now, local: local, itemIds: [],
            heading: Content.heading(date: local.date, time: local.clockTime, dayParts: parts),
            title: "Daysome", body: "This is how a call looks and sounds", expiresAt: now.adding(seconds: 10), dst: nil)
        self.sample?.close?.cancel()
        self.sample = (nil, nil)
        notifier.post(sample, now: now) { [weak self] result in
            guard let self, case .success(let id) = result else { return }
            let close = try? self.loop.addTimer(clock: CLOCK_MONOTONIC, after: 10_000_000, description: "try") {
                [weak self] _ in
                self?.notifier?.close(id)
                self?.sample = nil
            }
            self.sample = (id, close)
        }
        return "\(sound); a sample call is shown for ten seconds"
    }

    /// Connects to the user's systemd manager, stops what an earlier daemon left there, and
    /// watches for the connection to drop (the manager restarted: its transient units are gone).
    private func connectManager() throws(DaemonError) {
        do {
            let manager = try SystemdManager.connectUser(runtimeDirectory: self.environment["XDG_RUNTIME_DIR"])
            try manager.bus.attach(to: self.loop)
            if let backend = self.systemd {
                backend.reconnect(manager)
            } else {
                self.systemd = SystemdBackend(
                    manager: manager, logger: self.logger, runtimeDirectory: self.options.paths.runtimeDirectory,
                    environment: self.environment)
            }
            self.managerDisconnected = try manager.bus.addMatch(
                "type='signal',sender='org.freedesktop.DBus.Local',path='/org/freedesktop/DBus/Local',interface='org.freedesktop.DBus.Local',member='Disconnected'"
            ) { [weak self] _ in self?.managerLost() }
        } catch {
            throw .setup(
                "Failed to connect to the systemd user manager: \(error) (is XDG_RUNTIME_DIR set and systemd --user running?)"
            )
        }
        // Whatever an earlier daemon left is stopped; the machine lays the current plan again.
        self.systemd?.stopAll()
    }

    private func managerLost() {
        self.logger.log(.warning, "Lost the connection to the systemd manager; reconnecting")
        self.scheduleManagerRetry()
    }

    private func scheduleManagerRetry() {
        do {
            self.managerRetry = try self.loop.addTimer(
                clock: CLOCK_MONOTONIC, after: self.managerRetryDelay, description: "manager-retry"
            ) {
                [weak self] _ in self?.retryManager()
            }
        } catch {
            self.logger.log(.error, "Failed to arm the manager retry: \(error)")
        }
    }

    private func retryManager() {
        do throws(DaemonError) {
            try self.connectManager()
            self.managerRetryDelay = 1_000_000
            self.logger.log(.notice, "Reconnected to the systemd manager")
            self.handle(.timersLost)
        } catch {
            // Back off to at most five seconds while the manager is away: a re-lay should follow
            // its return within seconds, and one failed connect costs next to nothing.
            self.managerRetryDelay = min(self.managerRetryDelay * 2, 5_000_000)
            self.scheduleManagerRetry()
        }
    }

    private func watch() throws(Errno) {
        let paths = self.options.paths
        self.wheelTimer = try self.loop.addTimer(
            clock: CLOCK_REALTIME, at: UInt64.max, accuracy: 1_000, description: "wheel"
        ) {
            [weak self] _ in self?.wheelTimerFired()
        }
        try self.wheelTimer?.setEnabled(.off)
        let changes: InotifyMask = [.closeWrite, .movedTo, .movedFrom, .delete, .create]
        let displayName = basename(of: paths.displayState)
        self.displayWatch = try self.loop.addInotify(
            path: directory(of: paths.displayState), mask: changes, description: "display-state"
        ) {
            [weak self] _, event in
            if event.name == displayName { self?.displayFileChanged() }
        }
        // The display's return must be seen before a start that is due in the same iteration.
        try self.displayWatch?.setPriority(-10)
        let householdDirectory = directory(of: paths.household)
        try? FileIO.makeDirectories(householdDirectory, mode: 0o755)
        let householdName = basename(of: paths.household)
        self.householdWatch = try self.loop.addInotify(
            path: householdDirectory, mask: changes, description: "household"
        ) {
            [weak self] _, event in
            if event.name == householdName { self?.scheduleHouseholdReload() }
        }
        self.reloadHousehold = try self.loop.addDefer(description: "household-reload") { [weak self] _ in
            self?.householdChanged()
        }
        try self.reloadHousehold?.setEnabled(.off)
        self.clockWatch = try ClockJumpWatch(loop: self.loop) { [weak self] in
            self?.handle(.clockChanged(reason: "the clock jumped"))
        }
        // The system zone: /etc/localtime is replaced by a new symlink when it changes.
        self.zoneWatch = try? self.loop.addInotify(
            path: "/etc", mask: [.closeWrite, .movedTo, .create, .delete], description: "zone"
        ) {
            [weak self] _, event in
            if event.name == "localtime" || event.name == "timezone" { self?.zoneChanged() }
        }
    }

    // MARK: The world, read into events

    private func handle(_ event: MachineEvent) {
        if case .display(.foreground) = event, let sample = self.sample {
            // Rule 1 holds for the carer's sample too.
            if let id = sample.id { self.notifier?.close(id) }
            sample.close?.cancel()
            self.sample = nil
        }
        self.execute(self.machine.handle(event, now: currentInstant()))
    }

    private func wheelTimerFired() {
        // Read the display first: a return written a moment ago wins over the start (rule 1).
        if let display = self.readDisplay(startup: false), display != self.machine.display {
            self.handle(.display(display))
        }
        self.handle(.timer)
    }

    private func displayFileChanged() {
        guard let display = self.readDisplay(startup: false) else { return }
        self.handle(.display(display))
    }

    /// Reads the display state file. Missing means away; an unreadable line is foreground at
    /// start-up and keeps the previous state later (nil). Arms the pid watch when a pid is named.
    private func readDisplay(startup: Bool) -> DisplayState? {
        let path = self.options.paths.displayState
        let line: DisplayStateLine
        do {
            // A symlink planted in place of the state file is refused (ELOOP), not followed.
            let bytes = try FileIO.read(path, limit: 4_096, followLinks: false, regularOnly: true)
            guard let parsed = DisplayStateLine(parsing: String(decoding: bytes, as: UTF8.self)) else {
                self.logger.log(
                    .warning,
                    "Display state file '\(path)' holds neither 'foreground' nor 'away'; \(startup ? "treating it as foreground" : "keeping \(self.machine.display.rawValue)")"
                )
                return startup ? .foreground : nil
            }
            line = parsed
        } catch {
            if error.errno == ENOENT { return self.setDisplayLine(DisplayStateLine(state: .away)) }
            self.logger.log(
                .warning,
                "\(error); \(startup ? "treating the display as foreground" : "keeping \(self.machine.display.rawValue)")"
            )
            return startup ? .foreground : nil
        }
        return self.setDisplayLine(line)
    }

    /// When the display state file was last written (its mtime), or nil when it is missing.
    private func displayStateWritten() -> Instant? {
        var info = stat()
        guard lstat(self.options.paths.displayState, &info) == 0 else { return nil }
        return Instant(seconds: Int64(info.st_mtim.tv_sec))
    }

    private func setDisplayLine(_ line: DisplayStateLine) -> DisplayState {
        self.lastDisplayLine = line
        guard line.state == .foreground, let pid = line.pid else {
            self.displayPid?.source.cancel()
            self.displayPid = nil
            return line.state
        }
        if self.displayPid?.pid == pid { return .foreground }
        self.displayPid?.source.cancel()
        self.displayPid = nil
        do {
            let fd = try Pidfd.open(pid: pid)
            let source = try self.loop.addPidfdExit(fd.rawValue, description: "display-pid") { [weak self] _ in
                self?.displayProcessExited(pid)
            }
            self.displayPid = (pid, fd, source)
            return .foreground
        } catch {
            self.logger.log(.notice, "The display's process \(pid) is gone (\(error)); the display is away")
            return .away
        }
    }

    private func displayProcessExited(_ pid: Int32) {
        self.displayPid?.source.cancel()
        self.displayPid = nil
        guard self.lastDisplayLine?.pid == pid, self.lastDisplayLine?.state == .foreground else { return }
        self.logger.log(.notice, "The display's process \(pid) exited in the foreground; the display is away")
        self.handle(.display(.away))
    }

    private func loadHousehold() -> Result<LoadedHousehold, HouseholdFileError> {
        let path = self.options.paths.household
        let now = currentInstant()
        // One read: the digest is that of the bytes parsed, even while the file is being replaced.
        return HouseholdFile.loadWithDigest(path, environment: self.environment, regularOnly: true).map {
            LoadedHousehold(load: $0.load, digest: $0.digest, loadedAt: now)
        }
    }

    private func scheduleHouseholdReload() {
        // Editors write in bursts: one reload on the next iteration covers them all.
        try? self.reloadHousehold?.setEnabled(.oneshot)
    }

    private func householdChanged() {
        self.handle(.household(self.loadHousehold()))
    }

    private func zoneChanged() {
        self.handle(.household(self.loadHousehold()))
        self.handle(.clockChanged(reason: "the system zone changed"))
    }

    // MARK: Actions

    private func execute(_ actions: [MachineAction]) {
        var records: [HistoryRecord] = []
        func flushRecords() {
            guard !records.isEmpty else { return }
            do {
                try self.publisher.record(records)
            } catch {
                self.logger.log(.error, "\(error), ignoring")
            }
            records = []
        }
        for action in actions {
            switch action {
            case .record(let record):
                records.append(record)
                self.logger.log(
                    record.event == .dropped ? .notice : .info,
                    "\(record.event.rawValue.prefix(1).uppercased() + record.event.rawValue.dropFirst()) lay \(record.lay)\(record.at.map { " start \($0.rfc3339)" } ?? "")\(record.itemIds.isEmpty ? "" : " (\(record.itemIds.joined(separator: ", ")))")\(record.reason.map { ": \($0)" } ?? "")",
                    fields: [("DAYSOME_EVENT", record.event.rawValue), ("DAYSOME_LAY", String(record.lay))]
                        + (record.at.map { [("DAYSOME_START", $0.rfc3339)] } ?? []))
            case .persist:
                do {
                    try self.publisher.persist(self.machine.persisted)
                } catch {
                    self.logger.log(.error, "\(error), ignoring")
                }
            case .post(let key, let start):
                flushRecords()
                self.post(key, start)
            case .close(_, let id):
                self.notifier?.close(id)
            case .publish:
                self.publish()
            case .arm(let instant):
                self.arm(instant)
            case .log(let priority, let message):
                self.logger.log(priority, message)
            case .layTimers(let lay, let starts, let replacing):
                let exact = self.machine.household?.load.household.settings.exactAlarms ?? true
                self.systemd?.lay(lay, starts: starts, replacing: replacing, exactAlarms: exact)
            case .stopTimers:
                self.systemd?.stopAll()
            case .chime:
                self.playChime()
            case .bringDisplayBack(let reason):
                self.returner?.bringBack(loop: self.loop, sessionBus: self.bus, reason: reason)
            }
        }
        flushRecords()
    }

    private func post(_ key: DeliveryKey, _ start: Start) {
        guard let notifier = self.notifier else { return }
        notifier.post(start, now: currentInstant()) { [weak self] result in
            switch result {
            case .success(let id): self?.handle(.posted(key, notificationId: id))
            case .failure(let error): self?.handle(.postFailed(key, reason: error.message))
            }
        }
    }

    private func arm(_ instant: Instant?) {
        guard let source = self.wheelTimer else { return }
        do {
            if let instant {
                try source.setTime(UInt64(max(0, instant.seconds)) * 1_000_000)
                try source.setEnabled(.oneshot)
            } else {
                try source.setEnabled(.off)
            }
        } catch {
            self.logger.log(.error, "Failed to arm the wheel timer: \(error)")
        }
    }

    private func publish() {
        let server = self.notifier?.server ?? ServerInfo(name: nil, present: false, capabilities: [])
        do {
            try self.publisher.publish(
                queue: self.publisher.queueJSON(self.machine, backend: self.options.backend),
                status: self.publisher.statusJSON(
                    self.machine, options: self.options, server: server,
                    extras: [
                        (
                            "chime",
                            .object(
                                JSONObject([
                                    ("on", .bool(self.machine.household?.load.household.settings.chime != .off)),
                                    ("player", self.chimePlayer?.player.map { .string($0) } ?? .null),
                                    ("file", self.chimePlayer.map { .string($0.file) } ?? .null),
                                ]))
                        ),
                        (
                            "bringDayBack",
                            .object(
                                JSONObject([
                                    ("on", .bool(self.machine.household?.load.household.settings.bringDayBack == true)),
                                    ("means", self.returner?.means.map { .string($0) } ?? .null),
                                    (
                                        "ready",
                                        .bool(
                                            self.machine.household?.load.household.settings.bringDayBack == true
                                                && self.returner?.means != nil)
                                    ),
                                ]))
                        ),
                        ("doNotDisturb", .string(self.options.doNotDisturb.rawValue)),
                        // A user manager refuses WakeSystem (EPERM, and the timer fails): never asked for.
                        (
                            "wakeSystem",
                            .object(
                                JSONObject([
                                    ("on", .bool(false)),
                                    (
                                        "reason",
                                        .string(
                                            "a user manager refuses WakeSystem; a suspended tablet is called late within the grace window instead"
                                        )
                                    ),
                                ]))
                        ),
                    ]))
        } catch {
            self.logger.log(.error, "\(error), ignoring")
        }
        _ = ServiceManager.notify("STATUS=\(self.statusLine())")
    }

    /// `Display away; lay 3; next start 2026-11-30T13:00:00Z Lunch`.
    private func statusLine() -> String {
        var parts = ["Display \(self.machine.display.rawValue)"]
        if let lay = self.machine.currentLay { parts.append("lay \(lay.number)") } else { parts.append("nothing laid") }
        if let next = self.machine.laidStarts.first {
            parts.append("next start \(next.at.rfc3339) \(next.title)".replacingNewlines())
        }
        return parts.joined(separator: "; ")
    }
}

/// Why the daemon could not start or keep running.
enum DaemonError: Error, CustomStringConvertible {
    case setup(String)
    case runtime(String)

    var description: String {
        switch self {
        case .setup(let message), .runtime(let message): return message
        }
    }
}

/// The directory part of a path (`.` for a bare name).
func directory(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
}

/// The last component of a path.
func basename(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return path }
    return String(path[path.index(after: slash)...])
}
