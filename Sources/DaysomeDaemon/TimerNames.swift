// The names the systemd backend gives its timers, and the few it must not reuse. Only what the
// current lay needs is kept: a daemon that flips its display thousands of times a week lays
// thousands of lays, and a counter or a name kept for each would grow for as long as it runs.

/// Picks `daysome-layN[-k]` names for one lay's parts, never one the manager may still hold.
struct TimerNames {
    /// How many names just stopped are remembered: a clear stops a handful, and the manager
    /// forgets a stopped transient unit within moments.
    static let stoppedKept = 512

    /// The lay whose parts were named last, and the next part number for it. An older lay is
    /// never extended (a clear overtakes it), so its counter is dropped with it.
    private(set) var current: (lay: UInt64, nextPart: Int)?
    /// Names just stopped: the manager may still hold them a moment, so a new timer never reuses one.
    private(set) var stopped: Set<String> = []

    /// The unit name of one part of a lay: `daysome-lay12`, `daysome-lay12-3` (plus `.timer`/`.service`).
    static func unitName(lay: UInt64, part: Int) -> String {
        part == 0 ? "daysome-lay\(lay)" : "daysome-lay\(lay)-\(part)"
    }

    /// The next part's name for `lay` whose timer and service are not in `taken` (units the
    /// manager lists, timers asked for) nor just stopped.
    mutating func next(lay: UInt64, taken: Set<String>) -> String {
        var part = self.current?.lay == lay ? self.current?.nextPart ?? 0 : 0
        // A timer's service outlives it while its fire runs (a fire waits up to 5 s for a daemon
        // that is restarting): a new timer must not take that service's name either.
        while [".timer", ".service"].contains(where: { suffix in
            let name = Self.unitName(lay: lay, part: part) + suffix
            return taken.contains(name) || self.stopped.contains(name)
        }) {
            part += 1
        }
        self.current = (lay, part + 1)
        return Self.unitName(lay: lay, part: part)
    }

    /// Remembers names just stopped, within bounds: kept across stops (a second stop right after
    /// the first lists nothing), forgotten wholesale once there are more than `stoppedKept`.
    mutating func stopped(_ names: Set<String>) {
        if self.stopped.count > Self.stoppedKept { self.stopped = [] }
        self.stopped.formUnion(names)
    }

    /// A new manager connection: the names stopped on the old one are forgotten, but the current
    /// lay's counter is kept. A manager that crashed leaves its transient units' files behind, and
    /// the new one refuses those names (`UnitExists`) without listing them: the relay of the same
    /// lay takes the next part.
    mutating func reconnected() {
        self.stopped = []
    }
}
