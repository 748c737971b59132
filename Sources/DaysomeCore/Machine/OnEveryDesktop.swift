// What real notification servers taught us ("On every desktop" in the design), as pure
// decisions: which urgency a call gets on which server and why, when the expire hint lands, and
// what history says when the server, not the daemon, closed a card. No bus here: the daemon's
// notifier asks these and executes the answer.

/// The freedesktop urgency levels a call may use (`low` is never right for a call).
public enum CallUrgency: UInt8, Sendable, Equatable {
    /// 1: the server's own rules apply (DND, fullscreen hold).
    case normal = 1
    /// 2: passes GNOME Shell's fullscreen and busy hold, and GNOME's and KDE's Do Not Disturb.
    case critical = 2

    /// The word `status` shows.
    public var name: String {
        switch self {
        case .normal: return "normal"
        case .critical: return "critical"
        }
    }
}

/// What the server says of its Do Not Disturb, where it says anything.
public enum ServerDoNotDisturb: String, Sendable, Equatable {
    /// On: dunst paused, or GNOME's presence busy.
    case on
    /// Off, as the server told it.
    case off
    /// The server has no way to tell us.
    case unknown
}

/// The urgency chosen for a server, and why, in words `daysomectl status` shows.
public struct UrgencyChoice: Sendable, Equatable {
    public let urgency: CallUrgency
    public let reason: String
    /// The bell stays silent: a Do Not Disturb the family respects holds the call back.
    public let bellHeld: Bool

    public init(urgency: CallUrgency, reason: String, bellHeld: Bool) {
        self.urgency = urgency
        self.reason = reason
        self.bellHeld = bellHeld
    }
}

/// The rules for every desktop, as pure functions.
public enum OnEveryDesktop {
    /// Seconds after `expiresAt` that the server's expire hint lands: the daemon's close comes
    /// first everywhere (LXQt timed cards out up to 0.5 s early when the hint was exact), and the
    /// hint is only the backstop for a daemon that is gone.
    public static let expireHintSlack: Int64 = 5

    /// The `expire_timeout` of a Notify posted at `now` for a card that leaves at `expiresAt`, in
    /// milliseconds: `expireHintSlack` after `expiresAt`, at least 1 ms, within `Int32`; 0 (no
    /// timeout) on MATE's server.
    ///
    /// Being seen comes first: MATE's server hides every card that can time out while a
    /// fullscreen window is active (its `fullscreen_window_exists`, whatever the urgency) and
    /// shows one without a timeout, so there the call gets none, and the daemon's own close at
    /// `expiresAt` (by the stamped id, also after a restart) is what takes it away.
    public static func expireTimeout(
        expiresAt: Instant, now: Instant, serverName: String? = nil, vendor: String? = nil
    ) -> Int32 {
        if Self.isMate(serverName: serverName, vendor: vendor) { return 0 }
        let seconds = expiresAt.seconds - now.seconds + Self.expireHintSlack
        return Int32(max(1, min(Int64(Int32.max), seconds * 1_000)))
    }

    /// Whether a server name is GNOME Shell's (`GetServerInformation` says "gnome-shell").
    static func isGnomeShell(_ name: String?) -> Bool {
        name?.lowercased() == "gnome-shell"
    }

    /// Whether a server is MATE's (`GetServerInformation` says "Notification Daemon", "MATE").
    static func isMate(serverName: String?, vendor: String?) -> Bool {
        serverName == "Notification Daemon" && vendor == "MATE"
    }

    /// Whether a server name is xfce4-notifyd's: its Do Not Disturb holds `normal` calls and
    /// shows `critical` ones, drawn as calmly as a normal card.
    static func isXfce(_ name: String?) -> Bool {
        name == "Xfce Notify Daemon"
    }

    /// Whether a server's Do Not Disturb holds `normal` calls and lets `critical` ones through:
    /// xfce4-notifyd's, and SwayNotificationCenter's (its popups bypass it at critical urgency).
    static func doNotDisturbPassesOnlyCritical(_ name: String?) -> Bool {
        Self.isXfce(name) || name == "SwayNotificationCenter"
    }

