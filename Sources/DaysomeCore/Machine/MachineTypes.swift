// The vocabulary of the daemon's state machine: the events the loop feeds it and the actions
// it returns. The machine decides; the daemon's Manager only executes.

/// How the machine behaves, from the daemon's options.
public struct MachineConfig: Sendable, Equatable {
    /// Rule 2: how late a start may still be delivered, in seconds (default 5 minutes).
    public var grace: Int64 = 300
    /// How far ahead a lay reaches, in seconds.
    public var horizon: Int64 = Int64(Planner.defaultDays) * 86_400
    /// While away, at least this much stays laid: a top-up extends the lay before it runs shorter.
    public var minimumPending: Int64 = 6 * 86_400
    /// How long after a call the day comes back (`settings.bringDayBack`): the chime plays out first.
    public var bringBackDelay: Int64 = 3
    /// Where starts wait: in the machine's own wheel, or in the systemd manager's timers (which
    /// then report each fire back as `.fired`).
    public var startsLiveIn: StartStore = .wheel

    public init(grace: Int64 = 300, startsLiveIn: StartStore = .wheel) {
        self.grace = grace
        self.startsLiveIn = startsLiveIn
    }
}

/// Who holds a lay's starts until they are due.
public enum StartStore: String, Sendable, Equatable {
    /// The machine's timer wheel: the daemon arms one timer for its next deadline.
    case wheel
    /// The user's systemd manager: one transient timer per lay part; fires come back as events.
    case systemd
}

/// A household that loaded, with the identity of the bytes it came from.
public struct LoadedHousehold: Sendable, Equatable {
    public let load: HouseholdLoad
    /// Changes whenever the file's bytes change: a changed household means a new lay.
    public let digest: UInt64
    /// When it was read.
    public let loadedAt: Instant
    /// Whether it came from the household file or from the daemon's kept copy of the last good one.
    public let fromKeptCopy: Bool

    public init(load: HouseholdLoad, digest: UInt64, loadedAt: Instant, fromKeptCopy: Bool = false) {
        self.load = load
        self.digest = digest
        self.loadedAt = loadedAt
        self.fromKeptCopy = fromKeptCopy
    }
}

/// Something that happened, as the daemon's loop reports it.
public enum MachineEvent: Sendable {
    /// A carer asks for one sample call now (`daysomectl try`).
    case trySample
    /// The display the daemon acts on now: the state file's word, or away while the session is locked.
    case display(DisplayState)
    /// The household file was read again.
    case household(Result<LoadedHousehold, HouseholdFileError>)
    /// The armed timer fired (or the loop woke for another reason): time moved on.
    case timer
    /// The realtime clock jumped or the system zone changed: re-lay from the plan.
    case clockChanged(reason: String)
    /// The server answered a Notify with its id; `server` is the instance that answered (the
    /// reply's sender), where known: the name may have changed owner since the post went out.
    /// `held` is the server's word that it keeps the card out of sight (`OnEveryDesktop.held`).
    /// `bellHeld`: a Do Not Disturb the family respects was on when the call went out
    /// (`UrgencyChoice.bellHeld`), so the server holds the banner and the bell waits with it.
    case posted(
        DeliveryKey, notificationId: UInt32, server: String? = nil, held: String? = nil, bellHeld: Bool = false)
    /// The server refused or did not answer a Notify: a server that was unavailable gets the
    /// call again while rule 2 allows it; a call refused is dropped; a call with no answer in time
    /// from a server that may still show it stays posting, until it answers or is gone.
    case postFailed(DeliveryKey, reason: String, failure: PostFailure = .refused)
    /// The server closed a notification itself, with its `NotificationClosed` reason (1 expired,
    /// 2 dismissed, 4 other): history records it.
    /// `server` is the instance that sent it, where known: ids are per instance.
    case serverClosed(notificationId: UInt32, reason: UInt32, server: String? = nil)
    /// The notification server's bus name changed owner. `previous`: the instance that owned it
    /// (nil: the bus itself is new, and every instance on the old one went with it);
    /// `previousRuns`: whether the bus said that instance is still on it (nil: it could not tell).
    /// The machine tells the two apart: one that still runs was taken over from (or let the name
    /// go), its cards stay on its screen and its ids are closed there; one that is gone restarted
    /// or stopped, and every id it gave is void. `answering`: the instance that answers now (nil:
    /// none), which the machine then identifies itself, as `serverIdentified` does.
    case serverOwnerChanged(previous: String?, previousRuns: Bool?, answering: String?)
    /// A server instance that another had taken the name over from left the bus: its cards went
    /// with it.
    case serverInstanceGone(String)
    /// At start-up, before the server is identified: what became of the server instances that
    /// stamped the ids an earlier daemon kept and that do not answer now, where the shell could
    /// tell. `running`: another took the name over while no daemon ran, and each still shows its
    /// cards. `gone`: each left (it, its bus or the machine restarted), its cards with it.
    case earlierServers(running: Set<String>, gone: Set<String>)
    /// Which server instance now answers (its bus, unique name and the boot); nil when none does.
    /// Ids stamped with another instance are forgotten, never closed.
    case serverIdentified(String?)
    /// A timer of the systemd manager fired for a lay: deliver what is due, if that lay is current.
    case fired(lay: UInt64)
    /// The systemd manager lost the lay's timers (it restarted): lay what remains again.
    case timersLost
    /// She clicked a call (its `default` action): bring the day back.
    case clicked(notificationId: UInt32, server: String? = nil)
    /// The notification server's Do Not Disturb went from on to off: a call it kept out of sight,
    /// which the household did not ask to be held, is shown once now, inside its window.
    case doNotDisturbWentOff
    /// The loop has read everything that queued while it could not run (a stall, a stop, a busy
    /// iteration): the starts held by `.judgeWhenCaughtUp` are judged by what she sees now.
    case caughtUp
}

