// The notification servers of the desktop matrix: how each starts, and how a test reads back
// what it shows and clicks a card the way she would. Each runs on its own private bus and its
// own display (Xvfb, or GNOME Shell's own headless Wayland monitor).

import Glibc
import Testing

/// How a test sees and clicks what a server shows.
enum ScreenKind: Sendable {
    /// An X11 server on Xvfb: the root window's pixels say whether a card is up, and a click
    /// lands `clickFromBottom` pixels above the bottom of the server's card window (the middle
    /// when nil): xfce4-notifyd dismisses on a tap of the body; only its button sends the action.
    case x11(clickFromBottom: Int?)
    /// dunst on Xvfb: pixels as for X11; its click is `dunstctl action`, since a left click
    /// only closes a card in dunst's default configuration.
    case dunst
    /// GNOME Shell 43 headless: the test's probe extension reads the message tray and
    /// activates the banner from inside the shell.
    case gnomeShell
    /// Phosh (unlocked) in phoc's X11 backend on Xvfb: its top bar and app button light the
    /// screen already, so a card is the pixels lit beyond that, and a click lands on its banner.
    case phosh
    /// sway on wlroots' X11 backend on Xvfb, run as an unprivileged user (`SwayWorld.swift`):
    /// grim's screenshot lights a card's pixels, and a click lands on the card as she would tap it.
    case sway
    /// plasmashell under KWin on Xvfb: a card is its popup window, mapped and lit; a click lands
    /// on it.
    case plasma
}

/// How a server's own user switches its Do Not Disturb on.
enum DoNotDisturbSwitch: Sendable {
    /// `dunstctl set-paused true`.
    case dunstctl
    /// xfconf's `xfce4-notifyd` channel, `/do-not-disturb` (its settings dialog's switch).
    case xfconf
    /// A GSettings key: MATE's `do-not-disturb`, Phosh's (GNOME's) `show-banners` false.
    case gsettings(schema: String, key: String, value: String)
    /// `doNotDisturb=true` in LXQt's `notifications.conf` (its settings dialog's switch).
    case lxqtSettings
    /// GNOME Shell's message tray busy, as its Do Not Disturb sets it (through the probe).
    case gnomeBusy
    /// `makoctl mode -a do-not-disturb`, the mode its user's configuration makes invisible.
    case makoMode
    /// `swaync-client --dnd-on`, what its control centre's Do Not Disturb switch sets.
    case swaync
    /// Plasma's inhibition: `Inhibit` on its server, as an app showing a film or a talk does.
    case plasmaInhibit
    /// notification-daemon 3.20 has none: no setting in its binary, and no GSettings schema in
    /// its package (`dpkg -L notification-daemon`; `strings` finds no "disturb").
    case none
}

/// What the matrix asserts a server does with a call, under a fullscreen app and through its Do
/// Not Disturb (switched on and forgotten: the household does not respect it).
struct Expected: Sendable {
    /// The call is seen over another app's fullscreen window.
    let overFullscreen: Bool
    /// The call is seen through the server's Do Not Disturb.
    let throughDoNotDisturb: Bool
    /// What `daysomectl status --json` says of the server's Do Not Disturb then
    /// (`notificationServer.doNotDisturb`).
    let reportedDoNotDisturb: String
    /// The urgency the daemon chose for the call under Do Not Disturb.
    let urgencyThroughDoNotDisturb: String
    /// What status says the server answered when last asked (`doNotDisturbLastRead`), where it
    /// sends no word when its switch moves and is read only at calls (mako 1.7).
    var reportedLastRead: String? = nil
    /// With its Do Not Disturb on, another app's normal card is held: the switch took, and only
    /// critical passes (checked where the daemon chooses critical for that reason).
    var holdsOtherAppsNormalCard = false
    /// Whether history's `delivered` line for the call through Do Not Disturb says `held`, where
    /// the matrix checks it, and then that the next call, with the switch off, is shown and says
    /// nothing of it. nil: not checked (the daemon cannot tell the switch, or nothing holds).
    var historySaysHeld: Bool? = nil
}

/// One notification server under test.
struct DesktopServer: Sendable, CustomTestStringConvertible, CustomStringConvertible {
    /// A short name for files and docs/desktops.md: `dunst`, `xfce4-notifyd`, …
    let id: String
    /// The Debian package that ships it.
    let package: String
    let executable: String
    let arguments: [String]
    let screen: ScreenKind
    /// What `GetServerInformation` answers with (the daemon's choice of urgency depends on it).
    let serverName: String
    /// The urgency the daemon must choose for it.
    let urgency: String
    /// How its user switches its Do Not Disturb on.
    let doNotDisturb: DoNotDisturbSwitch
    let expected: Expected
    /// A stand-in for a name `DAYSOME_DESKTOPS` spells that no server has: its case fails.
    var misspelled = false

    var description: String { self.id }
    var testDescription: String { self.id }

