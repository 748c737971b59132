// The simulated tablet: the display's file, the household file, the lockers, the notification
// server, the disks, and the daemon, whose shell here does what the Manager does with the
// machine's actions (Manager.swift, ManagerWatches.swift, StateWrites.swift).
// Every decision is the real code's: the machine, the lock rule, the start-up decision, the
// state proof and the history catch-up. Only the world around them is made up.

import DaysomeCore

/// One daemon's life in the simulated world, from a start to its kill.
struct SimDaemon: Sendable {
    var machine: DaemonMachine
    var writes: SimWrites
    /// Which of the world's daemon runs this is: replies addressed to an earlier one reach nobody.
    let run: Int
}

/// Something the bus delivers to the daemon on a later loop iteration.
enum SimDelivery: Sendable {
    /// The daemon learns which server instance answers now (its NameOwnerChanged, its probe).
    case identify
    /// The server's name changed owner: from `previous`, which still runs (another took the name
    /// over from it) or is gone (it left, or restarted). The machine tells which.
    case ownerChanged(previous: String?, runs: Bool)
    case event(MachineEvent)
}

/// A rule of the product broken in a run.
public struct SimViolation: Error, Sendable, Equatable, CustomStringConvertible {
    /// A short name for the rule: what a shrink keeps failing on.
    public let rule: String
    public let message: String
    /// The step (0-based) after which it was seen.
    public let step: Int

    public var description: String { "step \(self.step + 1): \(self.rule): \(self.message)" }
}

/// The world of one run.
public struct SimWorld: Sendable {
    let zone: Zone
    let busTimesOut: Bool
    let config: MachineConfig
    /// The systemd backend's manager: the timers it holds for each lay, until each fires once.
    var managerTimers: [UInt64: [Start]] = [:]
    public private(set) var now: Instant
    var boot = 1
    var file: SimStep.FileWord = .away
    var fileWrittenAt: Instant?
    var householdVariant = 0
    var lockers: [LockSource: Bool] = [:]
    /// logind went away (a `locker logind gone` step), until it says locked or unlocked again.
    var logindGone = false
    /// Whether the system bus takes connections, and whether the running daemon hears logind over
    /// it now (one that lost it reconnects when it is back; one started without it connects when
    /// its socket appears).
    var systemBusUp = true
    var logindHeard = true
    /// Whether the session bus takes connections: while it is down the daemon's posts fail at
    /// once and the screensavers are not heard. (The reconnect's backoff is the embedded run's.)
    var sessionBusUp = true
    /// The display as the running daemon's file last said it, by the design's rules.
    var fileView = DisplayState.away
    /// The file's `foreground pid=N` line was written before its display exited (a daemon saw
    /// it exit this boot, and kept the exit for its restarts).
    var pidLineExited = false
    var server = FakeServer()
    var disk = FakeStateDisk()
    var daemon: SimDaemon?
    var daemonRuns = 0
    private var queue: [(run: Int, delivery: SimDelivery)] = []
    /// Bells rung for each call.
    var bells: [DeliveryKey: Int] = [:]
    /// Calls whose reply will never reach a daemon (the bus gave up on it, or the daemon that
    /// sent it died): a card the server shows for one can be closed by nobody.
    var unreachable: Set<DeliveryKey> = []
    /// Calls posted while the state disk refused writes, and those a power cut then made
    /// unprovable (the known limit in docs/reliability.md).
    var postedWhileFull: Set<DeliveryKey> = []
    var unprovable: Set<DeliveryKey> = []
    /// The display wrote its file while no daemon ran: the start-up replays a return (the
    /// design's rule: she may have come back meanwhile), until that start is over.
    var fileWrittenWhileDown = false
    var startUnproven = false
    /// While the daemon handles a server's answer to a post.
    var answering = false
    /// During a start: the household variant the remembered lay was made from, whose starts that
    /// fell due while no daemon ran are owed as it planned them (rule 2 before the new lay).
    var owedFrom: Int?
    /// Calls the daemon has posted at least once.
    var attempted: Set<DeliveryKey> = []
    /// What the run did, for the throughput figures: events the machine handled, posts it made.
    public internal(set) var events = 0
    public internal(set) var posts = 0
    var violation: SimViolation?
    /// With `verbose`, what the daemon did at each step, in words (`daysome-simulate --verbose`).
    public var verbose = false
    public var log: [String] = []
    var stepIndex = 0

