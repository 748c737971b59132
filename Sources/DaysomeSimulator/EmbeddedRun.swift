// A scenario played on the real daemon: the same seeded steps as `Simulation.run`, executed by the
// real Manager embedded (EmbeddedTablet: the manual loop, a fake server, a simulated disk that
// loses what was not synced at a power cut, at a virtual time) instead of SimWorld's model of it. So the simulator's model and the daemon's shell are
// checked against the same rules, and a sequencing of the Manager's that SimWorld does not mirror
// is still tried, on both backends (the systemd one against the embedded world's manager).

import DaysomeCore
import DaysomeFiles
import DaysomeWorld
import Glibc

/// Plays scenarios on the real daemon embedded.
public enum EmbeddedRun {
    /// Whether the embedded world can play `scenario`: every scenario, since it runs both backends.
    public static func plays(_ scenario: SimScenario) -> Bool {
        true
    }

    /// Where runs keep their files: $TMPDIR, else /dev/shm (the daemon fsyncs lay.json at every
    /// change, which a tmpfs makes free), else /tmp.
    public static func scratchDirectory(_ environment: [String: String]) -> String {
        if let temporary = environment["TMPDIR"], !temporary.isEmpty { return temporary }
        return FileIO.exists("/dev/shm") ? "/dev/shm" : "/tmp"
    }

    /// Runs `scenario` on a simulated disk whose files are named under `root` (nothing is written
    /// on the host), to its end or its first broken rule.
    /// With `verbose`, each step, the daemon's log lines and its history lines are printed.
    public static func run(_ scenario: SimScenario, root: String, verbose: Bool = false) throws -> SimResult {
        let tablet = try EmbeddedTablet(
            root: root, at: scenario.start, household: Households.text(0, zone: scenario.zone), display: "away",
            arguments: scenario.backend == .systemd ? ["--backend", "systemd"] : [], simulatedDisk: true)
        tablet.server.busTimesOut = scenario.busTimesOut
        var world = EmbeddedWorld(tablet: tablet, zone: try Households.zone(scenario.zone))
        try tablet.startDaemon()
        world.grace = Int64(tablet.liveStatus?.daemon?.grace ?? 600)
        var violation: SimViolation?
        var done = 0
        var logged = 0
        var recorded = 0
        for (index, step) in scenario.steps.enumerated() where violation == nil {
            violation = try world.apply(step, index: index)
            done = index + 1
            if verbose {
                print("\(index + 1). \(step.line)  [\(tablet.now.rfc3339)]")
                for line in tablet.log[logged...] { print("   log: \(line.message)") }
                let history = tablet.history()
                for record in history[min(recorded, history.count)...] {
                    print(
                        "   history: \(record.time.rfc3339) \(record.event.rawValue) lay \(record.lay) \(record.at?.rfc3339 ?? "")\(record.reason.map { ": \($0)" } ?? "")"
                    )
                }
                logged = tablet.log.count
                recorded = history.count
            }
        }
        return SimResult(
            violation: violation, simulatedSeconds: tablet.now.seconds - scenario.start.seconds,
            events: tablet.log.count, posts: tablet.server.notified.count, steps: done)
    }

    /// The fewest steps (found greedily) that still break `rule` on the real daemon.
    public static func shrink(
        _ scenario: SimScenario, rule: String, root: String, seconds: Double? = nil
    )
        -> SimScenario
    {
        Simulation.shrink(scenario, rule: rule, seconds: seconds) { try? Self.run($0, root: root) }
    }
}

