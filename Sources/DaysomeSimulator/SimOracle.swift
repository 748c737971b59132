// The rules every step of a run is checked against: the product rules of the design as the
// simulated world can see them. A card on the fake server is what she would see.

import DaysomeCore

extension SimWorld {
    /// Sees the day: the display is in front (its file says so, and the process it names runs)
    /// and no locker covers it.
    var seesTheDay: Bool { self.file.inFront(exited: self.pidLineExited) && !self.lockers.values.contains(true) }

    mutating func broke(_ rule: String, _ message: String) {
        guard self.violation == nil else { return }
        self.violation = SimViolation(rule: rule, message: message, step: self.stepIndex)
    }

    /// The rules that hold after every step.
    mutating func check() {
        guard self.violation == nil else { return }
        // Never twice: a card per call, and one more only for a card the server's leaving wiped;
        // one bell per call, ever.
        for (key, made) in self.server.madeCounts where !self.unprovable.contains(key) {
            let allowed = 1 + self.server.wipedCount(key)
            if made > allowed {
                self.broke("never-twice", "the call at \(key.at.rfc3339) (lay \(key.lay)) was shown \(made) times")
                return
            }
        }
        for (key, rung) in self.bells where rung > 1 && !self.unprovable.contains(key) {
            self.broke("one-bell", "the bell rang \(rung) times for the call at \(key.at.rfc3339)")
            return
        }
        guard let daemon = self.daemon else { return }
        if let broken = daemon.machine.invariantViolations().first {
            self.broke("machine-invariant", broken)
            return
        }
        // Rule 1: nothing over the day once the daemon has had its word (a card whose reply
        // reached no daemon can be closed by nobody: the known limit).
        // A server another took the name over from answers whatever the running one does.
        if self.seesTheDay {
            let shown = self.server.up && !self.server.hung ? self.server.allCards : self.server.replaced?.cards ?? [:]
            let over = shown.filter {
                !self.unreachable.contains($0.value) && !self.unprovable.contains($0.value)
            }
            if let (id, key) = over.min(by: { $0.key < $1.key }) {
                self.broke(
                    "never-over-the-day",
                    "card \(id) for the call at \(key.at.rfc3339) is on screen while she sees the day display")
                return
            }
        }
        // Never silent: no start stays laid past its grace window.
        if let first = daemon.machine.nextLaid,
            first.at.adding(seconds: self.config.grace) < self.now
        {
            self.broke(
                "never-silent",
                "the start at \(first.at.rfc3339) is still laid at \(self.now.rfc3339), past its grace window")
        }
    }

    /// Once time has passed, the daemon's display is what the design makes of what it could
    /// hear: away while a locker it hears says locked, else its file's word (missing is away, an
    /// unreadable line keeps the last, or is foreground at start-up). A daemon stuck on a word no
    /// one says any more (a lock from before a restart, a return it missed) breaks it.
    mutating func checkDisplayAgrees() {
        guard self.violation == nil, let daemon = self.daemon else { return }
        let expected = self.lockersHeard.values.contains(true) ? DisplayState.away : self.fileView
        let decided = daemon.machine.screenLock.effective
        if decided != expected {
            self.broke(
                "display-agrees",
                "the daemon holds the display \(decided.rawValue), but its file says \(self.fileView.rawValue) and the lockers it hears say \(SimStep.said(self.lockersHeard))"
            )
        }
    }

    /// What each locker says, as the daemon can hear it: logind not while its bus is away, the
    /// screensavers not while the session bus is.
    var lockersHeard: [LockSource: Bool] {
        self.lockers.filter { $0.key == .logind ? self.logindHeard : self.sessionBusUp }
    }

    /// She may be in front of the day: no locker covers it, and its file says foreground (or is
    /// unreadable, which the daemon takes for foreground: never a call over the day).
    /// logind's word lost with its bus (a lock made meanwhile) is none the daemon could follow.
    var mayBeInFront: Bool {
        (self.file.inFront(exited: self.pidLineExited) || self.file == .garbage)
            && !self.lockersHeard.values.contains(true)
    }