    /// The world at `start`, the display in front, the daemon started on household 0.
    public init(zone: Zone, start: Instant, busTimesOut: Bool, backend: StartStore) {
        self.zone = zone
        self.now = start
        self.busTimesOut = busTimesOut
        self.config = MachineConfig(startsLiveIn: backend)
        self.fileWrittenAt = start
        self.startDaemon()
        self.drain()
    }

    var identity: String? { self.server.identity(boot: self.boot) }

    // MARK: Steps

    /// Runs one step and checks every rule after it; returns the first rule broken.
    public mutating func apply(_ step: SimStep, index: Int) -> SimViolation? {
        self.stepIndex = index
        let step = step.modelled
        switch step {
        case .advance(let seconds): self.advance(by: max(0, seconds))
        case .display(let word), .displayInPlace(let word):
            self.file = word
            self.fileWrittenAt = self.now
            self.pidLineExited = false
            if self.daemon == nil { self.fileWrittenWhileDown = true }
            self.fileView = word.view(atStart: false, before: self.fileView, exited: false)
            if let display = self.readDisplay(startup: false) {
                self.handle(.display(display))
            } else if let written = self.daemon?.machine.displayWritten(at: self.fileWrittenAt) {
                // An unreadable line changes nothing, but the daemon read this write.
                self.execute(written)
            }
        case .displayExits:
            // The daemon's pidfd says the display that wrote the line exited: away (the
            // Manager's `displayProcessExited`).
            guard self.daemon != nil, self.file == .foregroundPid, !self.pidLineExited else { break }
            self.pidLineExited = true
            self.fileView = .away
            self.handle(.display(.away))
        case .household(let variant):
            self.householdVariant = variant % Households.count
            if self.daemon != nil {
                self.handle(.household(Households.variant(self.householdVariant, zone: self.zone, now: self.now)))
                self.keepHousehold()
            }
        case .locker(let source, let locked):
            // A locker says what changed: the same word again is no signal (logind's
            // PropertiesChanged, a screensaver's ActiveChanged), so the daemon hears nothing.
            let said = self.lockers[source] != locked || (source == .logind && self.logindGone)
            // What logind says while its bus is down reaches no daemon: it is asked on the reconnect.
            let heard = source == .logind ? self.logindHeard : self.sessionBusUp
            self.lockers[source] = locked
            // logind gone takes its session's requests with it (the lock watch forgets the
            // session first); back, the watch follows them anew before it asks the hint.
            if source == .logind && (locked == nil || self.logindGone) {
                self.logindGone = locked == nil
                if heard { self.lockChanged(.logindLockSignal, locked == nil ? nil : false) }
            }
            if said && heard { self.lockChanged(source, locked) }
        case .lockRequest(let lock, let answered):
            // A request comes from logind: none while it is away, or its bus is.
            if !self.logindGone && self.logindHeard { self.lockChanged(.logindLockSignal, lock) }
            if answered {
                // The session's locker does what logind asked: GNOME's and Phosh's do.
                self.lockers[.gnomeScreenSaver] = lock
                if self.sessionBusUp { self.lockChanged(.gnomeScreenSaver, lock) }
            }
        case .systemBus(let up): self.systemBus(up: up)
        case .sessionBus(let up): self.sessionBus(up: up)
        case .server(let change): self.serverChanges(change)
        case .click: self.click()
        case .diskFull(let full):
            self.disk.full = full
            if !full { self.retryWrites() }
        case .runtimeFull(let full): self.disk.runtimeFull = full
        case .kill: self.kill()
        // Without its session bus the daemon cannot start: its service manager tries again later.
        case .start: if self.daemon == nil && self.sessionBusUp { self.startDaemon() }
        case .powerCut: self.powerCut()
        case .clockStep(let seconds):
            self.now = self.now.adding(seconds: seconds)
            if self.daemon != nil { self.handle(.clockChanged(reason: "the clock jumped")) }
        case .suspend(let seconds):
            // Nothing runs while it sleeps; on waking the overdue timers fire, and the clock-jump
            // watch says the clock was set.
            self.now = self.now.adding(seconds: max(0, seconds))
            if self.daemon != nil {
                self.wheelTimerFired()
                self.handle(.clockChanged(reason: "the clock jumped"))
            }
            self.fireManagerTimers()
        case .managerRestart:
            self.managerTimers = [:]
            if self.daemon != nil { self.handle(.timersLost) }
        case .managerSlow:
            // The model's manager is the machine's `.layTimers`, answered at once: only the
            // embedded run's real backend waits on replies.
            break
        case .displayLostInOverflow, .stall, .householdThroughLink, .runtimeRefuses, .startNamed:
            // `modelled` made each the plain step it amounts to.
            break
        }
        self.drain()
        self.check()
        if case .advance = step { self.checkDisplayAgrees() }
        return self.violation
    }

