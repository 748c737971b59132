// One thing that happens to a simulated tablet, as one line of a trace. A trace is the whole
// workload of a run, decided before it starts: the same trace replays the same run, and a
// shorter trace (a failing one shrunk) is just fewer lines.

import DaysomeCore

/// One step of the simulated world.
public enum SimStep: Sendable, Equatable {
    /// Time passes, the daemon's timers and the bus's timeouts firing on the way.
    case advance(seconds: Int64)
    /// The display writes its state file (by rename, as the guide's examples do).
    case display(FileWord)
    /// The display writes its line into the file in place (a shell's `>`), the same inode.
    case displayInPlace(FileWord)
    /// The display's process exits while its `foreground pid=N` line stays (it crashed), and N
    /// lives on in another process (its pid was reused): only the daemon's pidfd saw it go.
    case displayExits
    /// The app writes one of the simulation's households (`Households.variants`).
    case household(Int)
    /// A locker says locked (true) or unlocked; nil: it goes away (a screensaver that crashed,
    /// logind gone, its session's requests with it).
    case locker(LockSource, Bool?)
    /// logind's `Lock` (true) or `Unlock` request; with `answered`, the world's locker locks for it.
    case lockRequest(Bool, answered: Bool)
    /// The system bus goes down (false: dbus restarted, every connection dropped) or takes
    /// connections again. logind keeps its word meanwhile; no daemon hears it until it reconnects.
    case systemBus(up: Bool)
    /// The session bus goes down (false: `systemctl --user restart dbus`: the notification server
    /// goes with it and its cards, the daemon's connections drop) or is back, with the desktop's
    /// server started on it anew; the daemon reconnects on its backoff.
    case sessionBus(up: Bool)
    /// The notification server: restarts (its cards wiped), stops, starts, hangs or wakes; or
    /// another takes its name over, and the one taken over from exits later.
    case server(ServerChange)
    /// She clicks the newest card.
    case click
    /// The state disk fills up (true) or is freed.
    case diskFull(Bool)
    /// The runtime directory (tmpfs) fills up (true) or is freed.
    case runtimeFull(Bool)
    /// The daemon is killed (SIGKILL).
    case kill
    /// The daemon starts (systemd's restart, or the next boot's start).
    case start
    /// The power goes: the daemon dies, the runtime directory and the server's cards are gone,
    /// the session starts again unlocked. The state disk keeps what was fsynced; of what was not,
    /// nothing (`tear` nil), or what a disk's write-back drawn by the seed `tear` kept: some
    /// renames and creates, each file's new bytes whole, lost or torn (SimDisk.powerOn). The
    /// model's disk keeps everything.
    case powerCut(tear: UInt64?)
    /// The realtime clock steps by this much (NTP, a carer's hand), without time passing.
    case clockStep(seconds: Int64)
    /// The tablet sleeps this long: nothing runs, then the overdue timer fires and the clock-jump
    /// watch says the clock was set.
    case suspend(seconds: Int64)
    /// The systemd user manager restarts (systemd backend): the lay's timers are gone.
    case managerRestart
    /// The systemd user manager is slow (systemd backend): it handles each call at once, and its
    /// replies come at the next `advance`, so the steps between meet the daemon waiting for them.
    case managerSlow
    /// The display writes its state by rename while the daemon's inotify queue is full: the named
    /// event is lost, and the kernel's nameless overflow reaches the watches instead.
    case displayLostInOverflow(FileWord)
    /// The daemon's loop stops (true: SIGSTOP, a starved CPU) or runs again: meanwhile the display,
    /// the lockers and the server go on, and what queued is dispatched at once when it runs.
    case stall(Bool)
    /// The family's app keeps the household in its own directory, linked from the household's path,
    /// and saves variant N there by rename (the first such save makes the link).
    case householdThroughLink(Int)
    /// The runtime directory takes no new file: its tmpfs is out of inodes (true), or read-only.
    case runtimeRefuses(inodes: Bool)
    /// The daemon starts with its state directory named another way: `STATE/`, or through a link
    /// (`start-as slash`, `start-as link`; a trace's header holds the `start` line).
    case startNamed(StateNaming)

    /// How a start names the state directory.
    public enum StateNaming: String, Sendable, CaseIterable {
        case slash, link
    }

    /// What the display state file holds. `foreground-pid`: `foreground pid=N` of a display that
    /// runs; `dead-pid`: of a pid no process has.
    public enum FileWord: String, Sendable, CaseIterable {
        case foreground, away, missing, garbage
        case foregroundPid = "foreground-pid"
        case deadPid = "dead-pid"
    }

    /// What the notification server does. `restart-at-once`: the new server takes the name before
    /// the daemon has read that the old one went. `take-over`: a second server takes the name
    /// with replacement while the first runs on with its cards (only an answering server, one at
    /// a time); `replaced-exits`: that first server exits, its cards with it. `dnd-on`, `dnd-off`:
    /// its user switches its Do Not Disturb (the embedded world's server is swaync, whose switch
    /// holds every call but a critical one; the model has no Do Not Disturb and changes nothing).
    public enum ServerChange: String, Sendable, CaseIterable {
        case restart, stop, begin, hang, wake
        case restartAtOnce = "restart-at-once"
        case takeOver = "take-over"
        case replacedExits = "replaced-exits"
        case doNotDisturbOn = "dnd-on"
        case doNotDisturbOff = "dnd-off"
    }

