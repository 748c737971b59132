// Do Not Disturb followed live: which change signal each server sends, what `status` publishes
// from it, the words "Can deliver" adds, and GNOME's and Phosh's `show-banners` read from the file
// the settings backend writes (a dconf database written by dconf-service on this machine, and
// GLib's key file). Pure: no bus, no file.

import DaysomeCore
import Testing

@Suite("Do Not Disturb is followed live, and status never claims more than it knows")
struct DoNotDisturbFollowTests {
    @Test("Each server's Do Not Disturb is followed through its own change signal, and mako's only where it has one")
    func eachServerIsFollowedThroughItsOwnSignal() throws {
        let dunst = try #require(OnEveryDesktop.doNotDisturbFollow(serverName: "dunst"))
        #expect(
            dunst.signal
                == .booleanProperty(
                    sender: "org.freedesktop.Notifications", path: "/org/freedesktop/Notifications",
                    interface: "org.dunstproject.cmd0", property: "paused"))
        let plasma = try #require(OnEveryDesktop.doNotDisturbFollow(serverName: "Plasma"))
        #expect(
            plasma.signal
                == .booleanProperty(
                    sender: "org.freedesktop.Notifications", path: "/org/freedesktop/Notifications",
                    interface: "org.freedesktop.Notifications", property: "Inhibited"))
        let swaync = try #require(OnEveryDesktop.doNotDisturbFollow(serverName: "SwayNotificationCenter"))
        #expect(
            swaync.signal
                == .secondArgument(
                    sender: "org.erikreider.swaync.cc", path: "/org/erikreider/swaync/cc",
                    interface: "org.erikreider.swaync.cc", members: ["Subscribe", "SubscribeV2"]))
        let xfce = try #require(OnEveryDesktop.doNotDisturbFollow(serverName: "Xfce Notify Daemon"))
        #expect(xfce.signal == .xfconfProperty(channel: "xfce4-notifyd", property: "/do-not-disturb"))
        // mako 1.7 sends nothing when its modes change: followed only where `Modes` is there.
        let mako = try #require(OnEveryDesktop.doNotDisturbFollow(serverName: "mako"))
        #expect(mako.followsOnlyIfPresent)
        for name in ["dunst", "Plasma", "SwayNotificationCenter", "Xfce Notify Daemon"] {
            #expect(OnEveryDesktop.doNotDisturbFollow(serverName: name)?.followsOnlyIfPresent == false, "\(name)")
        }
        // GNOME Shell and Phosh keep theirs in GSettings; the others have none the daemon can follow.
        #expect(OnEveryDesktop.followsShowBanners(serverName: "gnome-shell"))
        #expect(OnEveryDesktop.followsShowBanners(serverName: "Phosh Notify Daemon"))
        for name in ["Notification Daemon", "lxqt-notificationd", nil] {
            #expect(OnEveryDesktop.doNotDisturbFollow(serverName: name) == nil)
            #expect(!OnEveryDesktop.followsShowBanners(serverName: name))
        }
    }

    @Test("A Do Not Disturb read only at calls is published unknown, never as the stale value")
    func aValueReadOnlyAtCallsIsPublishedUnknown() {
        for state in [ServerDoNotDisturb.on, .off, .unknown] {
            #expect(OnEveryDesktop.publishedDoNotDisturb(state, knowledge: .followed) == state)
            #expect(OnEveryDesktop.publishedDoNotDisturb(state, knowledge: .readBeforeCalls) == .unknown)
            #expect(OnEveryDesktop.publishedDoNotDisturb(state, knowledge: .unreadable) == .unknown)
        }
    }

    @Test("Can deliver never claims more than the daemon knows of the server's Do Not Disturb")
    func canDeliverNeverClaimsMoreThanItKnows() throws {
        func note(
            _ name: String, _ vendor: String? = nil, state: ServerDoNotDisturb,
            _ knowledge: DoNotDisturbKnowledge = .followed, respect: Bool = false
        ) -> String? {
            OnEveryDesktop.doNotDisturbNote(
                serverName: name, vendor: vendor, published: state, knowledge: knowledge, respectDoNotDisturb: respect)
        }
        // Off: a plain yes.
        #expect(note("dunst", state: .off) == nil)
        // On where it hides every urgency (dunst paused, Phosh, mako): not seen until switched off.
        for name in ["dunst", "Phosh Notify Daemon", "mako"] {
            let on = try #require(note(name, state: .on))
            #expect(on.hasPrefix("but its Do Not Disturb is on and hides every card"), "\(on)")
        }
        // On where critical passes (GNOME Shell, Plasma, swaync, xfce4-notifyd): through it.
        for (name, vendor) in [("gnome-shell", "GNOME"), ("Plasma", "KDE"), ("SwayNotificationCenter", "x")] {
            #expect(note(name, vendor, state: .on)?.hasPrefix("through its Do Not Disturb") == true, "\(name)")
        }
        // On and respected: calls wait.
        #expect(note("gnome-shell", "GNOME", state: .on, respect: true)?.contains("calls wait") == true)
        // Unknown: a yes with the doubt named, and where it is read only at calls, why.
        let unreadable = try #require(note("lxqt-notificationd", state: .unknown, .unreadable))
        #expect(unreadable.hasPrefix("unless its Do Not Disturb hides the card"), "\(unreadable)")
        let makoSeventeen = try #require(note("mako", state: .unknown, .readBeforeCalls))
        #expect(makoSeventeen.contains("read only just before each call"), "\(makoSeventeen)")
        // GNOME Shell and Plasma get critical whatever the switch: nothing to doubt unless respected.
        #expect(note("gnome-shell", "GNOME", state: .unknown, .unreadable) == nil)
        #expect(note("Plasma", "KDE", state: .unknown, .unreadable) == nil)
        #expect(note("SwayNotificationCenter", state: .unknown, .unreadable) != nil)
        // Rule 4: the daemon's words never hold these.
        let forbidden = ["missed", "overdue", "late", "reminder", "pill", "pills", "dose", "medication", "medicine"]
        let all = [ServerDoNotDisturb.on, .off, .unknown].flatMap { state in
            [DoNotDisturbKnowledge.followed, .readBeforeCalls, .unreadable].flatMap { knowledge in
                [true, false].compactMap { respect in note("mako", state: state, knowledge, respect: respect) }
            }
        }
        for text in all {
            let words = text.lowercased().split { !$0.isLetter }.map(String.init)
            #expect(words.allSatisfy { !forbidden.contains($0) }, "\(text)")
        }
    }

    /// `gsettings set org.gnome.desktop.notifications show-banners false` and `... clock-format
    /// '12h'` through dconf-service 0.40 on Debian 12: its `user` database, byte for byte.
    static let dconfDatabase: [UInt8] = [
        0x47, 0x56, 0x61, 0x72, 0x69, 0x61, 0x6e, 0x74, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x18, 0x00,
        0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x28, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x01, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00, 0x07, 0x00, 0x00, 0x00, 0x08, 0x00,
        0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0xb0, 0xb7, 0x24, 0x30, 0x05, 0x00, 0x00, 0x00,
        0x00, 0x01, 0x00, 0x00, 0x06, 0x00, 0x4c, 0x00, 0x08, 0x01, 0x00, 0x00, 0x0c, 0x01, 0x00, 0x00, 0xb9, 0x88,
        0xfd, 0xda, 0x00, 0x00, 0x00, 0x00, 0x0c, 0x01, 0x00, 0x00, 0x08, 0x00, 0x4c, 0x00, 0x14, 0x01, 0x00, 0x00,
        0x1c, 0x01, 0x00, 0x00, 0xd9, 0x82, 0xb5, 0x1c, 0x04, 0x00, 0x00, 0x00, 0x1c, 0x01, 0x00, 0x00, 0x0c, 0x00,
        0x76, 0x00, 0x28, 0x01, 0x00, 0x00, 0x2b, 0x01, 0x00, 0x00, 0x39, 0xc5, 0x3b, 0x4f, 0x01, 0x00, 0x00, 0x00,
        0x2b, 0x01, 0x00, 0x00, 0x0a, 0x00, 0x4c, 0x00, 0x38, 0x01, 0x00, 0x00, 0x3c, 0x01, 0x00, 0x00, 0xc2, 0x1d,
        0x8c, 0x85, 0x01, 0x00, 0x00, 0x00, 0x3c, 0x01, 0x00, 0x00, 0x0e, 0x00, 0x4c, 0x00, 0x4c, 0x01, 0x00, 0x00,
        0x50, 0x01, 0x00, 0x00, 0x4b, 0x50, 0x90, 0x0b, 0x07, 0x00, 0x00, 0x00, 0x50, 0x01, 0x00, 0x00, 0x04, 0x00,
        0x4c, 0x00, 0x54, 0x01, 0x00, 0x00, 0x58, 0x01, 0x00, 0x00, 0x3b, 0x6f, 0xaa, 0x09, 0x03, 0x00, 0x00, 0x00,
        0x58, 0x01, 0x00, 0x00, 0x0c, 0x00, 0x76, 0x00, 0x68, 0x01, 0x00, 0x00, 0x6e, 0x01, 0x00, 0x00, 0xd4, 0xb5,
        0x02, 0x00, 0xff, 0xff, 0xff, 0xff, 0x6e, 0x01, 0x00, 0x00, 0x01, 0x00, 0x4c, 0x00, 0x70, 0x01, 0x00, 0x00,
        0x74, 0x01, 0x00, 0x00, 0x67, 0x6e, 0x6f, 0x6d, 0x65, 0x2f, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x64, 0x65,
        0x73, 0x6b, 0x74, 0x6f, 0x70, 0x2f, 0x03, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x73, 0x68, 0x6f, 0x77,
        0x2d, 0x62, 0x61, 0x6e, 0x6e, 0x65, 0x72, 0x73, 0x00, 0x00, 0x62, 0x69, 0x6e, 0x74, 0x65, 0x72, 0x66, 0x61,
        0x63, 0x65, 0x2f, 0x00, 0x00, 0x00, 0x06, 0x00, 0x00, 0x00, 0x6e, 0x6f, 0x74, 0x69, 0x66, 0x69, 0x63, 0x61,
        0x74, 0x69, 0x6f, 0x6e, 0x73, 0x2f, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x6f, 0x72, 0x67, 0x2f, 0x00, 0x00,
        0x00, 0x00, 0x63, 0x6c, 0x6f, 0x63, 0x6b, 0x2d, 0x66, 0x6f, 0x72, 0x6d, 0x61, 0x74, 0x00, 0x00, 0x00, 0x00,
        0x31, 0x32, 0x68, 0x00, 0x00, 0x73, 0x2f, 0x00, 0x05, 0x00, 0x00, 0x00,
    ]

    @Test("show-banners false in dconf's user database is Do Not Disturb on; a key never set is the default")
    func showBannersFalseInDconfIsDoNotDisturbOn() {
        let store = GSettingsStore.dconf(file: "/home/her/.config/dconf/user")
        #expect(GSettingsKey.showBanners.value(in: store, bytes: Self.dconfDatabase) == false)
        // Another key in the same database is found by its whole path, not its last part.
        let clock = GSettingsKey(path: "/org/gnome/desktop/interface/", name: "show-banners", defaultValue: true)
        #expect(clock.value(in: store, bytes: Self.dconfDatabase) == true)
        // No database yet: nothing was ever set, so the schema's default (banners shown).
        #expect(GSettingsKey.showBanners.value(in: store, bytes: nil) == true)
        // A truncated or foreign file is unreadable, never a guess.
        #expect(GSettingsKey.showBanners.value(in: store, bytes: Array(Self.dconfDatabase.prefix(100))) == nil)
        #expect(GSettingsKey.showBanners.value(in: store, bytes: Array("[org]\nx=1\n".utf8)) == nil)
    }

    @Test("show-banners in GLib's key file is read from its own group, the last line winning")
    func showBannersInTheKeyFile() {
        let store = GSettingsStore.keyfile(file: "/home/her/.config/glib-2.0/settings/keyfile")
        let text = "[org/gnome/desktop/interface]\nshow-banners=true\n\n[org/gnome/desktop/notifications]\n"
        #expect(GSettingsKey.showBanners.value(in: store, bytes: Array((text + "show-banners=false\n").utf8)) == false)
        #expect(GSettingsKey.showBanners.value(in: store, bytes: Array((text + "show-banners = true\n").utf8)) == true)
        #expect(GSettingsKey.showBanners.value(in: store, bytes: Array(text.utf8)) == true)
    }

    @Test("The settings store is where GLib keeps it: dconf by default, the key file where the session says so")
    func theStoreIsWhereGLibKeepsIt() {
        #expect(
            GSettingsStore.locate(environment: ["HOME": "/home/her"]) == .dconf(file: "/home/her/.config/dconf/user"))
        #expect(
            GSettingsStore.locate(environment: ["HOME": "/h", "XDG_CONFIG_HOME": "/c", "GSETTINGS_BACKEND": "keyfile"])
                == .keyfile(file: "/c/glib-2.0/settings/keyfile"))
        #expect(GSettingsStore.locate(environment: ["HOME": "/h", "GSETTINGS_BACKEND": "memory"]) == nil)
        #expect(GSettingsStore.locate(environment: [:]) == nil)
    }

    @Test(
        "A call the server holds out of sight under its Do Not Disturb is delivered with held and why in history; one it shows, or one it cannot tell of, has no held"
    )
    func aCallTheServerHoldsIsRecordedHeld() throws {
        func held(
            _ name: String?, vendor: String? = nil, _ state: ServerDoNotDisturb, _ urgency: CallUrgency
        )
            -> String?
        {
            OnEveryDesktop.held(serverName: name, vendor: vendor, doNotDisturb: state, urgency: urgency)
        }
        // Held where the switch is on and the call's urgency does not pass it.
        let mako = try #require(held("mako", .on, .normal))
        #expect(mako == "mako's Do Not Disturb was on when it took the call: it keeps the card out of sight")
        #expect(held("dunst", .on, .normal) != nil)
        #expect(held("Phosh Notify Daemon", .on, .normal)?.hasPrefix("Phosh's") == true)
        #expect(held("SwayNotificationCenter", .on, .normal)?.hasPrefix("swaync's") == true)
        // Shown: critical through GNOME Shell's, Plasma's, swaync's and xfce4-notifyd's switch.
        #expect(held("gnome-shell", vendor: "GNOME", .on, .critical) == nil)
        #expect(held("Plasma", vendor: "KDE", .on, .critical) == nil)
        #expect(held("SwayNotificationCenter", .on, .critical) == nil)
        #expect(held("Xfce Notify Daemon", .on, .critical) == nil)
        // Off, or not told: nothing claimed.
        #expect(held("mako", .off, .normal) == nil)
        #expect(held("lxqt-notificationd", .unknown, .normal) == nil)

        // The machine writes it on the delivered line.
        let morning = instant("2026-06-01T08:00:00Z")
        let lunch = instant("2026-06-01T12:00:00Z")
        var daemon = VirtualDaemon(lunchAndTea(), now: morning, display: .away)
        daemon.holdReplies = true
        daemon.run(until: lunch)
        daemon.send(.posted(DeliveryKey(lay: 1, at: lunch), notificationId: 7, held: mako))
        let delivered = try #require(daemon.events(.delivered).last)
        #expect(delivered.held == mako)
        let line = delivered.json.serialized()
        #expect(line.hasSuffix(#","reason":null,"held":"\#(mako)"}"#), "\(line)")
        #expect(try HistoryRecord(json: JSONParser.parse(line)) == delivered)
        // A call the server shows keeps the line every daemon has written.
        let shown = HistoryRecord(time: lunch, event: .delivered, lay: 1, at: lunch, itemIds: ["lunch"])
        #expect(!shown.json.serialized().contains("held"))
    }
}