    /// Lets time pass, firing the daemon's wheel timer and the bus's reply timeouts on the way.
    mutating func advance(by seconds: Int64) {
        let target = self.now.adding(seconds: seconds)
        var fired = 0
        while self.violation == nil {
            let wheel = self.daemon?.machine.wheel.nextDeadline
            let timeout =
                self.busTimesOut
                ? self.server.held.filter { !$0.timedOut }.map(\.sentAt.seconds).min().map { $0 + 25 } : nil
            let manager = self.nextManagerTimer.map(\.seconds)
            guard let next = [wheel, timeout, manager].compactMap({ $0 }).min(), next <= target.seconds else { break }
            fired += 1
            if fired > 10_000 {
                self.broke("livelock", "the daemon's timer fired 10000 times before \(target.rfc3339)")
                return
            }
            self.now = Instant(seconds: max(next, self.now.seconds))
            if next == timeout {
                self.busTimeout()
            } else if next == wheel {
                self.wheelTimerFired()
            } else {
                self.fireManagerTimers()
            }
            self.drain()
            self.check()
        }
        self.now = max(self.now, target)
    }

    // MARK: The daemon's shell

    mutating func startDaemon() {
        self.daemonRuns += 1
        var writes = SimWrites(disk: self.disk)
        let onDisk = self.disk.lay ?? PersistedState()
        let unsaved = self.disk.unsaved
        let read = onDisk.merging(unsaved: unsaved)
        let (persisted, caughtUp) = read.catchingUp(history: self.disk.history, now: self.now)
        var disk = self.disk
        // The daemon's record in its lock file, which every write reaches: the marker stands for
        // `nowhere`, the copy for `runtime copy`.
        let kept: CallsKept = disk.unprovenMarker ? .nowhere : unsaved != nil ? .runtimeCopy : .layFile
        let proven = StateProof.proven(
            kept: kept, unsavedRead: unsaved != nil, sameBoot: disk.sameBoot, layToResume: read.lay != nil
        ) {
            writes.persist(read, disk: &disk)
            return !writes.layBehind
        }
        writes.record(caughtUp, disk: &disk)
        disk.sameBoot = true
        self.disk = disk
        var daemon = SimDaemon(
            machine: DaemonMachine(config: self.config, persisted: persisted, now: self.now), writes: writes,
            run: self.daemonRuns)
        // Each locker is asked before the first decision reads the file; logind's requests are
        // followed, and none from before the restart stands.
        // With no system bus, logind is not asked until the bus comes.
        let micros = self.micros
        self.fileView = self.file.view(atStart: true, before: self.fileView, exited: self.pidLineExited)
        self.logindHeard = self.systemBusUp
        for source in LockSource.lockers {
            let said = source == .logind && !self.logindHeard ? nil : self.lockers[source]
            _ = daemon.machine.lockSaid(source, said, at: micros)
        }
        _ = daemon.machine.lockSaid(.logindLockSignal, self.logindHeard ? false : nil, at: micros)
        self.daemon = daemon
        let file = self.readDisplay(startup: true) ?? .foreground
        // Every instance that stamped a kept id and does not answer now either still runs (the
        // one another took the name over from) or left, its cards with it. Then ids of another
        // instance are forgotten, not closed, before the first decision.
        let identity = self.identity
        let stamps = Set(
            (self.daemon?.machine.persisted.delivered ?? []).compactMap(\.server).filter { $0 != identity })
        let running = stamps.filter { $0 == self.server.replacedIdentity(boot: self.boot) }
        let told =
            self.daemon?.machine.handle(
                .earlierServers(running: running, gone: stamps.subtracting(running)), now: self.now) ?? []
        self.execute(MachineAction.unpublished(told))
        let identified = self.daemon?.machine.handle(.serverIdentified(identity), now: self.now) ?? []
        self.execute(MachineAction.unpublished(identified))
        // The runtime directory's copy, which the full state disk refused, is the newer.
        if let unsaved = self.disk.unsavedKeptHousehold, !self.disk.full {
            self.disk.keptHousehold = unsaved
            self.disk.unsavedKeptHousehold = nil
        }
        let lastGood = (self.disk.unsavedKeptHousehold ?? self.disk.keptHousehold).flatMap {
            try? Households.variant($0, zone: self.zone, now: self.now).get()
        }.map { LoadedHousehold(load: $0.load, digest: $0.digest, loadedAt: $0.loadedAt, fromKeptCopy: true) }
        guard var machine = self.daemon?.machine else { return }
        let actions = machine.startAfterRestart(
            file: file, fileWrittenAt: self.file == .missing ? nil : self.fileWrittenAt,
            household: Households.variant(self.householdVariant, zone: self.zone, now: self.now), lastGood: lastGood,
            stateProven: proven, now: self.now)
        self.daemon?.machine = machine
        // A start whose state cannot be proven may take a write a daemon read for a return: the
        // marker says its record was lost (the known limit), and a return is the safe reading.
        self.startUnproven = !proven
        self.owedFrom = read.lay.map { Int($0.householdDigest) - 1 }
        self.execute(actions)
        self.startUnproven = false
        self.owedFrom = nil
        self.fileWrittenWhileDown = false
        self.keepHousehold()
    }