    static let dunst = DesktopServer(
        id: "dunst", package: "dunst", executable: "/usr/bin/dunst", arguments: [], screen: .dunst,
        serverName: "dunst", urgency: "normal", doNotDisturb: .dunstctl,
        // Paused dunst 1.9 holds every urgency (no pause levels before 1.10): held, not shown.
        expected: Expected(
            overFullscreen: true, throughDoNotDisturb: false, reportedDoNotDisturb: "on",
            urgencyThroughDoNotDisturb: "normal", historySaysHeld: true))
    static let xfce = DesktopServer(
        id: "xfce4-notifyd", package: "xfce4-notifyd",
        executable: "/usr/lib/x86_64-linux-gnu/xfce4/notifyd/xfce4-notifyd", arguments: [],
        screen: .x11(clickFromBottom: 25), serverName: "Xfce Notify Daemon", urgency: "normal",
        doNotDisturb: .xfconf,
        // Its Do Not Disturb holds normal cards and shows critical ones: the daemon reads it from
        // xfconfd and chooses critical.
        expected: Expected(
            overFullscreen: true, throughDoNotDisturb: true, reportedDoNotDisturb: "on",
            urgencyThroughDoNotDisturb: "critical", holdsOtherAppsNormalCard: true, historySaysHeld: false))
    static let notificationDaemon = DesktopServer(
        id: "notification-daemon", package: "notification-daemon",
        executable: "/usr/lib/notification-daemon/notification-daemon", arguments: [],
        screen: .x11(clickFromBottom: nil),
        serverName: "Notification Daemon", urgency: "normal", doNotDisturb: .none,
        expected: Expected(
            overFullscreen: true, throughDoNotDisturb: true, reportedDoNotDisturb: "unknown",
            urgencyThroughDoNotDisturb: "normal"))
    static let mate = DesktopServer(
        id: "mate-notification-daemon", package: "mate-notification-daemon",
        executable: "/usr/lib/mate-notification-daemon/mate-notification-daemon", arguments: [],
        screen: .x11(clickFromBottom: nil), serverName: "Notification Daemon", urgency: "normal",
        doNotDisturb: .gsettings(schema: "org.mate.NotificationDaemon", key: "do-not-disturb", value: "true"),
        // Over fullscreen only a card without an expire timeout is shown, and the daemon posts ours
        // with none there: seen over the film. Its Do Not Disturb answers Notify with an id and
        // shows nothing, whatever the urgency.
        expected: Expected(
            overFullscreen: true, throughDoNotDisturb: false, reportedDoNotDisturb: "unknown",
            urgencyThroughDoNotDisturb: "normal"))
    static let lxqt = DesktopServer(
        id: "lxqt-notificationd", package: "lxqt-notificationd", executable: "/usr/bin/lxqt-notificationd",
        arguments: [], screen: .x11(clickFromBottom: nil), serverName: "lxqt-notificationd", urgency: "normal",
        doNotDisturb: .lxqtSettings,
        // Its Do Not Disturb holds every urgency; the daemon cannot read its settings file.
        expected: Expected(
            overFullscreen: true, throughDoNotDisturb: false, reportedDoNotDisturb: "unknown",
            urgencyThroughDoNotDisturb: "normal"))
    static let gnomeShell = DesktopServer(
        id: "gnome-shell", package: "gnome-shell", executable: "/usr/bin/gnome-shell",
        arguments: ["--headless", "--wayland", "--virtual-monitor", "1280x800"], screen: .gnomeShell,
        serverName: "gnome-shell", urgency: "critical", doNotDisturb: .gnomeBusy,
        // Critical passes its fullscreen and busy hold; the daemon chooses it there always. The
        // busy hold is presence, not its Do Not Disturb switch (`show-banners`, which the daemon
        // follows): that stays off.
        expected: Expected(
            overFullscreen: true, throughDoNotDisturb: true, reportedDoNotDisturb: "off",
            urgencyThroughDoNotDisturb: "critical"))
    /// GNOME Shell with its own Do Not Disturb switch (`show-banners` false, what its message
    /// list's switch sets): for the live test, not the matrix's scenario.
    static let gnomeShellBanners = DesktopServer(
        id: "gnome-shell", package: "gnome-shell", executable: "/usr/bin/gnome-shell",
        arguments: ["--headless", "--wayland", "--virtual-monitor", "1280x800"], screen: .gnomeShell,
        serverName: "gnome-shell", urgency: "critical",
        doNotDisturb: .gsettings(schema: "org.gnome.desktop.notifications", key: "show-banners", value: "false"),
        expected: Expected(
            overFullscreen: true, throughDoNotDisturb: true, reportedDoNotDisturb: "on",
            urgencyThroughDoNotDisturb: "critical"))

    static let phosh = DesktopServer(
        id: "phosh", package: "phoc", executable: "/usr/bin/phoc",
        arguments: ["-C", "/usr/share/phosh/phoc.ini", "-E", "/usr/libexec/phosh --unlocked"], screen: .phosh,
        serverName: "Phosh Notify Daemon", urgency: "normal",
        doNotDisturb: .gsettings(schema: "org.gnome.desktop.notifications", key: "show-banners", value: "false"),
        // Its Do Not Disturb (show-banners off) hides banners of every urgency; it is a GSettings
        // key, which the daemon follows in the settings backend's file.
        expected: Expected(
            overFullscreen: true, throughDoNotDisturb: false, reportedDoNotDisturb: "on",
            urgencyThroughDoNotDisturb: "normal", historySaysHeld: true))

