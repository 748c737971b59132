// Whether a call's post goes out now or waits for a notification server. One rule, followed by
// the daemon's notifier, the embedded world's server and the model simulator alike: before, each
// kept its own copy, in its own words.

/// What a post handed to the notifier does.
public enum PostRoute: Equatable, Sendable {
    /// A server owns the name and has said who it is, or the bus may start one for the post: the
    /// Notify goes out.
    case send
    /// A server owns the name but has not said who it is yet (the daemon just started, or the
    /// server or the bus just came back). Its name decides the call's urgency: at the urgency of
    /// no known server, swaync's or XFCE's forgotten Do Not Disturb holds the call out of sight.
    /// Ask it first (a probe, 10 s a call at most), then send, whatever it said.
    case askWhoTheServerIs
    /// No server owns the name. The post may have the bus start one, but only a session with a
    /// display can run one: ask the user manager's environment first, the daemon's own where no
    /// manager answers (`afterAsking`).
    case askWhetherTheSessionHasADisplay
    /// Wait for a server: the post fails as `serverUnavailable`, and the machine posts it again
    /// when a server takes the name, or drops it when rule 2's window closes. `reason` is what
    /// status and the log say.
    case wait(reason: String)

    /// Said of a card posted again because its server left with it.
    public static let desktopsOwnReason =
        "the notification server went away with the call's card: waiting for the desktop's own to come back"
    /// Who said whether the session has a display: the user manager, whose environment a server
    /// the bus starts gets, or, where no manager answered, the daemon's own environment.
    public enum DisplayWitness: Equatable, Sendable {
        case userManager
        case daemonsOwnEnvironment
    }

    /// Said where no server runs and nothing could show one, naming the environment that was read.
    public static func noDisplayReason(_ witness: DisplayWitness) -> String {
        let whose =
            switch witness {
            case .userManager: "in the user manager's environment"
            case .daemonsOwnEnvironment: "in the daemon's own environment; no user manager answered"
            }
        return "no notification server on the session bus, and the session has no display to start one on "
            + "(no DISPLAY or WAYLAND_DISPLAY \(whose)): waiting for a server"
    }

    /// The route of a post as it is handed over. A card posted again because its server went
    /// away (`DaemonMachine.mayStartAServer` false) never has the bus start one: the desktop starts
    /// its own again, and one the bus started first would take the name, so that the desktop's
    /// own then fails to.
    public static func whenPosting(
        serverOwnsTheName: Bool, serverHasSaidWhoItIs: Bool, mayStartServer: Bool
    ) -> PostRoute {
        if serverOwnsTheName { return serverHasSaidWhoItIs ? .send : .askWhoTheServerIs }
        return mayStartServer ? .askWhetherTheSessionHasADisplay : .wait(reason: Self.desktopsOwnReason)
    }

    /// The route once `witness` said whether the session has a display. A server that took the
    /// name while the question was out (the bus came back) takes the post either way, once it has
    /// said who it is.
    public static func afterAsking(
        sessionHasDisplay: Bool, saidBy witness: DisplayWitness, serverOwnsTheName: Bool,
        serverHasSaidWhoItIs: Bool
    ) -> PostRoute {
        if serverOwnsTheName { return serverHasSaidWhoItIs ? .send : .askWhoTheServerIs }
        return sessionHasDisplay ? .send : .wait(reason: Self.noDisplayReason(witness))
    }
}