    var micros: UInt64 { UInt64(max(0, self.now.seconds)) * 1_000_000 }

    /// The display state file as the daemon reads it: missing is away; an unreadable line is
    /// foreground at start-up and keeps the previous state later (nil).
    /// What the daemon reads in the display's file: nil for an unreadable line while it runs
    /// (the word before it stands).
    func readDisplay(startup: Bool) -> DisplayState? {
        guard startup || self.file != .garbage else { return nil }
        return self.file.view(atStart: startup, before: .foreground, exited: self.pidLineExited)
    }

    mutating func handle(_ event: MachineEvent) {
        guard var daemon = self.daemon else { return }
        self.events += 1
        let actions: [MachineAction]
        if case .display(let said) = event {
            actions = daemon.machine.displayRead(
                said, writtenAt: self.file == .missing ? nil : self.fileWrittenAt, now: self.now)
        } else {
            actions = daemon.machine.handle(event, now: self.now)
        }
        self.daemon?.machine = daemon.machine
        // A call taken back at her return while its post was out is closed, and history says so,
        // when its id arrives: the decision was the return's.
        if case .posted = event { self.answering = true }
        self.execute(actions)
        self.answering = false
        // The model's events come one at a time: nothing more has queued once one is handled.
        if actions.contains(.judgeWhenCaughtUp) { self.handle(.caughtUp) }
    }

    mutating func identifyServer() {
        guard let daemon = self.daemon, daemon.machine.serverIdentity != self.identity else { return }
        self.handle(.serverIdentified(self.identity))
    }

    mutating func wheelTimerFired() {
        // A return written a moment ago wins over the start (rule 1).
        if let display = self.readDisplay(startup: false), display != self.daemon?.machine.display {
            self.handle(.display(display))
        }
        self.handle(.timer)
    }

    /// The system bus goes down (the daemon's lock watch loses logind, its session's requests
    /// first) or comes back: the daemon follows logind again, its requests anew before it asks
    /// the hint. (The reconnect's backoff is the embedded run's.)
    mutating func systemBus(up: Bool) {
        guard up != self.systemBusUp else { return }
        self.systemBusUp = up
        guard self.daemon != nil else { return }
        if !up {
            guard self.logindHeard else { return }
            self.logindHeard = false
            self.lockChanged(.logindLockSignal, nil)
            self.lockChanged(.logind, nil)
        } else {
            self.logindHeard = true
            // A logind that is away answers nothing; it is followed when it comes back.
            guard !self.logindGone else { return }
            self.lockChanged(.logindLockSignal, false)
            self.lockChanged(.logind, self.lockers[.logind])
        }
    }

