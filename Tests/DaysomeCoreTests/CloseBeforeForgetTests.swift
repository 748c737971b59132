// A card is closed before the state that forgets it is written. The daemon writes that state with
// fsync, which can take seconds on a busy disk: killed meanwhile, a daemon that had written first
// and closed after would leave the card over the day, and the next one, reading that nothing is
// on screen, would never close it. Closed first, a kill leaves at worst an id closed twice, which
// a server ignores.

import DaysomeCore
import Testing

@Suite("A card is closed before the state that forgets it is written")
struct CloseBeforeForgetTests {
    let morning = instant("2026-06-01T08:00:00Z")
    let lunch = instant("2026-06-01T12:00:00Z")
    let server = "boot bus :1.5"

    /// Lunch on screen with its id, and the carer's sample beside it.
    func lunchShown() -> VirtualDaemon {
        var daemon = VirtualDaemon(lunchAndTea(), now: self.morning, display: .away)
        daemon.send(.serverIdentified(self.server))
        daemon.run(until: self.lunch.adding(seconds: 1))
        daemon.send(.trySample)
        return daemon
    }

    /// The actions after `count`: each close must come before the first write of the state.
    func closesComeFirst(_ actions: ArraySlice<MachineAction>) -> (closes: Int, closedAfterTheWrite: Int) {
        let write = actions.firstIndex(of: .persist) ?? actions.endIndex
        let closes = actions.indices.filter { actions[$0].isClose }
        return (closes.count, closes.filter { $0 > write }.count)
    }

    @Test("Her return closes every card before it writes the state that no longer holds them")
    func herReturnClosesBeforeItWrites() {
        var daemon = self.lunchShown()
        let before = daemon.actions.count
        daemon.send(.display(.foreground))
        let (closes, late) = self.closesComeFirst(daemon.actions[before...])
        #expect(closes == 2, "lunch and the sample: \(daemon.actions[before...])")
        #expect(late == 0, "closed after the state forgot the card: \(daemon.actions[before...])")
    }

    @Test("A click, and the call's end, close the card before the state is written")
    func aClickAndAnEndCloseBeforeTheyWrite() {
        var clicked = self.lunchShown()
        var before = clicked.actions.count
        clicked.send(.clicked(notificationId: 1, server: self.server))
        var (closes, late) = self.closesComeFirst(clicked.actions[before...])
        #expect(closes == 1 && late == 0, "\(clicked.actions[before...])")

        var ended = self.lunchShown()
        before = ended.actions.count
        ended.run(until: instant("2026-06-01T12:45:01Z"))
        (closes, late) = self.closesComeFirst(ended.actions[before...])
        #expect(closes >= 1 && late == 0, "\(ended.actions[before...])")
    }
}