/// What the run knows of the tablet besides the daemon: her file's word, the lockers, the
/// server's faults, and the households written; the rules are judged from these and from what
/// the fake server shows and the daemon's files say.
struct EmbeddedWorld {
    let tablet: EmbeddedTablet
    let zone: Zone
    var grace: Int64 = 600
    var file: SimStep.FileWord = .away
    var lockers: [LockSource: Bool] = [:]
    /// Whether the system bus takes connections, and when it last came back (monotonic).
    var systemBusUp = true
    var systemBusBackAt: UInt64 = 0
    /// Whether the session bus takes connections, and when it last came back (monotonic).
    var sessionBusUp = true
    var sessionBusBackAt: UInt64 = 0
    /// The running daemon started while the system bus was down: it connects the moment the
    /// bus's socket is made (inotify), with no reconnect's backoff to wait for.
    var awaitsSystemBusSocket = false
    /// The display as the running daemon's file last said it, by the design's rules.
    var fileView = DisplayState.away
    /// The file's `foreground pid=N` line was written before its display exited (a daemon saw
    /// it exit this boot, and kept the exit for its restarts).
    var pidLineExited = false
    /// A pid no process has: pid_max itself is never one.
    static let deadPid: String = {
        let read = try? FileIO.read("/proc/sys/kernel/pid_max", limit: 64)
        return read.map { String(decoding: $0, as: UTF8.self).filter(\.isNumber) } ?? "4194304"
    }()
    /// Each good household variant written, with when by the tablet's monotonic clock (a wall
    /// clock stepped back past a write cannot reorder it): a call is judged against the one in
    /// force when the daemon sent it, or the one before (a start owed across a restart).
    var households: [(since: UInt64, variant: Int)]
    /// The household file's variant now, and the last good one a daemon read (3 never is).
    var fileVariant = 0
    var lastReadGood = 0
    /// Cards the server's leaving wiped, by call (its start and title).
    var wiped: [String: Int] = [:]
    /// The cards the last step's server restart wiped for the first time, that the daemon had not
    /// asked it to close: each is posted again, or the journal says why not.
    var justWiped: [FakeNotificationServer.Card] = []
    /// The cards a server's leaving wiped while no daemon ran, whose ids a daemon held: the next
    /// daemon's start says what became of each.
    var wipedWhileStopped: [FakeNotificationServer.Card] = []
    /// Whether the state directory's disk, and the runtime directory, are full.
    var stateFull = false
    var runtimeFull = false
    /// Whether a good household the daemon read found both disks full, and no step since let it
    /// keep its copy: only the daemon's record holds it, and a power cut then leaves only an
    /// older copy (the known limit).
    var readUnkept = false
    /// Whether the last good household a daemon read found the state disk full, and no step since
    /// let it keep its copy there: a power cut (which empties the runtime directory) leaves the
    /// state directory's older copy as the last good one kept.
    var readUnkeptOnState = false
    /// Calls posted while the state disk was full, and those a kill then left unprovable (no disk
    /// holds them: a clock stepped back may make them due again), by call.
    var postedWhileFull: Set<String> = []
    var unprovable: Set<String> = []
    /// Cards whose ids no later daemon can know (the known limit: both disks full, then a kill),
    /// on the running server and on the one another took the name over from (ids start again at
    /// each instance).
    var unreachable: Set<UInt32> = []
    var unreachableReplaced: Set<UInt32> = []
    /// Whether the display file was written while no daemon ran: a return the next start replays.
    var fileWrittenWhileDown = false
    /// When she last saw the day as far as the daemon can know, after a step: a post still out
    /// then is taken back, and its card comes down whenever the server answers, away or not. A
    /// lock the daemon stopped hearing (its bus went) hides no return from it.
    /// By the tablet's monotonic clock, which no clock step moves.
    var lastSawTheDay: UInt64?
    /// When the server's Do Not Disturb last switched (monotonic): a Notify sent before and taken
    /// after was chosen for the switch as it stood.
    var doNotDisturbSwitchedAt: UInt64?
    /// Notifies already judged, and log lines already read.
    var judged = 0
    var logRead = 0
    var stepIndex = 0
    /// The tablet's edges (EmbeddedRun+Edges.swift): links, inodes, names, and every start held to account.
    var edges = EdgeWorld()

    init(tablet: EmbeddedTablet, zone: Zone) {
        self.tablet = tablet
        self.zone = zone
        self.households = [(tablet.loop.monotonic, 0)]
        self.edges.latest = tablet.now
    }

