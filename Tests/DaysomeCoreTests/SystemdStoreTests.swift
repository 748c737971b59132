// The state machine with the systemd backend: starts live in the manager's timers, so the
// machine emits what to lay and stop, and delivers only when a fire of the current lay comes.

import DaysomeCore
import Testing

/// A machine whose starts live in the systemd manager.
func managerMachine(
    _ home: Household, now: Instant, display: DisplayState, persisted: PersistedState = PersistedState()
)
    -> (DaemonMachine, [MachineAction])
{
    var machine = DaemonMachine(
        config: MachineConfig(grace: 300, startsLiveIn: .systemd), persisted: persisted, now: now)
    let loaded = LoadedHousehold(load: HouseholdLoad(household: home, problems: []), digest: 1, loadedAt: now)
    let actions = machine.startAfterRestart(
        file: display, fileWrittenAt: nil, household: .success(loaded), lastGood: nil, stateProven: true, now: now)
    return (machine, actions)
}

/// The starts of every layTimers action.
func laidTimers(_ actions: [MachineAction]) -> [(lay: UInt64, starts: [Start], replacing: Bool)] {
    actions.compactMap {
        if case .layTimers(let lay, let starts, let replacing, _) = $0 { return (lay, starts, replacing) }
        return nil
    }
}

func posts(_ actions: [MachineAction]) -> [Start] {
    actions.compactMap { if case .post(_, let start) = $0 { return start } else { return nil } }
}

@Suite("Systemd backend in the state machine")
struct SystemdStoreTests {
    let from = instant("2026-06-01T08:00:00Z")

    @Test("A lay becomes one manager timer holding exactly the plan's starts, and the wheel holds none of them")
    func layIsOneTimerWithThePlan() {
        let (machine, actions) = managerMachine(lunchAndTea(), now: from, display: .away)
        let timers = laidTimers(actions)
        #expect(timers.count == 1)
        #expect(timers.first?.starts == Planner.plan(lunchAndTea(), from: from).starts)
        #expect(timers.first?.lay == 1)
        #expect(machine.pendingStarts.isEmpty)
        #expect(machine.laidStarts.count == 14)
        // Two deadlines, not fourteen: the next start's minute (exact alarms) and the daily top-up.
        #expect(machine.wheel.count == 2)
        #expect(machine.wheel.nextDeadline == instant("2026-06-01T12:00:00Z").seconds)
    }

    @Test(
        "With exact alarms the call comes at its minute, and the manager's fire a moment later delivers nothing twice")
    func exactAlarmsCallAtTheMinute() {
        var (machine, _) = managerMachine(lunchAndTea(), now: from, display: .away)
        let lunch = instant("2026-06-01T12:00:00Z")
        #expect(posts(machine.handle(.timer, now: lunch.adding(seconds: -1))).isEmpty)
        #expect(posts(machine.handle(.timer, now: lunch)).map(\.title) == ["Lunch"])
        // The manager still holds the rest of the week; the daemon's next deadline is tea's minute.
        #expect(machine.laidStarts.first?.title == "Tea")
        let exactDeadlines = machine.wheel.sortedEntries().filter { $0.payload == .managerStart }.map(\.deadline)
        #expect(exactDeadlines == [instant("2026-06-01T18:30:00Z").seconds])
        // sd-event fires the manager's 1 s timer at the boot's offset inside the second.
        #expect(posts(machine.handle(.fired(lay: 1), now: lunch.adding(seconds: 1))).isEmpty)
        #expect(machine.persisted.delivered.map(\.key.at) == [lunch])
    }

    @Test("A fire's reply says what the machine did: delivered, already delivered at its minute, or nothing due")
    func fireRepliesSayWhatHappened() {
        var home = lunchAndTea()
        home.settings.exactAlarms = false
        var (machine, _) = managerMachine(home, now: from, display: .away)
        let lunch = instant("2026-06-01T12:00:00Z")
        let first = machine.fire(lay: 1, now: lunch.adding(seconds: 2))
        #expect(first.reply == .delivered)
        #expect(posts(first.actions).map(\.title) == ["Lunch"])
        #expect(machine.fire(lay: 1, now: lunch.adding(seconds: 3)).reply == .alreadyDelivered(at: lunch))
        #expect(machine.fire(lay: 7, now: lunch.adding(seconds: 3)).reply == .nothingDue(lay: 7))
        _ = machine.displayRead(.foreground, writtenAt: nil, now: lunch.adding(seconds: 4))
        #expect(machine.fire(lay: 1, now: lunch.adding(seconds: 5)).reply == .nothingDue(lay: 1))
    }

    @Test("Without exact alarms only the manager's fire calls: its minute of accuracy is the household's choice")
    func inexactAlarmsWaitForTheManager() {
        var home = lunchAndTea()
        home.settings.exactAlarms = false
        var (machine, _) = managerMachine(home, now: from, display: .away)
        let lunch = instant("2026-06-01T12:00:00Z")
        #expect(machine.wheel.count == 1)
        #expect(posts(machine.handle(.timer, now: lunch)).isEmpty)
        #expect(posts(machine.handle(.fired(lay: 1), now: lunch.adding(seconds: 41))).map(\.title) == ["Lunch"])
    }

