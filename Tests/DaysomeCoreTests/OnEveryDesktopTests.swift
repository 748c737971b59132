// "On every desktop": one card at a time, the daemon's close first, what the server did in
// history, and the urgency each server gets. Pure: the machine on a virtual clock, and the
// decisions as functions.

import DaysomeCore
import Testing

/// Lunch 13:00 ending 14:30, past the drink at 14:00 (London, summer: 12:00Z and 13:00Z).
func lunchPastTheDrink() -> Household {
    household("Europe/London", [item("lunch", "13:00", end: "14:30"), item("drink", "14:00", kind: .drink)])
}

@Suite("On every desktop")
struct OnEveryDesktopTests {
    @Test("One card at a time: a new call takes the place of a call still on screen, recorded as replaced")
    func oneCardAtATime() {
        var daemon = VirtualDaemon(lunchPastTheDrink(), now: instant("2026-06-01T08:00:00Z"), display: .away)
        daemon.run(until: instant("2026-06-01T12:00:05Z"))
        let lunchId = daemon.machine.persisted.delivered.first?.notificationId
        #expect(lunchId != nil)
        daemon.run(until: instant("2026-06-01T13:00:05Z"))
        let replaces = daemon.actions.compactMap { action -> UInt32? in
            if case .replace(_, _, let replacing) = action { return replacing } else { return nil }
        }
        #expect(replaces == [lunchId].compactMap { $0 })
        #expect(daemon.shown.count == 1)
        #expect(daemon.machine.persisted.delivered.map(\.itemIds) == [["drink"]])
        let withdrawn = daemon.events(.withdrawn)
        #expect(withdrawn.map(\.itemIds) == [["lunch"]])
        #expect(withdrawn.first?.reason == "replaced by the call at 2026-06-01T13:00:00Z")
        // The replaced call's own expiry (14:30) closes nothing and records nothing more.
        daemon.run(until: instant("2026-06-01T13:31:00Z"))
        #expect(daemon.events(.expired).map(\.itemIds) == [])
    }

    @Test("A call still in flight when the next takes its place is withdrawn the moment its id arrives")
    func inFlightCallIsWithdrawnWhenReplaced() {
        var daemon = VirtualDaemon(lunchPastTheDrink(), now: instant("2026-06-01T08:00:00Z"), display: .away)
        daemon.holdReplies = true
        daemon.run(until: instant("2026-06-01T13:00:05Z"))
        #expect(daemon.heldPosts.count == 2)
        for key in daemon.heldPosts { daemon.reply(key) }
        #expect(daemon.shown.count == 1)
        #expect(daemon.machine.persisted.delivered.map(\.itemIds) == [["drink"]])
    }

    @Test("The daemon's close wins: the expire hint lands five seconds after expiresAt")
    func expireHintAfterExpiresAt() {
        let now = instant("2026-06-01T12:00:00Z")
        #expect(OnEveryDesktop.expireTimeout(expiresAt: now.adding(seconds: 60), now: now) == 65_000)
        #expect(OnEveryDesktop.expireTimeout(expiresAt: now, now: now) == 5_000)
        #expect(OnEveryDesktop.expireTimeout(expiresAt: now.adding(seconds: 10_000_000), now: now) == Int32.max)
    }

    @Test("A card she dismissed is recorded as withdrawn, and one the server timed out as expired")
    func serverClosesAreHistory() {
        var daemon = VirtualDaemon(lunchAndTea(), now: instant("2026-06-01T08:00:00Z"), display: .away)
        daemon.run(until: instant("2026-06-01T12:00:05Z"))
        let lunch = daemon.machine.persisted.delivered.first?.notificationId ?? 0
        daemon.send(.serverClosed(notificationId: lunch, reason: 2))
        #expect(daemon.events(.withdrawn).map(\.reason) == ["she dismissed it"])
        #expect(daemon.machine.persisted.delivered.isEmpty)
        daemon.run(until: instant("2026-06-01T18:30:05Z"))
        let tea = daemon.machine.persisted.delivered.first?.notificationId ?? 0
        daemon.send(.serverClosed(notificationId: tea, reason: 1))
        #expect(daemon.events(.expired).map(\.reason) == ["the notification server timed it out"])
        // Lunch's own expiry at 13:45 found nothing to close or record.
        #expect(daemon.events(.expired).count == 1)
    }

