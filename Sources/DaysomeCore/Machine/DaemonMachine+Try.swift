// `daysomectl try`, whole: what a carer hears and sees when she asks for one call now, decided
// here from what the machine knows (the household's chime, the display) and what the shell can
// tell (a notifier, whether it asks the server's Do Not Disturb first, whether a respected one
// holds the bell, a sound player). The shell only executes, and passes the words on.

/// What the daemon's shell can tell at a `try`.
public struct TryFacts: Sendable, Equatable {
    /// A notifier runs (none: `--notifier` named none that started).
    public var notifier: Bool
    /// The notifier asks the server's Do Not Disturb before a bell: the bell waits for its word
    /// (`readDoNotDisturbForTheBell`), never the loop.
    public var readsDoNotDisturb: Bool
    /// A respected Do Not Disturb holds calls back now, as last known.
    public var bellHeld: Bool
    /// Do Not Disturb is respected (the household's choice, else `--dnd`).
    public var respectsDoNotDisturb: Bool
    /// A sound player was found.
    public var player: Bool

    public init(notifier: Bool, readsDoNotDisturb: Bool, bellHeld: Bool, respectsDoNotDisturb: Bool, player: Bool) {
        self.notifier = notifier
        self.readsDoNotDisturb = readsDoNotDisturb
        self.bellHeld = bellHeld
        self.respectsDoNotDisturb = respectsDoNotDisturb
        self.player = player
    }
}

extension DaemonMachine {
    /// What the journal says when a respected Do Not Disturb holds the bell, a call's or a try's.
    static let bellHeldByDoNotDisturb = MachineAction.log(
        .info, "The notification server is paused (Do Not Disturb): the bell stays silent")

    /// A carer's `try`: the bell (now, once the server's Do Not Disturb is read, or not at all:
    /// the household turned it off), and a sample call shown for ten seconds, only while the day
    /// display is not in front (rule 1: over it only the bell plays). Returns the words `try`
    /// prints, and the actions.
    public mutating func tryCall(_ facts: TryFacts, now: Instant) -> (reply: String, actions: [MachineAction]) {
        var actions: [MachineAction] = []
        let sound: String
        if self.household?.load.household.settings.chime == .off {
            sound = "the bell is off (settings.chime)"
        } else if facts.readsDoNotDisturb {
            actions.append(.readDoNotDisturbForTheBell)
            sound =
                facts.respectsDoNotDisturb
                ? "the bell plays unless the server's Do Not Disturb is on (respected)" : "the bell is playing"
        } else {
            let bell = Self.tryBell(held: facts.bellHeld, player: facts.player)
            sound = bell.words
            actions += bell.actions
        }
        guard self.display == .away else {
            return ("\(sound); nothing shown, because the day display is in front (rule 1)", actions)
        }
        guard facts.notifier else { return ("\(sound); no notifier", actions) }
        actions += self.handle(.trySample, now: now)
        return ("\(sound); a sample call is shown for ten seconds", actions)
    }

    /// A try's bell once the server's word on its Do Not Disturb is known (`held`: a respected one
    /// holds calls back): it plays where a player exists.
    public static func tryBell(held: Bool, player: Bool) -> (words: String, actions: [MachineAction]) {
        if held {
            return (
                "the bell stays silent: the notification server is paused (Do Not Disturb, respected)",
                [Self.bellHeldByDoNotDisturb]
            )
        }
        guard player else { return ("no sound player was found (pw-play, paplay, aplay): the bell is silent", []) }
        return ("the bell is playing", [.chime])
    }
}
