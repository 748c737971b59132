// Starts whose minute passed while the daemon could not run (a stall, a SIGSTOP, a kill), with a
// display write or a lock in between (DaemonMachine+CaughtUp.swift). What queued is read in one
// burst, in the order read: each start is judged by what she could see at its minute, where the
// file's time tells it, and by what she sees once everything that queued was read. None is given
// up without a word (rule 2); none is called over the day (rule 1).

import Testing

@testable import DaysomeCore

@Suite("Starts due while the daemon could not run")
struct StartsDueWhileTheDaemonCouldNotRunTests {
    let leftAt = instant("2026-06-01T11:50:00Z")
    let lunch = instant("2026-06-01T12:00:00Z")
    var resumed: Instant { self.lunch.adding(seconds: 60) }
    var lockedAt: UInt64 { UInt64(self.lunch.seconds) * 1_000_000 }
    let household = LoadedHousehold(
        load: HouseholdLoad(household: lunchAndTea(), problems: []), digest: 1,
        loadedAt: instant("2026-06-01T08:00:00Z"))

    /// She left the day at 11:50 and the daemon laid lunch (12:00).
    func laidAtTen() -> DaemonMachine {
        var machine = DaemonMachine(config: MachineConfig(), persisted: PersistedState(), now: self.leftAt)
        _ = machine.startAfterRestart(
            file: .away, fileWrittenAt: self.leftAt, household: .success(self.household), lastGood: nil,
            stateProven: true, now: self.leftAt)
        #expect(machine.laidStarts.first?.at == self.lunch)
        return machine
    }

    func posted(_ actions: [MachineAction]) -> [Instant] {
        actions.compactMap { if case .post(let key, _) = $0 { key.at } else { nil } }
    }

    func dropped(_ actions: [MachineAction]) -> [HistoryRecord] {
        actions.compactMap {
            if case .record(let record) = $0, record.event == .dropped { return record }
            return nil
        }
    }

    @Test("A return and a lock read in one burst after a stall: lunch, due while she was locked, is called")
    func aReturnThenALockReadInOneBurstCallsTheStartDueWhileLocked() {
        var machine = self.laidAtTen()
        // Stalled through lunch: "foreground" written at 11:59:59, the locker locked at 12:00:00,
        // both read at 12:01 in the order read.
        var actions = machine.displayRead(.foreground, writtenAt: self.lunch.adding(seconds: -1), now: self.resumed)
        #expect(actions.contains(.judgeWhenCaughtUp), "held until everything that queued is read")
        #expect(self.posted(actions).isEmpty && self.dropped(actions).isEmpty)
        #expect(machine.lockSaid(.gnomeScreenSaver, true, at: self.lockedAt).last == .readDisplay)
        actions += machine.displayRead(.foreground, writtenAt: self.lunch.adding(seconds: -1), now: self.resumed)
        #expect(machine.display == .away)
        actions += machine.handle(.caughtUp, now: self.resumed)
        #expect(self.posted(actions) == [self.lunch], "called inside its grace window, as without the stall")
    }

    @Test("A start due while she was away, read with her return after a stall, is named in history, never posted")
    func aStartDueBeforeAReturnReadAfterAStallIsNamedInHistory() {
        var machine = self.laidAtTen()
        // Away through lunch; back at 12:00:30; the daemon runs again at 12:01.
        var actions = machine.displayRead(.foreground, writtenAt: self.lunch.adding(seconds: 30), now: self.resumed)
        actions += machine.handle(.caughtUp, now: self.resumed)
        #expect(self.posted(actions).isEmpty, "never over the day (rule 1)")
        #expect(self.dropped(actions).map(\.at) == [self.lunch])
        #expect(self.dropped(actions).first?.reason?.contains("after this start's minute") == true)
    }