    mutating func apply(_ step: SimStep, index: Int) throws -> SimViolation? {
        self.stepIndex = index
        let tablet = self.tablet
        switch step {
        case .advance(let seconds):
            // A slow manager's replies come as time passes.
            if tablet.systemd.holdsReplies { tablet.systemd.answer() }
            tablet.advance(seconds: seconds)
            // Kept once a disk holds it (a freed disk's retry wrote it).
            if self.readUnkept && self.keptCopy() == self.lastReadGood { self.readUnkept = false }
            if self.readUnkeptOnState
                && self.variant(keptAt: LastGoodHousehold.path(in: self.tablet.paths)) == self.lastReadGood
            {
                self.readUnkeptOnState = false
            }
        case .display(let word), .displayInPlace(let word), .displayLostInOverflow(let word):
            // Out of inodes, the runtime tmpfs takes none of the app's saves: the file keeps its word.
            if self.edges.runtimeOutOfInodes && word != .missing { break }
            self.file = word
            self.pidLineExited = false
            if !tablet.running { self.fileWrittenWhileDown = true }
            self.fileView = word.view(atStart: false, before: self.fileView, exited: false)
            let line: String
            switch word {
            case .foreground: line = "foreground"
            // The simulator's own process plays the display: it runs, and its pid is taken.
            case .foregroundPid: line = "foreground pid=\(getpid())"
            case .deadPid: line = "foreground pid=\(Self.deadPid)"
            case .away: line = "away"
            case .garbage: line = "sideways"
            case .missing:
                tablet.removeDisplay()
                return self.check(after: step)
            }
            if case .displayInPlace = step {
                try tablet.writeDisplayInPlace(line)
            } else if case .displayLostInOverflow = step {
                try tablet.writeDisplayLostInOverflow(line)
            } else {
                try tablet.writeDisplay(line)
            }
        case .displayExits:
            // Only a daemon watching the line's display sees it exit; a microsecond passes, so a
            // line the display writes next is written after the exit, as it always is.
            guard tablet.running, self.file == .foregroundPid, !self.pidLineExited, tablet.displayProcessExits()
            else { break }
            self.pidLineExited = true
            self.fileView = .away
            tablet.loop.advance(by: 1)
        case .household(let variant), .householdThroughLink(let variant):
            let index = variant % Households.count
            if case .householdThroughLink = step {
                try self.saveHouseholdThroughLink(Households.text(index, zone: self.zone.name))
            } else {
                try tablet.writeHousehold(Households.text(index, zone: self.zone.name))
            }
            self.fileVariant = index
            // A stalled daemon reads it when its loop runs again (`resume`).
            if index != 3 && tablet.running && !tablet.loop.stalled {
                self.lastReadGood = index
                self.readUnkept = self.stateFull && self.runtimeFull
                self.readUnkeptOnState = self.stateFull
            }
            if index != 3 && index != self.households.last?.variant {
                self.households.append((tablet.loop.monotonic, index))
            }
        case .locker(let source, let locked):
            self.lockers[source] = locked
            tablet.lock(source, locked)
        case .lockRequest(let lock, let answered):
            tablet.lock(.logindLockSignal, lock)
            if answered {
                self.lockers[.gnomeScreenSaver] = lock
                tablet.lock(.gnomeScreenSaver, lock)
            }
        case .systemBus(let up):
            guard up != self.systemBusUp else { break }
            self.systemBusUp = up
            if up {
                tablet.session.busBack(system: true)
                if !self.awaitsSystemBusSocket || !tablet.running { self.systemBusBackAt = tablet.loop.monotonic }
                self.awaitsSystemBusSocket = false
            } else {
                tablet.session.busGoes(system: true)
            }
            tablet.advance(seconds: 0)
        case .sessionBus(let up):
            guard up != self.sessionBusUp else { break }
            self.sessionBusUp = up
            if up {
                tablet.sessionBus(up: true)
                self.sessionBusBackAt = tablet.loop.monotonic
            } else {
                // The server goes with its bus, its cards with it, and so does one taken over from.
                self.wipe()
                self.wipeReplaced(keepingJustWiped: true)
                tablet.sessionBus(up: false)
            }
            tablet.advance(seconds: 0)
        case .server(let change):
            switch change {
            case .restart, .restartAtOnce:
                self.wipe()
                tablet.server.restart(atOnce: change == .restartAtOnce)
            case .stop:
                self.wipe()
                tablet.server.stop()
            case .begin: tablet.server.start()
            case .hang: tablet.server.hang()
            case .wake: tablet.server.wake()
            case .takeOver:
                let first = tablet.server.replaced == nil
                tablet.server.takeOver()
                // The cards, and what no daemon can know of them, stay with the replaced server.
                if first && tablet.server.replaced != nil {
                    self.unreachableReplaced = self.unreachable
                    self.unreachable = []
                }
            case .replacedExits:
                self.wipeReplaced()
                tablet.server.replacedExits()
            case .doNotDisturbOn, .doNotDisturbOff:
                // Her switch needs a server that answers (swaync-client waits on a hung one).
                guard tablet.server.instance != nil, !tablet.server.hung else { break }
                tablet.server.setDoNotDisturb(change == .doNotDisturbOn)
                self.doNotDisturbSwitchedAt = tablet.loop.monotonic
            }
            tablet.advance(seconds: 0)
        case .click:
            if let card = tablet.server.cards.last { tablet.server.click(card.id) }
            tablet.advance(seconds: 0)
        case .diskFull(let full):
            self.stateFull = full
            tablet.failStateDisk(full ? ENOSPC : nil)
            tablet.advance(seconds: 0)
        case .runtimeFull(let full):
            self.runtimeFull = full
            tablet.failRuntime(full ? ENOSPC : nil)
            if !full { self.runtimeTakesNewFiles() }
            tablet.advance(seconds: 0)
        case .runtimeRefuses(let inodes):
            self.runtimeFull = true
            self.runtimeRefuses(inodes: inodes)
            tablet.advance(seconds: 0)
        case .stall(let stalls):
            // Only a running daemon's loop stops; a new daemon's loop runs.
            guard tablet.running, stalls != tablet.loop.stalled else { break }
            if stalls {
                tablet.loop.stall()
            } else {
                tablet.loop.resume()
                // What the family saved meanwhile is read now, as at a start.
                self.readAtStart()
            }
        case .managerRestart:
            tablet.systemd.restart()
            tablet.advance(seconds: 0)
        case .managerSlow:
            tablet.systemd.holdsReplies = true
        case .kill: if tablet.running { self.kill() }
        case .start, .startNamed:
            // Without its session bus the daemon cannot start: its service manager tries again later.
            if !tablet.running && self.sessionBusUp {
                self.nameStateDirectory(for: step)
                self.readAtStart()
                self.awaitsSystemBusSocket = !self.systemBusUp
                self.fileView = self.file.view(atStart: true, before: self.fileView, exited: self.pidLineExited)
                try tablet.startDaemon()
            }
        case .powerCut(let tear):
            // A new tmpfs at boot, with all its inodes.
            self.runtimeTakesNewFiles()
            self.wipe(daemonDies: true)
            self.unprovable.formUnion(self.postedWhileFull)
            self.runtimeFull = false
            try tablet.powerCut(tear: tear)
            self.householdAfterPowerCut()
            self.lockers = [:]
            self.systemBusUp = true
            self.awaitsSystemBusSocket = false
            self.sessionBusUp = true
            self.fileView = .away
            self.pidLineExited = false
            self.file = .missing
            self.keptCopyOutlivesThePowerCut()
            self.readAtStart(afterPowerCut: true)
            try tablet.startDaemon()
        case .clockStep(let seconds):
            if seconds < 0 { self.edges.clockSetBack = true }
            tablet.jumpClock(to: tablet.now.adding(seconds: seconds))
            tablet.advance(seconds: 0)
        case .suspend(let seconds):
            tablet.jumpClock(to: tablet.now.adding(seconds: max(0, seconds)))
            tablet.advance(seconds: 0)
        }
        return self.check(after: step)
    }

