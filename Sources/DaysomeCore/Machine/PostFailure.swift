// Why a notification server did not take a call, told apart by the D-Bus error of the reply.
// MATE's server quits when idle, and the post that activates it again can meet the old instance
// still going (`Spawn.ChildExited`): the call was due and she has not seen it, so it is posted
// again while rule 2 still allows a late call. A server that answered with an error about the
// call itself would say the same again: that call is dropped at once. A call that got no answer
// in time is neither: a hung server may still show it when it wakes (one seen frozen for 43 s
// showed the call whose Notify had timed out), so it is still being posted, never posted again
// while that server may show it.

/// Why the server did not take a call.
public enum PostFailure: Sendable, Equatable {
    /// No server answered: none could be started, it vanished, or the bus could not reach it.
    case serverUnavailable
    /// The server answered with an error about this call.
    case refused
    /// The bus refused Daysome's own message before it left (sd-bus would not build or send it):
    /// no server saw it, and the same message would be refused again.
    case unsent
    /// No answer came in time, from a server that may still be running: it may yet show the call.
    /// The machine keeps it as posting until the server answers or is proven gone.
    case outcomeUnknown
    /// The daemon held its own Notify back just before it left: the post had waited on the loop
    /// (for a Do Not Disturb, or whether the session has a display), and meanwhile the call was
    /// taken back or the clock moved out of its window. No server saw it.
    case withheld

    /// The failure a D-Bus error name means, e.g. `org.freedesktop.DBus.Error.Spawn.ChildExited`;
    /// `unsent` when the error came from sd-bus refusing our own message before it left (a message
    /// that never left has no unknown outcome). A lost connection is no server answering,
    /// wherever it was noticed.
    public init(busErrorName name: String, unsent: Bool = false) {
        if !unsent && Self.unknownOutcomeNames.contains(name) {
            self = .outcomeUnknown
        } else if name.hasPrefix("org.freedesktop.DBus.Error.Spawn.") || Self.unavailableNames.contains(name) {
            self = .serverUnavailable
        } else {
            self = unsent ? .unsent : .refused
        }
    }

    /// How history says why a call was not taken: whose the failure was, then its words.
    public func reason(_ words: String) -> String {
        switch self {
        case .serverUnavailable, .refused, .outcomeUnknown: "notification server: \(words)"
        case .unsent: "Daysome's message could not be sent: \(words)"
        case .withheld: words
        }
    }

    /// The bus driver's and sd-bus's names for "nobody answered", as opposed to an answer.
    static let unavailableNames: Set<String> = [
        "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner",
        "org.freedesktop.DBus.Error.Disconnected", "org.freedesktop.DBus.Error.NoServer", "System.Error.ENOTCONN",
        "System.Error.ECONNRESET", "System.Error.ECONNREFUSED", "System.Error.EPIPE",
    ]

    /// The names for "no answer yet": a timeout (sd-bus's own says `NoReply`, "Method call timed
    /// out"), or the bus giving up on the reply. The bus says `NoReply` too when the server left
    /// without answering; the machine tells that apart by the server instance the post went to.
    static let unknownOutcomeNames: Set<String> = [
        "org.freedesktop.DBus.Error.NoReply", "org.freedesktop.DBus.Error.Timeout",
        "org.freedesktop.DBus.Error.TimedOut", "System.Error.ETIMEDOUT",
    ]

    /// Seconds before posting again after the `attempt`th failure (1, 2, 4, 8, then every 15 s):
    /// quick enough for a server that is starting, and never a busy loop.
    public static func retryDelay(afterAttempt attempt: Int) -> Int64 {
        attempt >= 5 ? 15 : Int64(1) << Int64(max(0, attempt - 1))
    }
}