    /// The session bus goes down: the server goes with it and its cards (the bus answers each
    /// post it held), and the daemon's connections drop, the screensavers' words with them; or
    /// it comes back with the desktop's server anew: the daemon reconnects, hears a new bus (every
    /// instance on the old one gone), and asks the screensavers again.
    mutating func sessionBus(up: Bool) {
        guard up != self.sessionBusUp else { return }
        self.sessionBusUp = up
        if !up {
            if self.server.up { self.serverLeft() }
            self.server.replacedLeaves()
            for source in [LockSource.screenSaver, .gnomeScreenSaver] { self.lockChanged(source, nil) }
        } else {
            self.server.begin()
            self.deliver(.ownerChanged(previous: nil, runs: false))
            for source in [LockSource.screenSaver, .gnomeScreenSaver] {
                self.lockChanged(source, self.lockers[source])
            }
        }
    }

    mutating func lockChanged(_ source: LockSource, _ locked: Bool?) {
        guard var daemon = self.daemon else { return }
        let actions = daemon.machine.lockSaid(source, locked, at: self.micros)
        self.daemon?.machine = daemon.machine
        if !actions.isEmpty { self.execute(actions) }
    }

    mutating func keepHousehold() {
        guard let household = self.daemon?.machine.household, !household.fromKeptCopy else { return }
        let variant = Int(household.digest) - 1
        if self.disk.full {
            // In the runtime copy, or where the runtime directory takes nothing, in the daemon's
            // record in its lock file: either is gone at boot.
            self.disk.unsavedKeptHousehold = variant
        } else {
            self.disk.keptHousehold = variant
            self.disk.unsavedKeptHousehold = nil
        }
    }

    mutating func retryWrites() {
        if self.daemon != nil, !self.disk.full, let unsaved = self.disk.unsavedKeptHousehold {
            self.disk.keptHousehold = unsaved
            self.disk.unsavedKeptHousehold = nil
        }
        guard var daemon = self.daemon, daemon.writes.isBehind else { return }
        daemon.writes.retry(daemon.machine.persisted, disk: &self.disk)
        self.daemon?.writes = daemon.writes
    }

    mutating func execute(_ actions: [MachineAction]) {
        // A card is closed before the state that forgets it is written: a kill during that
        // write's fsync must not leave a card no later daemon knows of (CloseBeforeForgetTests).
        if let write = actions.firstIndex(of: .persist), actions[write...].contains(where: \.isClose) {
            self.broke("close-before-forget", "a close comes after the state write that forgets its card: \(actions)")
        }
        // As the Manager: what a full disk left behind is retried before anything new is
        // written, after the closes the machine puts first.
        var retried = false
        var delivered: DeliveryKey?
        for action in actions {
            if !retried, !action.isClose {
                retried = true
                self.retryWrites()
            }
            guard var daemon = self.daemon else { return }
            switch action {
            case .record(let record):
                if record.event == .delivered || record.event == .reposted, let at = record.at {
                    delivered = DeliveryKey(lay: record.lay, at: at)
                }
                self.checkWithdrawal(record)
                if self.verbose { self.log.append("  history \(record.json.serialized())") }
                daemon.writes.record([record], disk: &self.disk)
                self.daemon?.writes = daemon.writes
            case .persist:
                daemon.writes.persist(daemon.machine.persisted, disk: &self.disk)
                self.daemon?.writes = daemon.writes
            case .post(let key, let start): self.post(key, start, replacing: 0)
            case .replace(let key, let start, let replacing): self.post(key, start, replacing: replacing)
            case .close(_, let id, let stamp): self.close(id, stamp: stamp)
            case .readDisplay:
                self.handle(.display(self.readDisplay(startup: false) ?? daemon.machine.screenLock.file))
            case .layTimers(let lay, let starts, let replacing, _):
                if replacing { self.managerTimers = [:] }
                self.managerTimers[lay, default: []] += starts
            case .stopTimers: self.managerTimers = [:]
            case .chime:
                if let key = delivered { self.bells[key, default: 0] += 1 }
            default: break
            }
        }
        if !retried { self.retryWrites() }
    }

