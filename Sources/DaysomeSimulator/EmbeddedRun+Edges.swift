// The tablet's edges on the embedded world (SimStep+Edges.swift), and the rule that holds every
// start to account: one the household in force planned, whose minute fell while she was away, is
// shown, or the journal names it and says why; one lost while she stayed hidden through its grace
// window is a breach. "Never silent" alone asks only that no start stays laid past its window, so
// a start the daemon dropped from its lay without a word (a return and a lock read in one burst
// after a stall) passed it.

import DaysomeCore
import DaysomeFiles
import DaysomeWorld
import Glibc

/// What the embedded world keeps of the tablet's edges, and of the account of starts.
struct EdgeWorld {
    /// The wall clock was ever set back in this run: a call no restart could prove may be made
    /// again at its minute lived anew (the known limit), and only then.
    var clockSetBack = false
    /// The runtime tmpfs has no inode left (`runtime no-inodes`): no new file, not even the apps'.
    var runtimeOutOfInodes = false
    /// Since when she has been hidden from the day, as the daemon can know it, without a break
    /// (nil: she sees it, or what the daemon hears may still be on its way).
    var hiddenSince: Instant?
    /// Since when a daemon has run (stalled or not), and whether she was hidden when the last one
    /// stopped: a start whose minute fell while none ran is owed only where a lay was in force then
    /// (a lock made while no daemon ran has no time a start could know it by).
    var runningSince: Instant?
    var hiddenWhenStopped = false
    /// Since when a daemon has run with its loop going, and a server answered on the session bus,
    /// without a break.
    var upSince: Instant?
    /// Since when the household the daemon lays from has been the same (the last good one a
    /// daemon read), and what the world knew of households then (how many, which was read).
    var householdSince: Instant?
    var householdsKnown = (count: 0, read: 0)
    /// The end of the last grace window judged.
    var judgedThrough: Instant?
    /// Starts up to here are not judged: the account began afresh after them (the run's start, a
    /// clock set back over minutes already lived).
    var floor = Instant(seconds: 0)
    /// The latest wall time the world has been at.
    var latest = Instant(seconds: 0)
}

extension EmbeddedWorld {
    /// Where the family's app keeps the household when it links it.
    var linkedHousehold: String { self.tablet.root + "/app/household.json" }

    /// Saves `text` behind the household's link: the first time the app moves its file to its own
    /// directory and links it from the household's path (a rename, as it saves); later saves are
    /// renames in its own directory, which the household's directory never hears of.
    mutating func saveHouseholdThroughLink(_ text: String) throws {
        let tablet = self.tablet
        let household = tablet.paths.household
        // Its directory is made again where a power cut took it (it was never synced).
        try tablet.files.makeDirectories(directory(of: self.linkedHousehold), mode: 0o700)
        if tablet.files.status(household, followLinks: false)?.kind == .symlink {
            try tablet.saveByRename(self.linkedHousehold, text)
            return
        }
        try tablet.files.writeAtomically(self.linkedHousehold, Array(text.utf8), mode: 0o600, durable: false)
        tablet.plant(at: household) { path in
            try? tablet.files.removeFile(path)
            tablet.simDisk?.installSymlink(path, to: self.linkedHousehold)
        }
    }

    /// The runtime directory takes no new file: its tmpfs's inodes are all used (ENOSPC for a new
    /// file only: what exists is written in place), or it is read-only (EROFS for every write).
    mutating func runtimeRefuses(inodes: Bool) {
        guard inodes, let disk = self.tablet.simDisk else {
            self.tablet.failRuntime(EROFS)
            return
        }
        let run = directory(of: self.tablet.paths.runtimeDirectory)
        disk.setInodeLimit(disk.usedInodes(at: run) ?? 0, at: run)
        self.edges.runtimeOutOfInodes = true
    }

    /// The runtime directory freed (or a new tmpfs at boot): inodes, and writes, again.
    mutating func runtimeTakesNewFiles() {
        guard self.edges.runtimeOutOfInodes, let disk = self.tablet.simDisk else { return }
        disk.setInodeLimit(1 << 20, at: directory(of: self.tablet.paths.runtimeDirectory))
        self.edges.runtimeOutOfInodes = false
    }

    /// The state directory as this start names it: as the tablet does, `STATE/`, or a link to it.
    func nameStateDirectory(for step: SimStep) {
        let tablet = self.tablet
        if let given = tablet.arguments.firstIndex(of: "--state-dir") {
            tablet.arguments.removeSubrange(given...)
        }
        guard case .startNamed(let naming) = step else { return }
        let named: String
        switch naming {
        case .slash: named = tablet.paths.stateDirectory + "/"
        case .link:
            named = tablet.root + "/state-link"
            if tablet.files.status(named, followLinks: false) == nil {
                tablet.simDisk?.installSymlink(named, to: tablet.paths.stateDirectory)
            }
        }
        tablet.arguments += ["--state-dir", named]
    }

