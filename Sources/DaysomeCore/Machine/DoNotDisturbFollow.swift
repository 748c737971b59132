// How the daemon follows a server's Do Not Disturb as it changes, as data: the change signal
// each server sends (or none), so that `status` tells the switch before any call goes out and
// never a value read at an earlier call. The daemon subscribes and decodes; the decisions, and
// the words a carer reads, are here.

/// The signal that tells a server's Do Not Disturb changed.
public enum DoNotDisturbSignal: Sendable, Equatable {
    /// `org.freedesktop.DBus.Properties.PropertiesChanged` of a boolean property, sent by
    /// `sender` at `path` (dunst's `paused`, Plasma's `Inhibited`): the value is in the signal.
    case booleanProperty(sender: String, path: String, interface: String, property: String)
    /// A signal of the server's own whose second argument is the Do Not Disturb boolean
    /// (SwayNotificationCenter's `Subscribe(u count, b dnd, b ccOpen)`, and the `SubscribeV2`
    /// of later versions with one more boolean).
    case secondArgument(sender: String, path: String, interface: String, members: [String])
    /// xfconfd's `PropertyChanged(s channel, s property, v value)` for one channel's property
    /// (and `PropertyRemoved(s, s)`, which puts it back to its default: off).
    case xfconfProperty(channel: String, property: String)
    /// A property changed or invalidated whose new value is read again with the server's query
    /// (mako's `Modes`, sent from mako 1.8 on; mako 1.7 sends nothing, see `followsOnlyIfPresent`).
    case propertyThenQuery(sender: String, path: String, interface: String, property: String)
}

/// How the daemon knows a server's Do Not Disturb.
public struct DoNotDisturbFollow: Sendable, Equatable {
    /// The signal to subscribe to.
    public let signal: DoNotDisturbSignal
    /// Where only servers with this property send the signal (mako 1.8 has `Modes`; mako 1.7
    /// does not, and sends nothing when its modes change): the daemon asks for the property
    /// once, and follows only where it is there.
    public let followsOnlyIfPresent: Bool
    /// The server in the words `status` uses: "dunst's `paused`".
    public let what: String

    public init(signal: DoNotDisturbSignal, followsOnlyIfPresent: Bool = false, what: String) {
        self.signal = signal
        self.followsOnlyIfPresent = followsOnlyIfPresent
        self.what = what
    }
}

/// What the daemon can say of a server's Do Not Disturb now, and how it knows.
public enum DoNotDisturbKnowledge: String, Sendable, Equatable {
    /// Followed live: the value is the server's own word as of its last change signal.
    case followed
    /// The server sends no change signal: read only just before a call, so the value is old the
    /// moment it is read, and `status` says `unknown` (with what the last call found).
    case readBeforeCalls
    /// The bus cannot tell it at all.
    case unreadable
}

extension OnEveryDesktop {
    /// The change signal of the Do Not Disturb of the server named `serverName`, or nil where it
    /// sends none the daemon can follow.
    ///
    /// - dunst 1.9: `PropertiesChanged` of `org.dunstproject.cmd0` `paused` (its introspection
    ///   annotates `EmitsChangedSignal`, and `dunstctl set-paused` sets it through `Set`).
    /// - Plasma: `PropertiesChanged` of `org.freedesktop.Notifications` `Inhibited`.
    /// - SwayNotificationCenter 0.7: `Subscribe(u, b dnd, b)` on its control centre, sent at each
    ///   switch (and `SubscribeV2` from 0.8).
    /// - xfce4-notifyd: xfconfd's `PropertyChanged` of `xfce4-notifyd` `/do-not-disturb`.
    /// - mako: `Modes` changed (mako 1.8 on); mako 1.7 has no such property and sends nothing.
    public static func doNotDisturbFollow(serverName: String?) -> DoNotDisturbFollow? {
        let notifications = "org.freedesktop.Notifications"
        switch serverName {
        case "dunst":
            return DoNotDisturbFollow(
                signal: .booleanProperty(
                    sender: notifications, path: "/org/freedesktop/Notifications",
                    interface: "org.dunstproject.cmd0", property: "paused"),
                what: "dunst's `paused`")
        case "Plasma":
            return DoNotDisturbFollow(
                signal: .booleanProperty(
                    sender: notifications, path: "/org/freedesktop/Notifications", interface: notifications,
                    property: "Inhibited"),
                what: "Plasma's `Inhibited`")
        case "SwayNotificationCenter":
            return DoNotDisturbFollow(
                signal: .secondArgument(
                    sender: "org.erikreider.swaync.cc", path: "/org/erikreider/swaync/cc",
                    interface: "org.erikreider.swaync.cc", members: ["Subscribe", "SubscribeV2"]),
                what: "swaync's `Subscribe` signal")
        case "Xfce Notify Daemon":
            return DoNotDisturbFollow(
                signal: .xfconfProperty(channel: "xfce4-notifyd", property: "/do-not-disturb"),
                what: "xfconf's `xfce4-notifyd` `/do-not-disturb`")
        case "mako":
            return DoNotDisturbFollow(
                signal: .propertyThenQuery(
                    sender: notifications, path: "/fr/emersion/Mako", interface: "fr.emersion.Mako", property: "Modes"
                ),
                followsOnlyIfPresent: true, what: "mako's `Modes`")
        default:
            return nil
        }
    }