    /// A daemon starting on a broken household file lays from the last good one a daemon read:
    /// edits the family made while none ran, then broke, were never read (the known limit), so
    /// that one counts as in force from now.
    mutating func readAtStart(afterPowerCut: Bool = false) {
        if self.fileVariant != 3 {
            self.lastReadGood = self.fileVariant
            // Read at the start as at an edit: with both disks full, kept on neither.
            self.readUnkept = self.stateFull && self.runtimeFull
            self.readUnkeptOnState = self.stateFull
        } else if self.readUnkept || self.readUnkeptOnState, afterPowerCut, let kept = self.keptCopy() {
            // The last good read was kept on neither disk (only in the daemon's record in its lock
            // file), or only in the runtime directory (the state disk was full): the power cut
            // took the runtime directory, and the freshest copy the disks hold lays.
            self.lastReadGood = kept
            self.readUnkept = false
            self.readUnkeptOnState = false
            if kept != self.households.last?.variant { self.households.append((self.tablet.loop.monotonic, kept)) }
        } else if self.lastReadGood != self.households.last?.variant {
            self.households.append((self.tablet.loop.monotonic, self.lastReadGood))
        }
    }

    /// The family's app does not sync its writes: a power cut may take the last one back, or
    /// tear it (a broken file, variant 3's part). The variant the disk holds now is in force.
    mutating func householdAfterPowerCut() {
        let bytes = try? self.tablet.files.read(self.tablet.paths.household, limit: 1 << 20)
        let variant =
            bytes.flatMap { bytes in
                (0..<Households.count).first { Array(Households.text($0, zone: self.zone.name).utf8) == bytes }
            } ?? 3
        guard variant != self.fileVariant else { return }
        self.fileVariant = variant
        if variant != 3 && variant != self.households.last?.variant {
            self.households.append((self.tablet.loop.monotonic, variant))
        }
    }

    /// A power cut takes the runtime directory's copy of a household the full state disk
    /// refused: with a broken household file the daemon then lays from the older copy the state
    /// directory holds (the known limit), which counts as in force from now.
    mutating func keptCopyOutlivesThePowerCut() {
        guard let variant = self.variant(keptAt: LastGoodHousehold.path(in: self.tablet.paths)),
            variant != self.households.last?.variant
        else { return }
        self.households.append((self.tablet.loop.monotonic, variant))
    }

    /// The household variant the freshest kept copy holds: the runtime directory's, else the
    /// state directory's (the daemon's own order).
    func keptCopy() -> Int? {
        self.variant(keptAt: LastGoodHousehold.unsavedPath(in: self.tablet.paths))
            ?? self.variant(keptAt: LastGoodHousehold.path(in: self.tablet.paths))
    }