    mutating func post(_ key: DeliveryKey, _ start: Start, replacing: UInt32) {
        guard let daemon = self.daemon else { return }
        self.posts += 1
        if self.verbose {
            self.log.append("  post lay \(key.lay) \(key.at.rfc3339) \(start.itemIds) at \(self.now.rfc3339)")
        }
        self.checkFresh(key, start)
        guard self.sessionBusUp else {
            self.deliver(
                .event(
                    .postFailed(
                        key, reason: "System.Error.ENOTCONN: Transport endpoint is not connected",
                        failure: .serverUnavailable)))
            return
        }
        // The model's session has a display: a post that may start a server has the bus start
        // one (D-Bus activation).
        // Its server says who it is at once (the model has no probe to wait on).
        var route = PostRoute.whenPosting(
            serverOwnsTheName: self.server.up, serverHasSaidWhoItIs: true,
            mayStartServer: daemon.machine.mayStartAServer(for: key))
        if route == .askWhetherTheSessionHasADisplay {
            route = PostRoute.afterAsking(
                sessionHasDisplay: true, saidBy: .userManager, serverOwnsTheName: self.server.up,
                serverHasSaidWhoItIs: true)
        }
        if case .wait(let reason) = route {
            self.deliver(.event(.postFailed(key, reason: reason, failure: .serverUnavailable)))
            return
        }
        if !self.server.up { self.server.begin() }
        if self.disk.full { self.postedWhileFull.insert(key) }
        if self.server.hung {
            self.server.held.append(HeldPost(key: key, replacing: replacing, sentAt: self.now, daemonRun: daemon.run))
            return
        }
        let id = self.server.show(key, replacing: replacing)
        self.deliver(.identify)
        self.deliver(.event(.posted(key, notificationId: id, server: self.identity)))
    }

    mutating func close(_ id: UInt32, stamp: String?) {
        // The server another took the name over from closes its own cards.
        if let replaced = self.server.replacedIdentity(boot: self.boot), stamp == replaced {
            if self.server.closeReplaced(id) {
                self.deliver(.event(.serverClosed(notificationId: id, reason: 3, server: replaced)))
            }
            return
        }
        // An id of an instance that left closes nothing: its cards went with it.
        guard self.server.up, stamp == nil || stamp == self.identity else { return }
        if self.server.hung {
            self.server.heldCloses.append(id)
        } else if self.server.close(id) {
            self.deliver(.event(.serverClosed(notificationId: id, reason: 3, server: self.identity)))
        }
    }

    /// Queues what the bus brings the running daemon on a later iteration.
    mutating func deliver(_ delivery: SimDelivery) {
        guard let run = self.daemon?.run else { return }
        self.queue.append((run, delivery))
    }

    mutating func drain() {
        var handled = 0
        while !self.queue.isEmpty, self.violation == nil {
            let (run, delivery) = self.queue.removeFirst()
            guard run == self.daemon?.run else { continue }
            handled += 1
            if handled > 10_000 {
                self.broke("livelock", "the daemon and the bus exchanged 10000 messages in one step")
                return
            }
            switch delivery {
            case .identify: self.identifyServer()
            // What answers is read when the daemon handles the change, as the Manager does.
            case .ownerChanged(let previous, let runs):
                self.handle(.serverOwnerChanged(previous: previous, previousRuns: runs, answering: self.identity))
            case .event(let event): self.handle(event)
            }
        }
    }

    // MARK: The world's own changes

    mutating func serverChanges(_ change: SimStep.ServerChange) {
        switch change {
        case .restart, .restartAtOnce, .stop:
            guard self.server.up else { return }
            let previous = self.identity
            self.serverLeft()
            if change != .stop { self.server.begin() }
            self.deliver(.ownerChanged(previous: previous, runs: false))
        case .begin:
            guard !self.server.up else { return }
            self.server.begin()
            self.deliver(.identify)
        case .hang:
            if self.server.up { self.server.hung = true }
        case .wake:
            guard self.server.hung else { return }
            self.server.hung = false
            let held = self.server.held
            self.server.held = []
            for post in held {
                let id = self.server.show(post.key, replacing: post.replacing)
                if !post.timedOut && post.daemonRun == self.daemon?.run {
                    self.deliver(.identify)
                    self.deliver(.event(.posted(post.key, notificationId: id, server: self.identity)))
                } else {
                    self.unreachable.insert(post.key)
                }
            }
            for id in self.server.heldCloses where self.server.close(id) {
                self.deliver(.event(.serverClosed(notificationId: id, reason: 3, server: self.identity)))
            }
            self.server.heldCloses = []
        case .takeOver:
            guard let previous = self.identity, self.server.takeOver() else { return }
            self.deliver(.ownerChanged(previous: previous, runs: true))
        case .replacedExits:
            guard let gone = self.server.replacedIdentity(boot: self.boot) else { return }
            self.server.replacedLeaves()
            self.deliver(.event(.serverInstanceGone(gone)))
        case .doNotDisturbOn, .doNotDisturbOff:
            // The model's server has no Do Not Disturb: only the embedded world plays it.
            break
        }
    }