extension MachineEvent {
    /// The server's name changed owner and the one before is gone (it exited, or the bus is new):
    /// a restart, or a stop where `answering` is nil.
    public static func serverRestarted(answering: String?) -> MachineEvent {
        .serverOwnerChanged(previous: nil, previousRuns: false, answering: answering)
    }

    /// Another server took the name over while `previous` still runs.
    public static func serverTakenOver(previous: String, answering: String?) -> MachineEvent {
        .serverOwnerChanged(previous: previous, previousRuns: true, answering: answering)
    }
}

/// Something the daemon must do, in order.
public enum MachineAction: Sendable, Equatable {
    /// Post a notification for a start.
    case post(DeliveryKey, Start)
    /// Post a notification for a start in place of a call still on screen (`replaces_id`): one
    /// card at a time.
    case replace(DeliveryKey, Start, replacing: UInt32)
    /// Close a posted notification, on the server instance that gave its id (nil: the one now
    /// answering; another may have taken the name over since).
    case close(DeliveryKey, notificationId: UInt32, server: String? = nil)
    /// Append to the history.
    case record(HistoryRecord)
    /// Write the persisted state (before any post that depends on it).
    case persist
    /// Write the live queue and status.
    case publish
    /// Arm the one realtime timer at this instant, or disarm it.
    case arm(Instant?)
    /// Log a line at a syslog priority.
    case log(LogPriority, String)
    /// Systemd backend: put these starts of a lay into the manager as one more timer; with
    /// `replacing`, first stop every `daysome-` timer the manager holds. `exactAlarms` is the
    /// household's setting the lay was made under (timers to the second, or to the minute).
    case layTimers(lay: UInt64, starts: [Start], replacing: Bool, exactAlarms: Bool)
    /// Systemd backend: stop every `daysome-` timer.
    case stopTimers
    /// Play the bell (the household's chime is on, and a call was just posted), where a player exists.
    case chime
    /// Ask the notification server's Do Not Disturb afresh, then play the bell `tryBell` decides
    /// for its word (a carer's `try`, whose bell no post carries).
    case readDoNotDisturbForTheBell
    /// Bring the day display back, by the daemon's configured means.
    case bringDisplayBack(reason: String)
    /// Read the display's state file again and hand its word to `displayRead` (an unreadable
    /// line keeps the file's last word): the lock changed, and the file decides again.
    case readDisplay
    /// Starts fell due before a return was read: hand `.caughtUp` once the loop has read every
    /// event that queued meanwhile (a lock 0.1 s after the return may still be unread).
    case judgeWhenCaughtUp
}

/// Syslog priorities, as the journal takes them.
public enum LogPriority: Int, Sendable, Equatable {
    case error = 3
    case warning = 4
    case notice = 5
    case info = 6
    case debug = 7
}

/// What the wheel holds.
public enum WheelEntry: Sendable, Equatable {
    /// A start of the current lay.
    case start(Start)
    /// Close a delivered call when its card would leave the display.
    case expire(DeliveryKey)
    /// Extend the current lay so that enough stays pending.
    case topUp
    /// Bring the display back, three seconds after a call so that its chime plays out.
    case bringBack
    /// Systemd backend with exact alarms: the minute of the next start the manager holds. The
    /// daemon calls at that minute itself; the manager's timer, which fires at a boot-derived
    /// offset up to its 1 s accuracy later, then finds the start delivered.
    case managerStart
    /// Post again a call the notification server could not take (it was starting, or gone).
    case repost(DeliveryKey)
    /// The carer's sample call (`daysomectl try`) leaves the screen.
    case sampleEnd
}

extension MachineAction {
    /// Whether it closes a card: every close comes before the state write that forgets its card
    /// (`DaemonMachine.persistingOnce`), and what an interpreter does first.
    public var isClose: Bool {
        if case .close = self { return true }
        return false
    }
}