    func variant(keptAt path: String) -> Int? {
        guard let kept = LastGoodHousehold.load(from: path, disk: self.tablet.files).copy?.fileDigest else {
            return nil
        }
        return (0..<Households.count).first { fnv1a(Array(Households.text($0, zone: self.zone.name).utf8)) == kept }
    }

    /// SIGKILL. Where neither lay.json nor the runtime directory took the state (the marker
    /// says so), what was posted meanwhile is on no disk: the known limit.
    mutating func kill() {
        if self.tablet.unprovenMarker {
            self.unprovable.formUnion(self.postedWhileFull)
            for card in self.tablet.server.cards { self.unreachable.insert(card.id) }
            for card in self.tablet.server.replaced?.cards ?? [] { self.unreachableReplaced.insert(card.id) }
        }
        self.tablet.killDaemon()
    }

    /// The server's leaving takes its cards: each may be posted once more. `daemonDies`: the
    /// daemon goes in the same moment (a power cut), so no daemon hears it, and a server another
    /// took the name over from goes too.
    mutating func wipe(daemonDies: Bool = false) {
        let server = self.tablet.server
        self.justWiped = []
        self.countWiped(
            server.cards, closeAsked: server.closeAsked, unreachable: self.unreachable, daemonDies: daemonDies)
        // Ids start again on the next instance: one no daemon could reach went with its card.
        self.unreachable = []
        if daemonDies { self.wipeReplaced(daemonDies: true, keepingJustWiped: true) }
    }

    /// The server another took the name over from exits (or the power goes): its cards go with it.
    mutating func wipeReplaced(daemonDies: Bool = false, keepingJustWiped: Bool = false) {
        if !keepingJustWiped { self.justWiped = [] }
        guard let replaced = self.tablet.server.replaced else { return }
        self.countWiped(replaced.cards, closeAsked: [], unreachable: self.unreachableReplaced, daemonDies: daemonDies)
        self.unreachableReplaced = []
    }

    /// Counts `cards` wiped; those the daemon had not asked to close and could reach are each
    /// posted again once (`justWiped`), or told by the next start when no daemon heard it.
    mutating func countWiped(
        _ cards: [FakeNotificationServer.Card], closeAsked: Set<UInt32>, unreachable: Set<UInt32>, daemonDies: Bool
    ) {
        for card in cards { self.wiped[Self.call(card), default: 0] += 1 }
        if daemonDies || !self.tablet.running {
            // Only cards a daemon still held: one it had withdrawn already (a replacement a hung
            // server never did) was told then.
            self.wipedWhileStopped += cards.filter {
                !$0.orphaned && !closeAsked.contains($0.id) && !unreachable.contains($0.id)
                    && ["delivered", "reposted"].contains(self.lastSaid(about: $0.at))
            }
        }
        self.justWiped += cards.filter {
            self.wiped[Self.call($0)] == 1 && !closeAsked.contains($0.id) && !unreachable.contains($0.id)
        }
    }

    static func call(_ card: FakeNotificationServer.Card) -> String { "\(card.at.rfc3339) \(card.summary)" }

    /// The journal's words for a call that is over, each with its reason.
    static let endsOfACall = ["withdrawn", "expired", "dropped"]

    /// The journal's last word on the call at `start`: delivered, reposted, withdrawn, expired or dropped.
    func lastSaid(about start: Instant) -> String? {
        return self.tablet.log.last {
            (["delivered", "reposted"] + Self.endsOfACall).contains($0.fields["DAYSOME_EVENT"] ?? "")
                && $0.fields["DAYSOME_START"] == start.rfc3339
        }?.fields["DAYSOME_EVENT"]
    }

    /// She sees the day: its file says foreground and no locker covers it.
    var seesTheDay: Bool { self.file.inFront(exited: self.pidLineExited) && !self.lockers.values.contains(true) }

    /// The most a reconnect to the system bus takes once it is back: the lock watch's backoff
    /// (one second, doubling to five), and a second for logind's answers.
    static let reconnectWithin: UInt64 = 6_000_000

    /// The system bus is back, and the daemon's reconnect to it (which one that lost it makes)
    /// may still be on its way.
    var reconnecting: Bool {
        self.systemBusUp && self.tablet.loop.monotonic < self.systemBusBackAt + Self.reconnectWithin
    }

    /// Whether the daemon can hear logind now: the system bus is up, and a reconnect has had
    /// time since the bus came back.
    var logindHeard: Bool { self.systemBusUp && !self.reconnecting }

    /// The session bus is back, and the daemon's reconnects to it (the notifier's, the lock
    /// watch's) may still be on their way.
    var sessionReconnecting: Bool {
        self.sessionBusUp && self.tablet.loop.monotonic < self.sessionBusBackAt + Self.reconnectWithin
    }

