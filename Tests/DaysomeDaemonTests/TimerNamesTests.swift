// The systemd backend's naming keeps only the current lay's counter and a bounded set of names
// just stopped: over months of display flips (a new lay each away) it holds as much as after one.

import Testing

@testable import DaysomeDaemon

@Suite("The systemd backend's timer names")
struct TimerNamesTests {
    @Test("Over 22,001 lays the names kept stay bounded: one lay's counter and at most 512 stopped names")
    func namesKeptStayBoundedOverMonthsOfFlips() {
        var names = TimerNames()
        var mostStopped = 0
        for lay in UInt64(1)...22_001 {
            let name = names.next(lay: lay, taken: [])
            #expect(name == "daysome-lay\(lay)")
            // A top-up of the same lay takes the next part.
            #expect(names.next(lay: lay, taken: []) == "daysome-lay\(lay)-1")
            // The clear at the next return stops both.
            names.stopped([name + ".timer", "daysome-lay\(lay)-1.timer"])
            mostStopped = max(mostStopped, names.stopped.count)
            #expect(names.current?.lay == lay)
        }
        #expect(mostStopped <= TimerNames.stoppedKept + 2)
    }

    @Test("A new part never takes a name the manager holds, one asked for, or one just stopped")
    func aNewPartNeverReusesAName() {
        var names = TimerNames()
        names.stopped(["daysome-lay7.timer"])
        #expect(names.next(lay: 7, taken: ["daysome-lay7-1.service"]) == "daysome-lay7-2")
        #expect(names.next(lay: 7, taken: []) == "daysome-lay7-3")
        // Another lay starts its own count; going back to lay 7 asks the manager again.
        #expect(names.next(lay: 8, taken: []) == "daysome-lay8")
        #expect(names.next(lay: 7, taken: ["daysome-lay7-3.timer"]) == "daysome-lay7-1")
        // After a manager crash its transient files outlive it, unlisted: the relay takes the next part.
        names.stopped(["daysome-lay7-1.timer"])
        names.reconnected()
        #expect(names.stopped.isEmpty)
        #expect(names.next(lay: 7, taken: []) == "daysome-lay7-2")
    }
}