    @Test("A clicked card is closed by the daemon, recorded, and brings the day back")
    func clickedCardIsClosed() {
        var daemon = VirtualDaemon(lunchAndTea(), now: instant("2026-06-01T08:00:00Z"), display: .away)
        daemon.run(until: instant("2026-06-01T12:00:05Z"))
        let id = daemon.machine.persisted.delivered.first?.notificationId ?? 0
        daemon.send(.clicked(notificationId: id))
        #expect(daemon.shown.isEmpty)
        #expect(daemon.events(.withdrawn).map(\.reason) == ["she clicked the call"])
        #expect(bringBacks(daemon.actions) == ["she clicked the call"])
        // The server's own close after the click records nothing more.
        daemon.send(.serverClosed(notificationId: id, reason: 2))
        #expect(daemon.events(.withdrawn).count == 1)
    }

    @Test("A click that arrives after the server closed the card still brings the day back")
    func clickAfterServerClose() {
        var daemon = VirtualDaemon(lunchAndTea(), now: instant("2026-06-01T08:00:00Z"), display: .away)
        daemon.run(until: instant("2026-06-01T12:00:05Z"))
        let id = daemon.machine.persisted.delivered.first?.notificationId ?? 0
        daemon.send(.serverClosed(notificationId: id, reason: 2))
        daemon.send(.clicked(notificationId: id))
        #expect(bringBacks(daemon.actions) == ["she clicked the call"])
        daemon.send(.clicked(notificationId: 999))
        #expect(bringBacks(daemon.actions).count == 1)
    }

    @Test("GNOME Shell gets critical urgency, since only critical passes its fullscreen and busy hold")
    func gnomeShellGetsCritical() {
        let choice = OnEveryDesktop.urgency(
            serverName: "gnome-shell", doNotDisturb: .unknown, respectDoNotDisturb: false)
        #expect(choice.urgency == .critical)
        #expect(!choice.bellHeld)
        #expect(choice.reason.contains("fullscreen"))
    }

    @Test("Other servers keep normal urgency: critical looks alarming there and normal is shown over fullscreen")
    func otherServersKeepNormal() {
        for name in [
            "dunst", "Xfce Notify Daemon", "Notification Daemon", "mate-notification-daemon", "lxqt-notificationd",
        ] {
            let choice = OnEveryDesktop.urgency(serverName: name, doNotDisturb: .off, respectDoNotDisturb: false)
            #expect(choice.urgency == .normal, "\(name)")
            #expect(!choice.bellHeld)
        }
    }

    @Test(
        "Plasma gets critical urgency, since KWin stacks only critical popups above a fullscreen app; its Inhibited is read"
    )
    func plasmaGetsCritical() {
        let plasma = OnEveryDesktop.urgency(
            serverName: "Plasma", vendor: "KDE", doNotDisturb: .unknown, respectDoNotDisturb: false)
        #expect(plasma.urgency == .critical)
        #expect(plasma.reason.contains("fullscreen"))
        let respected = OnEveryDesktop.urgency(
            serverName: "Plasma", vendor: "KDE", doNotDisturb: .on, respectDoNotDisturb: true)
        #expect(respected.urgency == .normal && respected.bellHeld)
        let query = OnEveryDesktop.doNotDisturbQuery(serverName: "Plasma")
        #expect(query?.arguments == ["org.freedesktop.Notifications", "Inhibited"])
    }

    @Test("mako's status says its cards are drawn under a fullscreen app, never that they show over one")
    func makoStatusSaysWhatWasSeen() {
        let mako = OnEveryDesktop.urgency(serverName: "mako", doNotDisturb: .unknown, respectDoNotDisturb: false)
        #expect(mako.urgency == .normal)
        #expect(mako.reason.contains("under a fullscreen app"), "\(mako.reason)")
        // What a carer can do about it, as docs/desktops.md has it.
        #expect(mako.reason.contains("`[app-name=Daysome]` `layer=overlay`"), "\(mako.reason)")
        #expect(!mako.reason.contains("shows normal calls over a fullscreen app"))
        let swaync = OnEveryDesktop.urgency(
            serverName: "SwayNotificationCenter", doNotDisturb: .unknown, respectDoNotDisturb: false)
        #expect(swaync.reason.hasPrefix("this server shows normal calls over a fullscreen app"))
        // Its do-not-disturb mode hides every urgency: nothing passes it, so the bell still calls.
        let makoMode = OnEveryDesktop.urgency(serverName: "mako", doNotDisturb: .on, respectDoNotDisturb: false)
        #expect(makoMode.urgency == .normal && !makoMode.bellHeld)
        #expect(makoMode.reason.contains("do-not-disturb mode hides every call"), "\(makoMode.reason)")
        let makoRespected = OnEveryDesktop.urgency(serverName: "mako", doNotDisturb: .on, respectDoNotDisturb: true)
        #expect(makoRespected.bellHeld)
    }