    @Test("A return read with no lock behind it: the start held is dropped with why, once the loop caught up")
    func aStartHeldByAReturnIsDroppedWithWhyWhenNothingElseQueued() {
        var machine = self.laidAtTen()
        // The return came at 11:59:59, before lunch's minute: she saw the day at it.
        var actions = machine.displayRead(.foreground, writtenAt: self.lunch.adding(seconds: -1), now: self.resumed)
        actions += machine.handle(.caughtUp, now: self.resumed)
        #expect(self.posted(actions).isEmpty)
        #expect(
            self.dropped(actions).map(\.reason) == [
                "she was back at the day display before the daemon could call it"
            ])
    }

    @Test("Her return read after a start's minute, and a lock behind it: the start is named, never called")
    func aReturnWrittenAfterItsMinuteMeansSheMayHaveSeenTheDay() {
        var machine = self.laidAtTen()
        // Back at the day at 12:00:40 (after lunch's minute), locked at once; read at 12:01.
        var actions = machine.displayRead(.foreground, writtenAt: self.lunch.adding(seconds: 40), now: self.resumed)
        _ = machine.lockSaid(.gnomeScreenSaver, true, at: self.lockedAt + 41_000_000)
        actions += machine.displayRead(.foreground, writtenAt: self.lunch.adding(seconds: 40), now: self.resumed)
        actions += machine.handle(.caughtUp, now: self.resumed)
        #expect(machine.display == .away)
        #expect(self.posted(actions).isEmpty, "she saw the day after its minute (rule 3)")
        #expect(self.dropped(actions).map(\.at) == [self.lunch])
    }

    @Test("An away the app writes again while she is away never silences a start (a late timer, a launcher)")
    func anAwayWrittenAgainAfterItsMinuteStillCallsTheStart() {
        var machine = self.laidAtTen()
        // The launcher writes away again at 12:00:05; the start's timer fires late, at 12:00:40
        // (the systemd manager without exact alarms fires within its minute).
        _ = machine.displayRead(.away, writtenAt: self.lunch.adding(seconds: 5), now: self.lunch.adding(seconds: 5))
        #expect(self.posted(machine.handle(.timer, now: self.lunch.adding(seconds: 40))) == [self.lunch])
    }

    @Test("A start held with her return is called in the family's words as they are after an edit read with it")
    func aHeldStartIsCalledInTheWordsOfTheHouseholdInForce() {
        var machine = self.laidAtTen()
        var actions = machine.displayRead(.foreground, writtenAt: self.lunch.adding(seconds: -1), now: self.resumed)
        // The family renamed lunch; the edit was read in the same burst.
        let renamed = LoadedHousehold(
            load: HouseholdLoad(
                household: DaysomeCoreTests.household(
                    "Europe/London", [item("lunch", "13:00", label: "Soup", end: "13:45")]),
                problems: []), digest: 2, loadedAt: self.resumed)
        actions += machine.handle(.household(.success(renamed)), now: self.resumed)
        _ = machine.lockSaid(.gnomeScreenSaver, true, at: self.lockedAt)
        actions += machine.displayRead(.foreground, writtenAt: self.lunch.adding(seconds: -1), now: self.resumed)
        actions += machine.handle(.caughtUp, now: self.resumed)
        let posted = actions.compactMap { if case .post(_, let start) = $0 { start.title } else { nil } }
        #expect(posted == ["Soup"], "the old words went out")
    }

    /// The daemon laid at 11:50, killed at 11:51, and started at 12:02 with the file saying
    /// `foreground` since `written`, a locker saying locked where `locked`.
    func restarted(
        written: Instant, locked: Bool, stateProven: Bool = true
    ) -> (machine: DaemonMachine, actions: [MachineAction], now: Instant) {
        let now = self.lunch.adding(seconds: 120)
        var machine = DaemonMachine(config: MachineConfig(), persisted: self.laidAtTen().persisted, now: now)
        if locked { _ = machine.lockSaid(.gnomeScreenSaver, true, at: self.lockedAt) }
        let actions = machine.startAfterRestart(
            file: .foreground, fileWrittenAt: written, household: .success(self.household), lastGood: nil,
            stateProven: stateProven, now: now)
        return (machine, actions, now)
    }

    @Test("The issue's kill variant: foreground written, locked, lunch due, restarted while locked: lunch is called")
    func aRestartWhileLockedCallsTheStartThatFellDueWhileLocked() {
        // "foreground" at 11:59:59, locked at 12:00, still locked at the start.
        var (machine, actions, now) = self.restarted(written: self.lunch.adding(seconds: -1), locked: true)
        #expect(self.posted(actions) == [self.lunch], "neither posted nor named before the fix")
        // Her unlock: the file decides again, and the call is taken away.
        actions = machine.lockSaid(.gnomeScreenSaver, false, at: self.lockedAt + 180_000_000)
        actions += machine.displayRead(
            .foreground, writtenAt: self.lunch.adding(seconds: -1), now: now.adding(seconds: 60))
        #expect(machine.display == .foreground)
        #expect(machine.persisted.delivered.isEmpty)
    }

    @Test("Away for the whole minute and back before the daemon started: the start is named in history")
    func aStartDueWhileNoDaemonRanAndSheWasBackIsNamedInHistory() {
        let actions = self.restarted(written: self.lunch.adding(seconds: 90), locked: false).actions
        #expect(self.posted(actions).isEmpty)
        #expect(self.dropped(actions).map(\.at) == [self.lunch])
    }

    @Test("Unproven state at a restart: the start the replayed return held is not called (never twice)")
    func aStartHeldAtAnUnprovenRestartIsNeverCalled() {
        let actions = self.restarted(written: self.lunch.adding(seconds: -1), locked: true, stateProven: false).actions
        #expect(self.posted(actions).isEmpty)
        #expect(self.dropped(actions).first?.reason?.contains("never twice") == true)
    }

    @Test("A return stamped after now (the clock was set back since) never silences a start")
    func aReturnFromBeforeAClockStepBackSilencesNothing() {
        var machine = self.laidAtTen()
        // Her return written "at 18:00" before the clock was set back to 11:50, then a lock: the
        // week is laid again from 11:50, and lunch at 12:00 is called, though it is before 18:00.
        _ = machine.displayRead(.foreground, writtenAt: instant("2026-06-01T18:00:00Z"), now: self.leftAt)
        _ = machine.lockSaid(.gnomeScreenSaver, true, at: self.lockedAt)
        _ = machine.displayRead(.foreground, writtenAt: instant("2026-06-01T18:00:00Z"), now: self.leftAt)
        #expect(machine.display == .away)
        #expect(self.posted(machine.handle(.timer, now: self.lunch)) == [self.lunch])
    }
}