    /// The step as one trace line.
    public var line: String {
        switch self {
        case .advance(let seconds): "advance \(seconds)"
        case .display(let word): "display \(word.rawValue)"
        case .displayExits: "display-exits"
        case .displayInPlace(let word): "display-in-place \(word.rawValue)"
        case .household(let variant): "household \(variant)"
        case .locker(let source, let locked):
            "locker \(source.rawValue) \(locked.map { $0 ? "locked" : "unlocked" } ?? "gone")"
        case .lockRequest(let lock, let answered): "request \(lock ? "lock" : "unlock")\(answered ? " answered" : "")"
        case .systemBus(let up): "system-bus \(up ? "up" : "down")"
        case .sessionBus(let up): "session-bus \(up ? "up" : "down")"
        case .server(let change): "server \(change.rawValue)"
        case .click: "click"
        case .diskFull(let full): "disk \(full ? "full" : "free")"
        case .runtimeFull(let full): "runtime \(full ? "full" : "free")"
        case .kill: "kill"
        case .start: "start"
        case .powerCut(let tear): "power-cut\(tear.map { " \($0)" } ?? "")"
        case .clockStep(let seconds): "clock \(seconds)"
        case .suspend(let seconds): "suspend \(seconds)"
        case .managerRestart: "manager-restart"
        case .managerSlow: "manager-slow"
        case .displayLostInOverflow(let word): "display-overflow \(word.rawValue)"
        case .stall(let stalls): stalls ? "stall" : "resume"
        case .householdThroughLink(let variant): "household-link \(variant)"
        case .runtimeRefuses(let inodes): "runtime \(inodes ? "no-inodes" : "read-only")"
        case .startNamed(let naming): "start-as \(naming.rawValue)"
        }
    }

    /// Reads a trace line back; nil when it is not one.
    public init?(line: String) {
        let words = line.split(separator: " ").map(String.init)
        guard let verb = words.first else { return nil }
        let rest = Array(words.dropFirst())
        switch (verb, rest.count) {
        case ("advance", 1):
            guard let seconds = Int64(rest[0]) else { return nil }
            self = .advance(seconds: seconds)
        case ("display", 1):
            guard let word = FileWord(rawValue: rest[0]) else { return nil }
            self = .display(word)
        case ("display-exits", 0): self = .displayExits
        case ("display-in-place", 1):
            // In place, a file is written: missing is no word of this kind.
            guard let word = FileWord(rawValue: rest[0]), word != .missing else { return nil }
            self = .displayInPlace(word)
        case ("household", 1):
            guard let variant = Int(rest[0]) else { return nil }
            self = .household(variant)
        case ("locker", 2):
            guard let source = LockSource(rawValue: rest[0]), source.isLocker,
                ["locked", "unlocked", "gone"].contains(rest[1])
            else { return nil }
            self = .locker(source, rest[1] == "gone" ? nil : rest[1] == "locked")
        case ("request", 1), ("request", 2):
            guard ["lock", "unlock"].contains(rest[0]), rest.count == 1 || rest[1] == "answered" else { return nil }
            self = .lockRequest(rest[0] == "lock", answered: rest.count == 2)
        case ("system-bus", 1), ("session-bus", 1):
            guard ["up", "down"].contains(rest[0]) else { return nil }
            self = verb == "system-bus" ? .systemBus(up: rest[0] == "up") : .sessionBus(up: rest[0] == "up")
        case ("server", 1):
            guard let change = ServerChange(rawValue: rest[0]) else { return nil }
            self = .server(change)
        case ("click", 0): self = .click
        case ("runtime", 1) where ["no-inodes", "read-only"].contains(rest[0]):
            self = .runtimeRefuses(inodes: rest[0] == "no-inodes")
        case ("disk", 1), ("runtime", 1):
            guard ["full", "free"].contains(rest[0]) else { return nil }
            self = verb == "disk" ? .diskFull(rest[0] == "full") : .runtimeFull(rest[0] == "full")
        case ("kill", 0): self = .kill
        case ("start", 0): self = .start
        case ("start-as", 1):
            guard let naming = StateNaming(rawValue: rest[0]) else { return nil }
            self = .startNamed(naming)
        case ("display-overflow", 1):
            // Lost in an overflow is a rename's event: missing is no write.
            guard let word = FileWord(rawValue: rest[0]), word != .missing else { return nil }
            self = .displayLostInOverflow(word)
        case ("stall", 0): self = .stall(true)
        case ("resume", 0): self = .stall(false)
        case ("household-link", 1):
            guard let variant = Int(rest[0]) else { return nil }
            self = .householdThroughLink(variant)
        case ("power-cut", 0): self = .powerCut(tear: nil)
        case ("power-cut", 1):
            guard let tear = UInt64(rest[0]) else { return nil }
            self = .powerCut(tear: tear)
        case ("clock", 1):
            guard let seconds = Int64(rest[0]) else { return nil }
            self = .clockStep(seconds: seconds)
        case ("suspend", 1):
            guard let seconds = Int64(rest[0]), seconds >= 0 else { return nil }
            self = .suspend(seconds: seconds)
        case ("manager-restart", 0): self = .managerRestart
        case ("manager-slow", 0): self = .managerSlow
        default: return nil
        }
    }
}