    /// A call is taken away for her return only when she may be back: a restart while locked
    /// keeps what is on screen (the lock is away, whatever the file says). A file the display
    /// wrote while no daemon ran is a return the start-up replays, by design.
    mutating func checkWithdrawal(_ record: HistoryRecord) {
        guard record.event == .withdrawn, record.lay != 0, !self.mayBeInFront, !self.fileWrittenWhileDown,
            !self.startUnproven, !self.answering,
            let reason = record.reason, reason.hasPrefix("display")
        else { return }
        self.broke(
            "withdrawn-while-away",
            "the call at \(record.at?.rfc3339 ?? "?") was withdrawn (\(reason)) while she cannot see the day")
    }

    /// Rule 2 and nothing stale, at each post: never before its minute, never later than the grace
    /// window (a card posted again after a wipe: only before it expires), and only a start the
    /// household in force plans at that instant (at a start, also one the remembered lay's own
    /// household planned and that fell due while no daemon ran: the design's rule 2 at start-up).
    mutating func checkFresh(_ key: DeliveryKey, _ start: Start) {
        guard let daemon = self.daemon, !key.isSample else { return }
        // A call posted again (the server wiped its card, or left with its post) was called at its
        // minute already (a clock stepped back since may put that minute ahead): it only must not
        // outlive its card.
        let again = !self.attempted.insert(key).inserted
        let latest = again ? start.expiresAt : key.at.adding(seconds: self.config.grace)
        if (!again && self.now < key.at) || self.now > latest {
            self.broke(
                "nothing-stale",
                "the call at \(key.at.rfc3339) was posted at \(self.now.rfc3339), outside \(key.at.rfc3339)…\(latest.rfc3339)"
            )
            return
        }
        guard let household = daemon.machine.household?.load.household else {
            self.broke("nothing-stale", "a call was posted with no household in force")
            return
        }
        let owed = self.owedFrom.flatMap { try? Households.variant($0, zone: self.zone, now: self.now).get() }
        let planners = [household] + (owed.map { [$0.load.household] } ?? [])
        let planned = planners.flatMap {
            Planner.plan($0, after: key.at.adding(seconds: -1), through: key.at).starts
        }
        if !planned.contains(where: { $0.at == key.at && $0.itemIds == start.itemIds }) {
            self.broke(
                "nothing-stale",
                "the call at \(key.at.rfc3339) (\(start.itemIds.joined(separator: ", "))) is not in the household in force"
            )
        }
    }
}

extension FakeServer {
    var madeCounts: [DeliveryKey: Int] { self.made }
    func wipedCount(_ key: DeliveryKey) -> Int { self.wiped[key] ?? 0 }
}

extension SimStep.FileWord {
    /// The display the daemon takes this word for: missing is away, a pid no process has is away,
    /// and so is a pid line whose display the daemon saw exit (`exited`: this boot's exits are
    /// kept across its restarts); an unreadable line keeps the word before it (`before`), or is
    /// foreground at start-up (rule 1 first).
    func view(atStart: Bool, before: DisplayState, exited: Bool) -> DisplayState {
        switch self {
        case .foreground: .foreground
        case .foregroundPid: exited ? .away : .foreground
        case .away, .missing, .deadPid: .away
        case .garbage: atStart ? .foreground : before
        }
    }

    /// Whether the display is in front: its file says so, and the process it names runs.
    func inFront(exited: Bool) -> Bool {
        self == .foreground || (self == .foregroundPid && !exited)
    }
}

extension SimStep {
    /// What lockers say, for a violation's message: "screenSaver locked, logind unlocked".
    static func said(_ lockers: [LockSource: Bool]) -> String {
        let words = lockers.sorted { $0.key.rawValue < $1.key.rawValue }.map {
            "\($0.key.rawValue) \($0.value ? "locked" : "unlocked")"
        }
        return words.isEmpty ? "nothing" : words.joined(separator: ", ")
    }
}