    static let mako = DesktopServer(
        id: "mako", package: "mako-notifier", executable: "/usr/bin/mako", arguments: [], screen: .sway,
        serverName: "mako", urgency: "normal", doNotDisturb: .makoMode,
        // mako draws its cards on the layer shell's top layer, which a fullscreen window covers:
        // the call is held behind the film. Its Do Not Disturb mode (invisible) hides every
        // urgency; the daemon reads the active modes on the bus (`ListModes`) before a call, and
        // since mako 1.7 says nothing when they change, status says unknown, and what it read.
        expected: Expected(
            overFullscreen: false, throughDoNotDisturb: false, reportedDoNotDisturb: "unknown",
            urgencyThroughDoNotDisturb: "normal", reportedLastRead: "on", historySaysHeld: true))
    /// mako as docs/desktops.md tells a carer to set it up: Daysome's cards on the overlay layer.
    static let makoOverlay = DesktopServer(
        id: "mako-overlay", package: "mako-notifier", executable: "/usr/bin/mako", arguments: [], screen: .sway,
        serverName: "mako", urgency: "normal", doNotDisturb: .makoMode,
        // `[app-name=Daysome] layer=overlay` in its configuration lifts the calls above a
        // fullscreen window; its do-not-disturb mode still hides them.
        expected: Expected(
            overFullscreen: true, throughDoNotDisturb: false, reportedDoNotDisturb: "unknown",
            urgencyThroughDoNotDisturb: "normal", reportedLastRead: "on"))
    static let swaync = DesktopServer(
        id: "swaync", package: "sway-notification-center", executable: "/usr/bin/swaync", arguments: [],
        screen: .sway, serverName: "SwayNotificationCenter", urgency: "normal", doNotDisturb: .swaync,
        // Its popups are on the overlay layer, above a fullscreen window. Its Do Not Disturb
        // holds normal popups and lets critical ones through; the daemon reads it (`GetDnd`).
        expected: Expected(
            overFullscreen: true, throughDoNotDisturb: true, reportedDoNotDisturb: "on",
            urgencyThroughDoNotDisturb: "critical", holdsOtherAppsNormalCard: true, historySaysHeld: false))

    static let plasma = DesktopServer(
        id: "plasma", package: "plasma-workspace", executable: "/usr/bin/plasmashell", arguments: [],
        screen: .plasma, serverName: "Plasma", urgency: "critical", doNotDisturb: .plasmaInhibit,
        // KWin keeps normal popups under a fullscreen window and lifts critical ones above it;
        // its inhibition lets critical through (and says so in `Inhibited`, which the daemon reads).
        expected: Expected(
            overFullscreen: true, throughDoNotDisturb: true, reportedDoNotDisturb: "on",
            urgencyThroughDoNotDisturb: "critical"))

    /// Every server of the matrix, run side by side.
    static let all: [DesktopServer] = [
        .dunst, .xfce, .notificationDaemon, .mate, .lxqt, .gnomeShell, .phosh, .plasma, .mako, .makoOverlay,
        .swaync,
    ]

    /// The servers to run: all of them, or those `DAYSOME_DESKTOPS` names (comma-separated ids),
    /// to try one server at a time while working on it.
    static var selected: [DesktopServer] {
        guard let wanted = Self.wanted else { return Self.all }
        return Self.all.filter { wanted.contains($0.id) }
    }

    /// The selected servers, and a stand-in whose case fails for each name in `DAYSOME_DESKTOPS`
    /// that no server has, or for a selection that names none: a typo would otherwise run no
    /// server and pass.
    static var selectedOrMisspelled: [DesktopServer] {
        guard let wanted = Self.wanted else { return Self.all }
        let unknown = wanted.filter { name in !Self.all.contains { $0.id == name } }
        let named = Self.selected + unknown.map(Self.misspelled)
        return named.isEmpty ? [Self.misspelled("")] : named
    }

    /// The ids `DAYSOME_DESKTOPS` names; nil where it is unset or empty (every server).
    private static var wanted: [String]? {
        guard let names = getenv("DAYSOME_DESKTOPS").map({ String(cString: $0) }), !names.isEmpty else {
            return nil
        }
        return names.split(separator: ",").map(String.init)
    }

    private static func misspelled(_ name: String) -> DesktopServer {
        DesktopServer(
            id: name, package: "", executable: "", arguments: [], screen: .dunst, serverName: "", urgency: "",
            doNotDisturb: .none,
            expected: Expected(
                overFullscreen: false, throughDoNotDisturb: false, reportedDoNotDisturb: "",
                urgencyThroughDoNotDisturb: ""),
            misspelled: true)
    }
}
