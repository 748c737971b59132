// `daysomectl status` names what the daemon does for the notification server.

import DaysomeCLI
import DaysomeCore
import Testing

@Suite("status: what the daemon does for the server")
struct ServerCareTests {
    @Test("status names the urgency chosen for the server and why, and its Do Not Disturb where it tells it")
    func statusNamesUrgencyAndWhy() {
        let server = StatusSnapshot.NotificationServer(
            name: "dunst", present: true, capabilities: [], urgency: "normal",
            urgencyReason: "this server shows normal calls over a fullscreen app", doNotDisturb: .on)
        #expect(
            serverCare(server) == [
                "  Calls there: normal urgency: this server shows normal calls over a fullscreen app",
                "  Its Do Not Disturb: on",
            ])
        #expect(serverCare(StatusSnapshot.NotificationServer(name: nil, present: false, capabilities: [])) == [])
    }

    @Test("status text says a call waits for a server, and why, before any server answered and after")
    func statusTextSaysWhyACallWaits() {
        let reason = "no notification server on the session bus: waiting for a server"
        let none = StatusSnapshot.NotificationServer(name: nil, present: false, capabilities: [], waiting: reason)
        #expect(serverCare(none) == ["  A call waits for a server: " + reason])
        let answering = StatusSnapshot.NotificationServer(
            name: "dunst", present: true, capabilities: [], urgency: "normal", urgencyReason: "why",
            waiting: reason)
        #expect(serverCare(answering).first == "  A call waits for a server: " + reason)
        #expect(serverCare(answering).count == 2)
    }

    @Test("status names a refusal of Daysome's own message as ours, even before a server answered")
    func statusNamesOurOwnRefusal() {
        let server = StatusSnapshot.NotificationServer(
            name: nil, present: false, capabilities: [],
            lastRefusal: .init(
                time: Instant(seconds: 1_764_594_000), at: Instant(seconds: 1_764_594_000),
                reason: "org.freedesktop.DBus.Error.InvalidArgs: Invalid argument"))
        #expect(
            serverCare(server) == [
                "  Daysome's message could not be sent at 2025-12-01T13:00:00Z (the call for 2025-12-01T13:00:00Z): "
                    + "org.freedesktop.DBus.Error.InvalidArgs: Invalid argument"
            ])
    }

    @Test(
        "status text says the server's Do Not Disturb whenever a server answers, unknown with why, and Can deliver names the doubt"
    )
    func statusTextSaysDoNotDisturbEvenWhenUnknown() {
        // Phosh before this: no line at all, and a plain "Can deliver: yes" while banners were off.
        let phosh = StatusSnapshot.NotificationServer(
            name: "Phosh Notify Daemon", present: true, capabilities: [], doNotDisturb: .on,
            doNotDisturbSource: .followed, doNotDisturbNote: "but its Do Not Disturb is on and hides every card")
        #expect(serverCare(phosh) == ["  Its Do Not Disturb: on"])
        var status = StatusSnapshot.noDaemon(householdPath: "/h")
        status.canDeliver = true
        status.notificationServer = phosh
        #expect(canDeliverLine(status) == "Can deliver: yes, but its Do Not Disturb is on and hides every card")
        // mako 1.7 says nothing when its modes change: unknown now, with what it said when last asked.
        let mako = StatusSnapshot.NotificationServer(
            name: "mako", present: true, capabilities: [], urgency: "normal", urgencyReason: "why",
            doNotDisturb: .unknown, doNotDisturbSource: .readBeforeCalls, doNotDisturbLastRead: .on)
        #expect(
            serverCare(mako).last
                == "  Its Do Not Disturb: unknown (this server sends no word when it changes: read only just before a call, on when last asked)"
        )
        let lxqt = StatusSnapshot.NotificationServer(
            name: "lxqt-notificationd", present: true, capabilities: [], doNotDisturbSource: .unreadable)
        #expect(serverCare(lxqt) == ["  Its Do Not Disturb: unknown (this server does not tell it on the bus)"])
        status.notificationServer = lxqt
        #expect(canDeliverLine(status) == "Can deliver: yes")
        status.canDeliver = false
        #expect(canDeliverLine(status) == "Can deliver: no")
    }
}