    /// Whether the server's Do Not Disturb is GSettings' `show-banners` false (GNOME Shell 43's
    /// switch, and Phosh's), which the daemon follows in the settings backend's file.
    public static func followsShowBanners(serverName: String?) -> Bool {
        Self.isGnomeShell(serverName) || serverName == "Phosh Notify Daemon"
    }

    /// The Do Not Disturb `status` publishes: the server's word where it is followed, `unknown`
    /// elsewhere (a value read at a call is stale the moment the switch moves).
    public static func publishedDoNotDisturb(
        _ state: ServerDoNotDisturb, knowledge: DoNotDisturbKnowledge
    ) -> ServerDoNotDisturb {
        knowledge == .followed ? state : .unknown
    }

    /// Why the server holds a call it took out of sight, where it says so: its Do Not Disturb
    /// was on when the call went out (as followed, or read just before it), and the call's
    /// urgency does not pass it. nil where it shows the call or cannot say (mako does not know
    /// a fullscreen app covers its cards).
    public static func held(
        serverName: String?, vendor: String?, doNotDisturb: ServerDoNotDisturb, urgency: CallUrgency
    ) -> String? {
        guard doNotDisturb == .on else { return nil }
        if urgency == .critical && Self.criticalPassesDoNotDisturb(serverName: serverName, vendor: vendor) {
            return nil
        }
        let who: String
        switch serverName {
        case "Phosh Notify Daemon": who = "Phosh"
        case "SwayNotificationCenter": who = "swaync"
        case "Xfce Notify Daemon": who = "xfce4-notifyd"
        case nil: who = "the server"
        case let name?: who = name
        }
        return "\(who)'s Do Not Disturb was on when it took the call: it keeps the card out of sight"
    }

    /// Whether a call on this server passes its Do Not Disturb: the daemon posts `critical` there
    /// and the server shows critical through it (GNOME Shell, Plasma, xfce4-notifyd, swaync).
    static func criticalPassesDoNotDisturb(serverName: String?, vendor: String?) -> Bool {
        Self.isGnomeShell(serverName) || (serverName == "Plasma" && vendor == "KDE")
            || Self.doNotDisturbPassesOnlyCritical(serverName)
    }

    /// What `status` adds to "Can deliver: yes" about the server's Do Not Disturb, so that it
    /// never claims more than the daemon knows; nil where the switch changes nothing a carer
    /// needs to know (off, or passed at critical whatever it is).
    ///
    /// - Parameters:
    ///   - published: what `status` says of the switch (`publishedDoNotDisturb`).
    ///   - knowledge: how the daemon knows it.
    ///   - respectDoNotDisturb: the household lets a Do Not Disturb hold calls back.
    public static func doNotDisturbNote(
        serverName: String?, vendor: String?, published: ServerDoNotDisturb, knowledge: DoNotDisturbKnowledge,
        respectDoNotDisturb: Bool
    ) -> String? {
        let passes = Self.criticalPassesDoNotDisturb(serverName: serverName, vendor: vendor)
        switch published {
        case .off:
            return nil
        case .on:
            if respectDoNotDisturb {
                return "but its Do Not Disturb is on and the household respects it: calls wait, banner and bell"
            }
            if passes { return "through its Do Not Disturb, which is on: calls pass it at critical urgency" }
            return
                "but its Do Not Disturb is on and hides every card: no call is seen until someone switches it off (a bell the household has still rings)"
        case .unknown:
            // GNOME Shell and Plasma get critical whatever the switch says; elsewhere critical
            // goes only once the switch is known to be on.
            let alwaysCritical = Self.isGnomeShell(serverName) || (serverName == "Plasma" && vendor == "KDE")
            if alwaysCritical && !respectDoNotDisturb { return nil }
            switch knowledge {
            case .readBeforeCalls:
                return
                    "unless its Do Not Disturb hides the card: this server sends no word when it changes, so it is read only just before each call"
            case .followed, .unreadable:
                return "unless its Do Not Disturb hides the card: this server does not tell it"
            }
        }
    }
}