    /// Whether the daemon can hear the screensavers now.
    var screenSaversHeard: Bool { self.sessionBusUp && !self.sessionReconnecting }

    /// What each locker says, as the daemon can hear it: logind not while its bus is away, the
    /// screensavers not while the session bus is.
    var lockersHeard: [LockSource: Bool] {
        self.lockers.filter { $0.key == .logind ? self.logindHeard : self.screenSaversHeard }
    }

    /// Once time has passed, the daemon's display is what the design makes of what it could
    /// hear: away while a locker it hears says locked, else its file's word. Not judged while a
    /// reconnect to either bus may still be on its way.
    func displayAgrees() -> SimViolation? {
        guard let decided = self.tablet.displayDecided, !self.reconnecting, !self.sessionReconnecting else {
            return nil
        }
        let heard = self.lockersHeard
        let expected = heard.values.contains(true) ? DisplayState.away : self.fileView
        guard decided != expected else { return nil }
        return self.broke(
            "display-agrees",
            "the daemon holds the display \(decided.rawValue), but its file says \(self.fileView.rawValue) and the lockers it hears say \(SimStep.said(heard))"
        )
    }

    /// She sees the day as far as the daemon can know: logind's word lost with its bus (a lock
    /// made or ended meanwhile) is no word the daemon could have followed, and an unreadable line
    /// keeps the word before it (a garbled file under a lock that ends is her return, as the
    /// design says).
    var seesTheDayAsTheDaemonCanKnow: Bool {
        self.fileView == .foreground && !self.lockersHeard.values.contains(true)
    }

    func broke(_ rule: String, _ message: String) -> SimViolation {
        SimViolation(rule: rule, message: message, step: self.stepIndex)
    }

