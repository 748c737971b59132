// Where a notification server's Do Not Disturb can be read on the session bus, as data: the
// daemon sends the call (never letting the bus start a service for it) and reads a boolean from
// the variant reply. Servers whose switch lives only in a settings file (MATE's GSettings key,
// LXQt's notifications.conf, Phosh's `show-banners`) are not listed: the daemon cannot tell.

/// A D-Bus method call whose reply is a variant holding a boolean: on means Do Not Disturb.
public struct DoNotDisturbQuery: Sendable, Equatable {
    public let destination: String
    public let path: String
    public let interface: String
    public let member: String
    /// String arguments, in order.
    public let arguments: [String]

    public init(destination: String, path: String, interface: String, member: String, arguments: [String]) {
        self.destination = destination
        self.path = path
        self.interface = interface
        self.member = member
        self.arguments = arguments
    }
}

extension OnEveryDesktop {
    /// The call that reads the Do Not Disturb of the server named `serverName`, or nil where the
    /// bus cannot tell.
    ///
    /// - dunst: its `org.dunstproject.cmd0` `paused` property (what `dunstctl set-paused` sets).
    /// - xfce4-notifyd: xfconf's `xfce4-notifyd` channel, property `/do-not-disturb` (what its
    ///   settings dialog and `xfconf-query` set), read from xfconfd.
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
                member: "GetProperty", arguments: ["xfce4-notifyd", "/do-not-disturb"])
        default:
            return nil
        }
    }

    /// Whether the server's Do Not Disturb decides anything about a call, so that it is worth
    /// asking just before one: only where the bus can tell it, and only when the household
    /// respects a Do Not Disturb (it holds the call) or the server needs `critical` to pass one.
    public static func doNotDisturbDecides(serverName: String?, respect: Bool) -> Bool {
        guard Self.doNotDisturbQuery(serverName: serverName) != nil else { return false }
        return respect || Self.isXfce(serverName)
    }
}