    @Test("A Do Not Disturb the household respects holds the call and the bell together; a forgotten one holds neither")
    func respectedDoNotDisturbHoldsBannerAndBell() {
        let respected = OnEveryDesktop.urgency(serverName: "gnome-shell", doNotDisturb: .on, respectDoNotDisturb: true)
        #expect(respected.urgency == .normal)
        #expect(respected.bellHeld)
        let forgotten = OnEveryDesktop.urgency(serverName: "gnome-shell", doNotDisturb: .on, respectDoNotDisturb: false)
        #expect(forgotten.urgency == .critical)
        #expect(!forgotten.bellHeld)
        let dunst = OnEveryDesktop.urgency(serverName: "dunst", doNotDisturb: .on, respectDoNotDisturb: true)
        #expect(dunst.bellHeld)
    }

    @Test(
        "MATE's calls go with no timeout, so she sees them over a fullscreen app; every other server gets the expire hint after expiresAt"
    )
    func mateCallsGoWithNoTimeout() {
        let now = instant("2026-06-01T12:00:00Z")
        let later = now.adding(seconds: 60)
        // MATE hides every card that can time out over a fullscreen app: none, and the daemon's
        // own close at expiresAt takes the card away.
        #expect(
            OnEveryDesktop.expireTimeout(expiresAt: later, now: now, serverName: "Notification Daemon", vendor: "MATE")
                == 0)
        for (name, vendor) in [
            ("Notification Daemon", "GNOME"), ("dunst", "knopwob"), ("gnome-shell", "GNOME"),
            ("Notification Daemon", nil), (nil, "MATE"),
        ] as [(String?, String?)] {
            #expect(
                OnEveryDesktop.expireTimeout(expiresAt: later, now: now, serverName: name, vendor: vendor) == 65_000,
                "\(name ?? "nil") \(vendor ?? "nil")")
        }
        // status says what the daemon does there, and nothing it did not see.
        let mate = OnEveryDesktop.urgency(
            serverName: "Notification Daemon", vendor: "MATE", doNotDisturb: .unknown, respectDoNotDisturb: false)
        #expect(mate.urgency == .normal)
        #expect(mate.reason.contains("no timeout") && mate.reason.contains("shown over it"), "\(mate.reason)")
        #expect(!mate.reason.contains("holds every call"))
        let gnomeDaemon = OnEveryDesktop.urgency(
            serverName: "Notification Daemon", vendor: "GNOME", doNotDisturb: .unknown, respectDoNotDisturb: false)
        #expect(gnomeDaemon.reason.hasPrefix("this server shows normal calls over a fullscreen app"))
    }

    @Test(
        "xfce4-notifyd and SwayNotificationCenter get critical while their Do Not Disturb is on and the household does not respect it: only critical passes there",
        arguments: ["Xfce Notify Daemon", "SwayNotificationCenter"]
    )
    func doNotDisturbThatPassesCriticalIsPassedWithCritical(server: String) {
        let forgotten = OnEveryDesktop.urgency(serverName: server, doNotDisturb: .on, respectDoNotDisturb: false)
        #expect(forgotten.urgency == .critical)
        #expect(!forgotten.bellHeld)
        #expect(forgotten.reason.contains("Do Not Disturb is on"), "\(forgotten.reason)")
        #expect(OnEveryDesktop.doNotDisturbDecides(serverName: server, respect: false))
        let respected = OnEveryDesktop.urgency(serverName: server, doNotDisturb: .on, respectDoNotDisturb: true)
        #expect(respected.urgency == .normal)
        #expect(respected.bellHeld)
        for state in [ServerDoNotDisturb.off, .unknown] {
            let choice = OnEveryDesktop.urgency(serverName: server, doNotDisturb: state, respectDoNotDisturb: false)
            #expect(choice.urgency == .normal, "\(state)")
        }
        // dunst paused holds even critical: normal stays, and the bell still calls.
        let dunst = OnEveryDesktop.urgency(serverName: "dunst", doNotDisturb: .on, respectDoNotDisturb: false)
        #expect(dunst.urgency == .normal)
        #expect(!dunst.bellHeld)
    }

    @Test(
        "A server's Do Not Disturb is read where the bus can tell it: dunst's paused, xfce4-notifyd's xfconf setting, Plasma's inhibition, swaync's switch and mako's do-not-disturb mode"
    )
    func doNotDisturbIsReadWhereTheBusTellsIt() {
        let dunst = OnEveryDesktop.doNotDisturbQuery(serverName: "dunst")
        #expect(dunst?.destination == "org.freedesktop.Notifications")
        #expect(dunst?.arguments == ["org.dunstproject.cmd0", "paused"])
        let xfce = OnEveryDesktop.doNotDisturbQuery(serverName: "Xfce Notify Daemon")
        #expect(xfce?.destination == "org.xfce.Xfconf")
        #expect(xfce?.member == "GetProperty")
        #expect(xfce?.arguments == ["xfce4-notifyd", "/do-not-disturb"])
        #expect(dunst?.reply == .propertyBoolean && xfce?.reply == .propertyBoolean)
        // swaync's control centre answers a plain boolean; mako lists its modes.
        let swaync = OnEveryDesktop.doNotDisturbQuery(serverName: "SwayNotificationCenter")
        #expect(swaync?.destination == "org.erikreider.swaync.cc" && swaync?.member == "GetDnd")
        #expect(swaync?.reply == .boolean)
        let mako = OnEveryDesktop.doNotDisturbQuery(serverName: "mako")
        #expect(mako?.interface == "fr.emersion.Mako" && mako?.member == "ListModes")
        #expect(mako?.reply.doNotDisturb(names: ["default", "do-not-disturb"]) == .on)
        #expect(mako?.reply.doNotDisturb(names: ["default"]) == .off)
        #expect(mako?.reply.doNotDisturb(names: []) == .off)
        // A mode of the user's own may be a Do Not Disturb by another name: status does not say off.
        #expect(mako?.reply.doNotDisturb(names: ["default", "dnd"]) == .unknown)
        #expect(mako?.reply.doNotDisturb() == .unknown)
        #expect(DoNotDisturbReply.boolean.doNotDisturb(boolean: true) == .on)
        #expect(DoNotDisturbReply.propertyBoolean.doNotDisturb(boolean: false) == .off)
        #expect(DoNotDisturbReply.propertyBoolean.doNotDisturb(boolean: nil) == .unknown)
        for name in ["Notification Daemon", "lxqt-notificationd", "gnome-shell", "Phosh Notify Daemon", nil] {
            #expect(OnEveryDesktop.doNotDisturbQuery(serverName: name) == nil, "\(name ?? "nil")")
        }
    }

    @Test("Only notification-daemon 3.20 (GNOME's) keeps a closed bubble up and gets it replaced first")
    func notificationDaemonKeepsClosedCards() {
        #expect(OnEveryDesktop.keepsClosedCards(serverName: "Notification Daemon", vendor: "GNOME"))
        #expect(!OnEveryDesktop.keepsClosedCards(serverName: "Notification Daemon", vendor: "MATE"))
        #expect(!OnEveryDesktop.keepsClosedCards(serverName: "dunst", vendor: "knopwob"))
        #expect(!OnEveryDesktop.keepsClosedCards(serverName: nil, vendor: nil))
    }

    @Test("settings.respectDoNotDisturb reads true or false, is absent by default, and a bad value is reported")
    func respectDoNotDisturbSetting() {
        func settings(_ json: String) -> (Settings, [HouseholdProblem]) {
            let text = #"{"version": 1, "timeZone": "UTC", "settings": "# + json + #", "items": []}"#
            switch parse(text) {
            case .success(let load): return (load.household.settings, load.problems)
            case .failure(let error):
                Issue.record("\(error)")
                return (Settings(), [])
            }
        }
        #expect(settings("{}").0.respectDoNotDisturb == nil)
        #expect(settings(#"{"respectDoNotDisturb": true}"#).0.respectDoNotDisturb == true)
        #expect(settings(#"{"respectDoNotDisturb": false}"#).0.respectDoNotDisturb == false)
        let (bad, problems) = settings(#"{"respectDoNotDisturb": "yes"}"#)
        #expect(bad.respectDoNotDisturb == false)
        #expect(problems.map(\.field) == ["settings.respectDoNotDisturb"])
    }
}