    mutating func check(after step: SimStep) -> SimViolation? {
        let tablet = self.tablet
        let cards = tablet.server.notified
        if self.seesTheDayAsTheDaemonCanKnow { self.lastSawTheDay = tablet.loop.monotonic }
        // Never twice, and nothing stale, for each Notify the server took since the last step.
        // A Notify a hung server holds was sent too, while the state disk could not keep it.
        if self.stateFull { self.postedWhileFull.formUnion(tablet.server.heldNotifies) }
        for card in cards[self.judged...] {
            if self.stateFull { self.postedWhileFull.insert(Self.call(card)) }
            // A restart that cannot prove what was called calls nothing it owed (its record says
            // so, whatever the runtime directory took): only a clock set back over the minute may.
            guard !self.unprovable.contains(Self.call(card)) || !self.edges.clockSetBack else { continue }
            let made = cards.filter { Self.call($0) == Self.call(card) }.count
            if made > 1 + (self.wiped[Self.call(card)] ?? 0) {
                return self.broke("never-twice", "the call at \(card.at.rfc3339) was shown \(made) times")
            }
            // Judged when the daemon sent it: a hung server may put it up hours later, and the
            // daemon then takes it down (checked below).
            // A post decided inside the window may leave after its own wait on the loop (the
            // machine's allowance: the user manager, a hung server's probe, its switch's read).
            let again = made > 1
            let lastToLeave = card.at.adding(seconds: self.grace + DaemonMachine.longestWaitBeforeANotify)
            if (!again && card.sentAt < card.at) || (!again && card.sentAt > lastToLeave) {
                return self.broke("nothing-stale", "the call at \(card.at.rfc3339) was sent at \(card.sentAt.rfc3339)")
            }
            let inForce = self.households.lastIndex { $0.since <= card.sentMonotonic } ?? 0
            let planners = self.households[max(0, inForce - 1)...inForce].map(\.variant)
            let planned = planners.contains { variant in
                guard case .success(let loaded) = Households.variant(variant, zone: self.zone, now: card.sentAt)
                else { return false }
                return Planner.plan(loaded.load.household, after: card.at.adding(seconds: -1), through: card.at).starts
                    .contains { $0.at == card.at && $0.title == card.summary }
            }
            if !planned {
                return self.broke(
                    "nothing-stale", "the call at \(card.at.rfc3339) (\(card.summary)) is not in the household in force"
                )
            }
            // Seen through a Do Not Disturb the family did not choose: on swaync only a critical
            // call passes its switch, so a call the household does not hold back goes critical.
            if card.held, !planners.contains(Households.respectsDoNotDisturb), !self.heldUnforeseen(card) {
                return self.broke(
                    "seen-through-do-not-disturb",
                    "the call at \(card.at.rfc3339) was held out of sight by a Do Not Disturb its household does not respect"
                )
            }
        }
        self.judged = cards.count
        if let violation = self.oneBellPerCall() { return violation }
        if let violation = self.heldToAccount(after: step) { return violation }
        // A stalled daemon is judged once it runs again, as a stopped one once it starts.
        guard tablet.running, !tablet.loop.stalled else { return nil }
        if let broken = tablet.machineInvariantViolations.first { return self.broke("machine-invariant", broken) }
        // Nothing stale on screen: a card past its end is taken down (a hung server's late card
        // once it answers).
        if let card = self.reachableCards.first(where: { $0.expiresAt < tablet.now }) {
            return self.broke(
                "nothing-stale",
                "card \(card.id) for the call at \(card.at.rfc3339) is still up at \(tablet.now.rfc3339), past its end \(card.expiresAt.rfc3339)"
            )
        }
        // Rule 1: nothing over the day, once the daemon has had its word.
        if self.seesTheDay,
            let card = self.reachableCards.first(where: { !self.unprovable.contains(Self.call($0)) })
        {
            return self.broke(
                "never-over-the-day", "card \(card.id) for the call at \(card.at.rfc3339) is on screen over the day")
        }
        if let violation = self.postedAgainOnce(after: step) { return violation }
        if let violation = self.toldAfterStart(step) { return violation }
        // Withdrawn only when she may be back: a step that moved nothing of hers withdraws nothing.
        // Read from the journal's fields, written as the daemon acts (its history line may wait
        // for a full disk).
        let new = tablet.log[min(self.logRead, tablet.log.count)...]
        self.logRead = tablet.log.count
        // A start withdraws for her return only what a return made while no daemon ran, or an
        // unproven state, explains: a restart while locked keeps what is on screen.
        let startedNow = Self.starts(step) && tablet.running
        defer { if startedNow { self.fileWrittenWhileDown = false } }
        let judged =
            Self.movesNothingOfHers(step) || (startedNow && !self.fileWrittenWhileDown && tablet.stateProven)
        if judged, !self.seesTheDayAsTheDaemonCanKnow, self.file != .garbage,
            let withdrawn = new.first(where: {
                $0.fields["DAYSOME_EVENT"] == "withdrawn" && ($0.fields["DAYSOME_REASON"] ?? "").hasPrefix("display")
                    && !self.wasOutAtHerReturn($0.fields["DAYSOME_START"])
            })
        {
            return self.broke(
                "withdrawn-while-away",
                "the call at \(withdrawn.fields["DAYSOME_START"] ?? "?") was withdrawn while she cannot see the day")
        }
        // logind is followed again once its bus is back: a lock made meanwhile counts.
        if self.logindHeard, tablet.session.logindRuns, let status = tablet.liveStatus,
            status.daemon?.lock.sources[.logind]?.watched != true
        {
            let detail = status.daemon?.lock.sources[.logind]?.detail ?? "no word"
            return self.broke("lock-followed", "logind is not followed with its bus up: \(detail)")
        }
        if case .advance = step, let violation = self.displayAgrees() { return violation }
        // Never silent: no start stays pending past its grace window.
        if let first = tablet.nextLaid, first.at.adding(seconds: self.grace) < tablet.now {
            return self.broke(
                "never-silent", "the start at \(first.at.rfc3339) is still pending at \(tablet.now.rfc3339)")
        }
        return nil
    }

    /// Whether the daemon could not foresee that `card` would be held: the server's Do Not Disturb
    /// switched after its Notify left and before the server took it (its urgency was chosen for
    /// the switch as it was), or the daemon's connection had asked the running server instance
    /// who it is and got only timeouts (an instance hung since before they met: the known limit).
    func heldUnforeseen(_ card: FakeNotificationServer.Card) -> Bool {
        if let switched = self.doNotDisturbSwitchedAt, (card.sentMonotonic...card.postedMonotonic).contains(switched) {
            return true
        }
        return card.sentUnknowing
    }

    /// One bell per call, ever, heard with its card and never alone, and none for a call a
    /// respected Do Not Disturb holds out of sight. Each ring is the call's that the log last said
    /// was delivered (the machine rings right after it records the delivery). A power cut on full
    /// disks may call one twice (the known limit).
    func oneBellPerCall() -> SimViolation? {
        let tablet = self.tablet
        var rung: [String: Int] = [:]
        for after in tablet.ringsAfter {
            guard
                let start = tablet.log[..<min(after, tablet.log.count)].last(where: {
                    ["delivered", "reposted"].contains($0.fields["DAYSOME_EVENT"] ?? "")
                })?.fields["DAYSOME_START"]
            else {
                return self.broke("one-bell", "the bell rang before any call was delivered")
            }
            rung[start, default: 0] += 1
        }
        for (start, rings) in rung.sorted(by: { $0.key < $1.key }) {
            let cards = tablet.server.notified.filter { $0.at.rfc3339 == start }
            if cards.contains(where: { self.unprovable.contains(Self.call($0)) }) { continue }
            if rings > 1 { return self.broke("one-bell", "the bell rang \(rings) times for the call at \(start)") }
            if cards.isEmpty {
                return self.broke("one-bell", "the bell rang for the call at \(start), whose card no server took")
            }
            if cards.allSatisfy({ $0.held && !self.heldUnforeseen($0) }) {
                return self.broke(
                    "one-bell", "the bell rang for the call at \(start), which a Do Not Disturb held out of sight")
            }
        }
        return nil
    }