    @Test("A return takes the daemon's own deadline away too: nothing is called at the minute over the display")
    func returnDisarmsTheExactDeadline() {
        var (machine, _) = managerMachine(lunchAndTea(), now: from, display: .away)
        let lunch = instant("2026-06-01T12:00:00Z")
        _ = machine.displayRead(.foreground, writtenAt: nil, now: lunch.adding(seconds: -1))
        #expect(machine.wheel.nextDeadline == nil)
        #expect(posts(machine.handle(.timer, now: lunch)).isEmpty)
        #expect(posts(machine.handle(.fired(lay: 1), now: lunch)).isEmpty)
    }

    @Test("After a clock jump the exact deadline follows the lay's next start")
    func clockJumpRearmsTheExactDeadline() {
        var (machine, _) = managerMachine(lunchAndTea(), now: from, display: .away)
        let later = instant("2026-06-01T12:30:00Z")
        let actions = machine.handle(.clockChanged(reason: "clock set forward"), now: later)
        #expect(machine.currentLay?.number == 1)
        // The same lay's timers are sent to the manager again, replacing whatever it held.
        #expect(laidTimers(actions).map(\.lay) == [1] && laidTimers(actions).allSatisfy(\.replacing))
        #expect(machine.wheel.nextDeadline == instant("2026-06-01T18:30:00Z").seconds)
        #expect(posts(machine.handle(.timer, now: instant("2026-06-01T18:30:00Z"))).map(\.title) == ["Tea"])
    }

    @Test("A fire of the current lay delivers the start that is due; a fire of an older lay delivers nothing")
    func firesOfCurrentAndOlderLays() {
        var (machine, _) = managerMachine(lunchAndTea(), now: from, display: .away)
        let lunch = instant("2026-06-01T12:00:00Z")
        #expect(posts(machine.displayRead(.foreground, writtenAt: nil, now: from)).isEmpty)
        _ = machine.displayRead(.away, writtenAt: nil, now: from)
        #expect(machine.currentLay?.number == 2)
        #expect(posts(machine.handle(.fired(lay: 1), now: lunch)).isEmpty)
        #expect(posts(machine.handle(.fired(lay: 2), now: lunch)).map(\.title) == ["Lunch"])
        // The same fire again (the manager's accuracy window) delivers nothing twice.
        #expect(posts(machine.handle(.fired(lay: 2), now: lunch.adding(seconds: 1))).isEmpty)
    }

    @Test("A fire that arrives while the display is in the foreground delivers nothing")
    func fireInTheForeground() {
        var (machine, _) = managerMachine(lunchAndTea(), now: from, display: .away)
        _ = machine.displayRead(.foreground, writtenAt: nil, now: from)
        #expect(posts(machine.handle(.fired(lay: 1), now: instant("2026-06-01T12:00:00Z"))).isEmpty)
    }

    @Test("A return stops every daysome- timer")
    func returnStopsTimers() {
        var (machine, _) = managerMachine(lunchAndTea(), now: from, display: .away)
        let actions = machine.displayRead(.foreground, writtenAt: nil, now: from)
        #expect(actions.contains(.stopTimers))
        #expect(machine.laidStarts.isEmpty)
    }

    @Test("After a restart the manager is given exactly the remaining plan, replacing whatever it held")
    func restartReplacesTimers() {
        var (first, _) = managerMachine(lunchAndTea(), now: from, display: .away)
        _ = first.handle(.fired(lay: 1), now: instant("2026-06-01T12:00:00Z"))
        let (_, actions) = managerMachine(
            lunchAndTea(), now: instant("2026-06-01T12:30:00Z"), display: .away, persisted: first.persisted)
        let timers = laidTimers(actions)
        #expect(timers.count == 1)
        #expect(timers.first?.replacing == true)
        #expect(timers.first?.lay == 1)
        #expect(timers.first?.starts.first?.title == "Tea")
        #expect(Set(timers.first?.starts.map(\.at) ?? []).count == timers.first?.starts.count)
    }

    @Test("When the manager loses its timers, the same lay is laid again in full")
    func timersLostRelays() {
        var (machine, _) = managerMachine(lunchAndTea(), now: from, display: .away)
        let timers = laidTimers(machine.handle(.timersLost, now: from.adding(seconds: 60)))
        #expect(timers.count == 1)
        #expect(timers.first?.replacing == true)
        #expect(timers.first?.starts.count == 14)
        #expect(machine.currentLay?.number == 1)
    }

    @Test("A top-up adds one more timer under the same lay number")
    func topUpAddsATimer() {
        var (machine, _) = managerMachine(lunchAndTea(), now: from, display: .away)
        let actions = machine.handle(.timer, now: from.adding(seconds: 86_400))
        let timers = laidTimers(actions)
        #expect(timers.count == 1)
        #expect(timers.first?.replacing == false)
        #expect(timers.first?.lay == 1)
        #expect(timers.first?.starts.count == 2)
    }
}