    /// The urgency for a call on the server named `serverName`.
    ///
    /// GNOME Shell 43 holds `normal` banners while the primary monitor is fullscreen or presence
    /// is busy (its Do Not Disturb); only `critical` passes, and GNOME draws a critical banner as
    /// calmly as a normal one (it only stays until dismissed, which a call wants anyway). Other
    /// servers draw `critical` in alarm red or never time it out, and show `normal` over
    /// fullscreen: they keep `normal`, except xfce4-notifyd while its Do Not Disturb is on (it
    /// holds `normal` there and shows `critical` as calmly).
    ///
    /// - Parameters:
    ///   - respectDoNotDisturb: the household's `settings.respectDoNotDisturb` (or the daemon's
    ///     `--dnd` default): a Do Not Disturb the family set holds calls back, banner and bell.
    ///   - doNotDisturb: what the server says of its Do Not Disturb.
    public static func urgency(
        serverName: String?, vendor: String? = nil, doNotDisturb: ServerDoNotDisturb, respectDoNotDisturb: Bool
    ) -> UrgencyChoice {
        let held = respectDoNotDisturb && doNotDisturb == .on
        if held {
            // Normal lets the server hold the banner; the daemon holds the bell with it.
            return UrgencyChoice(
                urgency: .normal,
                reason: "Do Not Disturb is on and the household respects it: the server holds the call, the bell waits",
                bellHeld: true)
        }
        if Self.isGnomeShell(serverName) {
            return UrgencyChoice(
                urgency: .critical,
                reason: respectDoNotDisturb
                    ? "GNOME Shell holds normal banners over a fullscreen app; only critical passes"
                    : "GNOME Shell holds normal banners over a fullscreen app and in Do Not Disturb; only critical passes",
                bellHeld: false)
        }
        if serverName == "Plasma" && vendor == "KDE" {
            // Seen in the desktop matrix: KWin stacks normal popups under a fullscreen window and
            // critical ones above it; its inhibition lets critical through.
            return UrgencyChoice(
                urgency: .critical,
                reason:
                    "Plasma keeps normal popups under a fullscreen app and while inhibited; only critical passes, drawn with an orange edge",
                bellHeld: false)
        }
        if Self.doNotDisturbPassesOnlyCritical(serverName) && doNotDisturb == .on {
            let server = Self.isXfce(serverName) ? "xfce4-notifyd" : serverName ?? "the server"
            return UrgencyChoice(
                urgency: .critical,
                reason:
                    "\(server)'s Do Not Disturb is on and holds normal calls; only critical passes, drawn as calmly",
                bellHeld: false)
        }
        if Self.isMate(serverName: serverName, vendor: vendor) {
            return UrgencyChoice(
                urgency: .normal,
                reason:
                    "MATE's server hides every card that can time out while a fullscreen app is in front: calls go with no timeout, so they are shown over it, and the daemon closes them at their end",
                bellHeld: false)
        }
        if serverName == "mako" {
            // Seen in the desktop matrix: its cards are on the layer shell's top layer, which a
            // fullscreen window covers, at any urgency, unless its configuration lifts Daysome's to
            // the overlay layer (which the daemon cannot see); its do-not-disturb mode hides every
            // card.
            let dnd =
                doNotDisturb == .on
                ? "; its do-not-disturb mode hides every call, so the bell still calls" : ""
            return UrgencyChoice(
                urgency: .normal,
                reason:
                    "mako draws its cards under a fullscreen app unless its configuration has `[app-name=Daysome]` `layer=overlay`: without it a call is not seen over one, only once she leaves it\(dnd)",
                bellHeld: false)
        }
        let dnd =
            doNotDisturb == .on
            ? "; its Do Not Disturb holds even critical, so the bell still calls" : ""
        return UrgencyChoice(
            urgency: .normal, reason: "this server shows normal calls over a fullscreen app\(dnd)", bellHeld: false)
    }

    /// What history records when the server closed a card the daemon still had on screen.
    ///
    /// `NotificationClosed` reasons: 1 the server timed it out, 2 she dismissed it, 3 a
    /// CloseNotification (the daemon's own, never recorded here), 4 anything else.
    public static func serverClose(reason: UInt32) -> (event: HistoryRecord.Event, reason: String) {
        switch reason {
        case 1: return (.expired, "the notification server timed it out")
        case 2: return (.withdrawn, "she dismissed it")
        default: return (.withdrawn, "the notification server closed it (reason \(reason))")
        }
    }

    /// Whether the server leaves a card on screen after CloseNotification (notification-daemon
    /// 3.20 emits NotificationClosed and keeps the bubble): the daemon then first replaces the
    /// card with one that expires at once.
    public static func keepsClosedCards(serverName: String?, vendor: String?) -> Bool {
        serverName == "Notification Daemon" && vendor == "GNOME"
    }

    /// The history reason of a call that a newer call took the place of (`replaces_id`).
    public static func replacedReason(by newer: Instant) -> String {
        "replaced by the call at \(newer.rfc3339)"
    }

    /// The history reason of a call she clicked (the daemon closes it where the server keeps it).
    public static let clickedReason = "she clicked the call"
}