    /// The cards on her screen a daemon can take down now: the running server's while it answers,
    /// and those of a server another took the name over from (it answers whatever the new one
    /// does).
    var reachableCards: [FakeNotificationServer.Card] {
        let server = self.tablet.server
        let running =
            server.instance != nil && !server.hung
            ? server.cards.filter { !$0.orphaned && !self.unreachable.contains($0.id) } : []
        return running
            + (server.replaced?.cards ?? []).filter { !$0.orphaned && !self.unreachableReplaced.contains($0.id) }
    }

    /// A card the server's restart wiped while she is away (or the exit of a server another took
    /// the name over from), inside rule 2's window and its own life, is on the running server's
    /// screen once it answers, or the journal says why not. Judged on the wiping step itself: a
    /// server that stops and begins later is not (nor is a repost a hung server holds).
    mutating func postedAgainOnce(after step: SimStep) -> SimViolation? {
        defer { self.justWiped = [] }
        guard case .server(let change) = step, [.restart, .restartAtOnce, .replacedExits].contains(change) else {
            return nil
        }
        let tablet = self.tablet
        guard tablet.running, self.file == .away, tablet.server.instance != nil, !tablet.server.hung,
            !self.stateFull, !self.runtimeFull
        else { return nil }
        let said = tablet.log[min(self.logRead, tablet.log.count)...]
        for card in self.justWiped
        where !card.orphaned && !self.unprovable.contains(Self.call(card))
            && card.at.adding(seconds: self.grace) >= tablet.now && tablet.now < card.expiresAt
            // A clock stepped back before its minute: it goes out again at its minute, not now.
            && card.at <= tablet.now
        {
            let shown = tablet.server.cards.contains { Self.call($0) == Self.call(card) }
            let why = said.contains {
                Self.endsOfACall.contains($0.fields["DAYSOME_EVENT"] ?? "")
                    && $0.fields["DAYSOME_START"] == card.at.rfc3339
            }
            if !shown && !why {
                return self.broke(
                    "posted-again-once",
                    "the call at \(card.at.rfc3339) went with the restarted server and was neither shown again nor said why"
                )
            }
        }
        return nil
    }

    /// Never silent across a stop: a card a server's leaving wiped while no daemon ran is gone
    /// from her screen, and the next daemon's start says so (withdrawn, expired or dropped), even
    /// though it cannot post it again (she may have dismissed it unheard).
    mutating func toldAfterStart(_ step: SimStep) -> SimViolation? {
        guard Self.starts(step), self.tablet.running else { return nil }
        defer { self.wipedWhileStopped = [] }
        let said = self.tablet.log[min(self.logRead, self.tablet.log.count)...]
        for card in self.wipedWhileStopped where !self.unprovable.contains(Self.call(card)) {
            let told = said.contains {
                Self.endsOfACall.contains($0.fields["DAYSOME_EVENT"] ?? "")
                    && $0.fields["DAYSOME_START"] == card.at.rfc3339
            }
            if !told {
                return self.broke(
                    "told-after-start",
                    "the call at \(card.at.rfc3339) went with a server that left while no daemon ran, and the next start said nothing of it"
                )
            }
        }
        return nil
    }

    /// Whether the call at `start` was sent before she last saw the day and taken by the server
    /// only after: its post was out at her return, which took it back.
    func wasOutAtHerReturn(_ start: String?) -> Bool {
        guard let lastSawTheDay, let start else { return false }
        return self.tablet.server.notified.contains {
            $0.at.rfc3339 == start && $0.sentMonotonic <= lastSawTheDay && $0.postedMonotonic >= lastSawTheDay
        }
    }

    /// Steps that start a daemon.
    static func starts(_ step: SimStep) -> Bool {
        switch step {
        case .start, .startNamed, .powerCut: true
        default: false
        }
    }

    /// Steps after which no return of hers can be read: time, the server, a click.
    static func movesNothingOfHers(_ step: SimStep) -> Bool {
        switch step {
        case .advance, .server, .sessionBus, .click, .clockStep, .suspend: true
        default: false
        }
    }
}