    /// The server leaves the bus: the bus answers `NoReply` to every post it held.
    mutating func serverLeft() {
        for post in self.server.leave() where !post.timedOut && post.daemonRun == self.daemon?.run {
            self.deliver(
                .event(
                    .postFailed(
                        post.key, reason: "the server left without answering", failure: .outcomeUnknown)))
        }
    }

    mutating func busTimeout() {
        guard
            let index = self.server.held.indices.filter({ !self.server.held[$0].timedOut }).min(by: {
                self.server.held[$0].sentAt < self.server.held[$1].sentAt
            })
        else { return }
        self.server.held[index].timedOut = true
        let post = self.server.held[index]
        self.unreachable.insert(post.key)
        if post.daemonRun == self.daemon?.run {
            self.deliver(
                .event(.postFailed(post.key, reason: "Method call timed out", failure: .outcomeUnknown)))
        }
    }

    /// The manager's next timer: the earliest start it holds (a transient calendar timer fires once).
    var nextManagerTimer: Instant? {
        self.managerTimers.values.joined().map(\.at).min()
    }

    /// Each manager timer due fires its service: `daysomectl fire --lay N` tells the running
    /// daemon (with no daemon, the fire reaches nobody; the start is owed at its restart).
    mutating func fireManagerTimers() {
        let due = self.managerTimers.filter { $0.value.contains { $0.at <= self.now } }.keys.sorted()
        for lay in due { self.managerTimers[lay]?.removeAll { $0.at <= self.now } }
        for lay in due {
            guard var daemon = self.daemon else { return }
            self.events += 1
            let (_, actions) = daemon.machine.fire(lay: lay, now: self.now)
            self.daemon?.machine = daemon.machine
            self.execute(actions)
            self.drain()
        }
    }

    mutating func click() {
        guard self.server.up, !self.server.hung, let id = self.server.newestCard else { return }
        _ = self.server.close(id)
        self.deliver(.event(.clicked(notificationId: id, server: self.identity)))
        self.deliver(.event(.serverClosed(notificationId: id, reason: 2, server: self.identity)))
    }

    mutating func kill() {
        guard self.daemon != nil else { return }
        // Its posts' replies reach nobody now.
        for post in self.server.held { self.unreachable.insert(post.key) }
        // Where neither lay.json nor the runtime directory took the state (the marker says so),
        // a card whose id is on no disk can be closed by no later daemon: the known limit.
        if self.disk.unprovenMarker {
            // Nothing recorded them: a clock stepped back since may make them due again.
            self.unprovable.formUnion(self.postedWhileFull)
            let kept = Set(
                ((self.disk.lay?.delivered ?? []) + (self.disk.unsaved?.delivered ?? [])).filter {
                    $0.notificationId != nil
                }.map(\.key))
            for key in self.server.allCards.values where !kept.contains(key) { self.unreachable.insert(key) }
        }
        self.daemon = nil
        self.queue = []
    }

    mutating func powerCut() {
        self.kill()
        self.unprovable.formUnion(self.postedWhileFull)
        self.disk.boot()
        _ = self.server.leave()
        self.server.replacedLeaves()
        self.server.begin()
        self.boot += 1
        self.lockers = [:]
        self.logindGone = false
        self.systemBusUp = true
        self.sessionBusUp = true
        // The runtime directory, and the exits kept there, are new.
        self.pidLineExited = false
        // The user manager starts again at boot: transient timers are gone with it.
        self.managerTimers = [:]
    }
}

extension FakeServer {
    var newestCard: UInt32? { self.cards.keys.max() }
}
