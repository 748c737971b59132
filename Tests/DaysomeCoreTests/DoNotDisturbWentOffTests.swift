// A call a server's Do Not Disturb kept out of sight (Phosh hides every card under it), where the
// household does not ask Do Not Disturb to hold calls back: shown once when the switch goes off
// inside its window (DaemonMachine+DoNotDisturbOff.swift). The dconf-followed switch on real
// processes is IntegrationTests' DoNotDisturbSettingsTests.

import Testing

@testable import DaysomeCore

@Suite("A call Do Not Disturb hid is shown once when the switch goes off")
struct DoNotDisturbWentOffTests {
    let morning = instant("2026-06-01T08:00:00Z")
    let lunch = instant("2026-06-01T12:00:00Z")
    let hidden = "Phosh's Do Not Disturb was on when it took the call: it keeps the card out of sight"

    /// Lunch posted at its minute, and the server's answer: taken, out of sight (`bellHeld` where
    /// the household respects the switch).
    func lunchHidden(bellHeld: Bool = false) -> VirtualDaemon {
        var daemon = VirtualDaemon(lunchAndTea(), now: self.morning, display: .away)
        daemon.holdReplies = true
        daemon.run(until: self.lunch)
        let key = DeliveryKey(lay: 1, at: self.lunch)
        #expect(daemon.heldPosts == [key])
        daemon.send(.posted(key, notificationId: 7, held: self.hidden, bellHeld: bellHeld))
        return daemon
    }

    func closes(_ actions: ArraySlice<MachineAction>) -> [UInt32] {
        actions.compactMap { if case .close(_, let id, _) = $0 { id } else { nil } }
    }

    @Test("A call Phosh's Do Not Disturb hid is shown once when the switch goes off, its bell not rung again")
    func aCallDoNotDisturbHidIsShownOnceWhenTheSwitchGoesOff() {
        var daemon = self.lunchHidden()
        #expect(daemon.actions.filter { $0 == .chime }.count == 1, "rang at its minute, the banner hidden")
        daemon.jump(to: self.lunch.adding(seconds: 90))
        let before = daemon.actions.count
        daemon.send(.doNotDisturbWentOff)
        let after = daemon.actions[before...]
        #expect(self.closes(after) == [7], "the hidden card is closed, not left in the list twice")
        #expect(daemon.posts.count == 2, "not shown again when the switch went off")
        #expect(!after.contains(.chime), "one bell per call")
        daemon.reply(DeliveryKey(lay: 1, at: self.lunch))
        #expect(daemon.events(.delivered).count == 1)
        #expect(daemon.events(.reposted).map(\.at) == [self.lunch])
        // Once: the switch going on and off again shows nothing more.
        daemon.send(.doNotDisturbWentOff)
        #expect(daemon.posts.count == 2)
    }

    @Test("A call held by a Do Not Disturb the household respects stays held when the switch goes off")
    func aCallTheHouseholdAskedToHoldIsNotShownAgain() {
        var daemon = self.lunchHidden(bellHeld: true)
        daemon.jump(to: self.lunch.adding(seconds: 90))
        daemon.send(.doNotDisturbWentOff)
        #expect(daemon.posts.count == 1)
    }

    @Test("A switch that goes off after the call's window shows nothing: nothing stale")
    func aSwitchOffAfterTheWindowShowsNothing() {
        var daemon = self.lunchHidden()
        daemon.jump(to: self.lunch.adding(seconds: 301))
        daemon.send(.doNotDisturbWentOff)
        #expect(daemon.posts.count == 1)
    }
}