    /// Every start held to account (see the top of this file): judged once its grace window, and
    /// the longest wait a decided post may make on the loop, are over. Judged only where the world
    /// knows the account is owed: she was hidden, as the daemon can know it, from before its
    /// minute to the window's end; a daemon ran with its loop going at the window's end; the
    /// household in force planned it and was in force since before its minute; the wall clock ran
    /// with time (a step, a suspend, a boot or a lost manager start the account afresh).
    mutating func heldToAccount(after step: SimStep) -> SimViolation? {
        defer { self.followTheAccount(after: step) }
        let tablet = self.tablet
        let now = tablet.now
        let window = self.grace + DaemonMachine.longestWaitBeforeANotify + 1
        guard let judgedThrough = self.edges.judgedThrough, judgedThrough < now, !Self.startsTheAccountAfresh(step)
        else { return nil }
        self.edges.judgedThrough = now
        guard let hiddenSince = self.edges.hiddenSince, let upSince = self.edges.upSince,
            let householdSince = self.edges.householdSince, case let variant = self.lastReadGood,
            case .success(let loaded) = Households.variant(variant, zone: self.zone, now: now)
        else { return nil }
        let from = max(
            judgedThrough.adding(seconds: -window), hiddenSince, householdSince, self.edges.floor.adding(seconds: 1))
        let starts = Planner.plan(
            loaded.load.household, after: from.adding(seconds: -1), through: now.adding(seconds: -window)
        )
        .starts
        let ranSince = self.edges.runningSince ?? now
        for start in starts
        where start.at >= from && start.at.adding(seconds: window) >= upSince
            && (start.at >= ranSince || self.edges.hiddenWhenStopped)
        {
            let stamp = start.at.rfc3339
            let shown =
                tablet.server.notified.contains { $0.at == start.at }
                || tablet.server.heldNotifies.contains { $0.hasPrefix(stamp) }
            let named = tablet.log.contains { $0.fields["DAYSOME_START"] == stamp }
            if !shown && !named {
                return self.broke(
                    "held-to-account",
                    "the start at \(stamp) fell while she was away and hidden through its grace window, and was neither shown nor named"
                )
            }
        }
        return nil
    }

    /// Steps that part the wall clock from time (a step, a suspend), or end what the daemon knew
    /// of its starts (a boot, a user manager that lost its timers): the account begins again.
    static func startsTheAccountAfresh(_ step: SimStep) -> Bool {
        switch step {
        case .clockStep, .suspend, .powerCut, .managerRestart: true
        default: false
        }
    }

    /// What the account knows after `step`: whether she is hidden, whether a daemon runs, since when.
    mutating func followTheAccount(after step: SimStep) {
        let tablet = self.tablet
        let now = tablet.now
        if Self.startsTheAccountAfresh(step) || self.edges.judgedThrough == nil {
            self.edges.floor = max(self.edges.latest, now)
            self.edges.hiddenSince = nil
            self.edges.runningSince = nil
            self.edges.upSince = nil
            self.edges.householdSince = nil
            self.edges.judgedThrough = now
        }
        self.edges.latest = max(self.edges.latest, now)
        if tablet.running {
            self.edges.runningSince = self.edges.runningSince ?? now
        } else if self.edges.runningSince != nil {
            // Hidden up to this step, as the account knew it before the daemon went.
            self.edges.hiddenWhenStopped = self.edges.hiddenSince != nil
            self.edges.runningSince = nil
        }
        let hidden =
            !self.seesTheDayAsTheDaemonCanKnow && !self.reconnecting && !self.sessionReconnecting
            && self.file != .garbage
        self.edges.hiddenSince = hidden ? (self.edges.hiddenSince ?? now) : nil
        // A server that could take the call, too: a start no server could take is judged by no
        // window's end (the daemon names it once it gives up, which may be when a server is back).
        let up =
            tablet.running && !tablet.loop.stalled && self.sessionBusUp && !self.sessionReconnecting
            && tablet.server.instance != nil && !tablet.server.hung
        self.edges.upSince = up ? (self.edges.upSince ?? now) : nil
        let known = (count: self.households.count, read: self.lastReadGood)
        if known != self.edges.householdsKnown || self.edges.householdSince == nil {
            self.edges.householdsKnown = known
            self.edges.householdSince = now
        }
    }
}
