// Where a notification server's Do Not Disturb can be read on the session bus, as data: the
// daemon sends the call (never letting the bus start a service for it) and reads the reply in
// the shape the server gives it. Servers whose switch lives only in a settings file (MATE's
// GSettings key, LXQt's notifications.conf, Phosh's `show-banners`) are not listed: the daemon
// cannot tell.

/// How a server's reply says its Do Not Disturb.
public enum DoNotDisturbReply: Sendable, Equatable {
    /// A property's variant holding a boolean (`org.freedesktop.DBus.Properties.Get`).
    case propertyBoolean
    /// A plain boolean (SwayNotificationCenter's `GetDnd`).
    case boolean
    /// A list of names (mako's active modes): on while it holds `name`, off while it holds only
    /// names that hide nothing (`neutral`), and unknown otherwise: another mode may be the
    /// user's own Do Not Disturb under another name.
    case namesInclude(String, neutral: [String])

    /// What the decoded reply says: a boolean, or the names the server listed.
    public func doNotDisturb(boolean: Bool? = nil, names: [String]? = nil) -> ServerDoNotDisturb {
        switch self {
        case .propertyBoolean, .boolean:
            guard let boolean else { return .unknown }
            return boolean ? .on : .off
        case .namesInclude(let name, let neutral):
            guard let names else { return .unknown }
            if names.contains(name) { return .on }
            return names.allSatisfy(neutral.contains) ? .off : .unknown
        }
    }
}

/// A D-Bus method call whose reply tells a server's Do Not Disturb.
public struct DoNotDisturbQuery: Sendable, Equatable {
    public let destination: String
    public let path: String
    public let interface: String
    public let member: String
    /// String arguments, in order.
    public let arguments: [String]
    public let reply: DoNotDisturbReply
    /// The D-Bus error that means the switch was never set, so it is off (xfconfd's
    /// `PropertyNotFound` until someone first switches xfce4-notifyd's on).
    public let neverSetError: String?

    public init(
        destination: String, path: String, interface: String, member: String, arguments: [String],
        reply: DoNotDisturbReply = .propertyBoolean, neverSetError: String? = nil
    ) {
        self.destination = destination
        self.path = path
        self.interface = interface
        self.member = member
        self.arguments = arguments
        self.reply = reply
        self.neverSetError = neverSetError
    }
}

extension OnEveryDesktop {
    /// The call that reads the Do Not Disturb of the server named `serverName`, or nil where the
    /// bus cannot tell.
    ///
    /// - dunst: its `org.dunstproject.cmd0` `paused` property (what `dunstctl set-paused` sets).
    /// - xfce4-notifyd: xfconf's `xfce4-notifyd` channel, property `/do-not-disturb` (what its
    ///   settings dialog and `xfconf-query` set), read from xfconfd.
    /// - Plasma: its server's `Inhibited` property (an app's `Inhibit`, or its own switch).
    /// - SwayNotificationCenter: its control centre's `GetDnd` (what `swaync-client --dnd-on` and
    ///   the control centre's switch set), a plain boolean.
    /// - mako: its active modes (`ListModes`); on while they hold `do-not-disturb`, the mode that
    ///   mako(5) has its user make invisible and that `makoctl mode -a do-not-disturb` adds; off
    ///   while only `default` is active.
    public static func doNotDisturbQuery(serverName: String?) -> DoNotDisturbQuery? {
        switch serverName {
        case "dunst":
            return DoNotDisturbQuery(
                destination: "org.freedesktop.Notifications", path: "/org/freedesktop/Notifications",
                interface: "org.freedesktop.DBus.Properties", member: "Get",
                arguments: ["org.dunstproject.cmd0", "paused"])
        case "Xfce Notify Daemon":
            return DoNotDisturbQuery(
                destination: "org.xfce.Xfconf", path: "/org/xfce/Xfconf", interface: "org.xfce.Xfconf",
                member: "GetProperty", arguments: ["xfce4-notifyd", "/do-not-disturb"],
                neverSetError: "org.xfce.Xfconf.Error.PropertyNotFound")
        case "Plasma":
            return DoNotDisturbQuery(
                destination: "org.freedesktop.Notifications", path: "/org/freedesktop/Notifications",
                interface: "org.freedesktop.DBus.Properties", member: "Get",
                arguments: ["org.freedesktop.Notifications", "Inhibited"])
        case "SwayNotificationCenter":
            return DoNotDisturbQuery(
                destination: "org.erikreider.swaync.cc", path: "/org/erikreider/swaync/cc",
                interface: "org.erikreider.swaync.cc", member: "GetDnd", arguments: [], reply: .boolean)
        case "mako":
            return DoNotDisturbQuery(
                destination: "org.freedesktop.Notifications", path: "/fr/emersion/Mako", interface: "fr.emersion.Mako",
                member: "ListModes", arguments: [], reply: .namesInclude("do-not-disturb", neutral: ["default"]))
        default:
            return nil
        }
    }

    /// Whether the server's Do Not Disturb decides anything about a call, so that it is worth
    /// asking just before one: only where the bus can tell it, and only when the household
    /// respects a Do Not Disturb (it holds the call) or the server needs `critical` to pass one.
    public static func doNotDisturbDecides(serverName: String?, respect: Bool) -> Bool {
        guard Self.doNotDisturbQuery(serverName: serverName) != nil else { return false }
        return respect || Self.doNotDisturbPassesOnlyCritical(serverName)
    }
}
