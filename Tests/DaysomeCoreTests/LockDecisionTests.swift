// A lock is what a locker says, decided by the machine (DaemonMachine+Lock.swift): the daemon,
// the embedded world and the model hand it each word, and read the display's file again when it
// asks. The rule itself (who locks, what a request is) is ScreenLock's: ScreenLockTests.

import Testing

@testable import DaysomeCore

@Suite("The machine decides what a lock means")
struct LockDecisionTests {
    let morning = instant("2026-06-01T08:00:00Z")
    var micros: UInt64 { UInt64(self.morning.seconds) * 1_000_000 }

    @Test("A locker's word before the first decision is only recorded, and the start combines it with the file")
    func aWordBeforeTheStartIsRecordedAndTheStartCombinesIt() {
        var machine = DaemonMachine(config: MachineConfig(), persisted: PersistedState(), now: self.morning)
        #expect(machine.lockSaid(.gnomeScreenSaver, true, at: self.micros).isEmpty)
        let household = LoadedHousehold(
            load: HouseholdLoad(household: lunchAndTea(), problems: []), digest: 1, loadedAt: self.morning)
        _ = machine.startAfterRestart(
            file: .foreground, fileWrittenAt: nil, household: .success(household), lastGood: nil, stateProven: true,
            now: self.morning)
        #expect(machine.display == .away, "locked at start-up, though the file says foreground")
        #expect(machine.screenLock.file == .foreground)
        #expect(machine.currentLay != nil, "away: the day's calls are laid")
    }

    @Test("A lock while she sees the day has the file read again and is away; its unlock lets the file decide")
    func aLockIsAwayAndItsUnlockLetsTheFileDecide() {
        var daemon = VirtualDaemon(lunchAndTea(), now: self.morning, display: .foreground)
        _ = daemon.machine.displayRead(.foreground, writtenAt: nil, now: self.morning)
        let locked = daemon.machine.lockSaid(.gnomeScreenSaver, true, at: self.micros)
        #expect(locked.last == .readDisplay)
        #expect(locked.contains(.log(.notice, "The session is locked (gnomeScreenSaver); the display is away")))
        _ = daemon.machine.displayRead(daemon.machine.screenLock.file, writtenAt: nil, now: self.morning)
        #expect(daemon.machine.display == .away)
        #expect(daemon.machine.currentLay != nil)
        let unlocked = daemon.machine.lockSaid(.gnomeScreenSaver, false, at: self.micros + 1_000_000)
        #expect(unlocked.last == .readDisplay)
        _ = daemon.machine.displayRead(.foreground, writtenAt: nil, now: self.morning)
        #expect(daemon.machine.display == .foreground)
        #expect(daemon.machine.currentLay == nil, "her return takes every call away")
    }

    @Test("A Lock request no locker answers asks for nothing: she still sees the day")
    func aLockRequestAloneChangesNothing() {
        var daemon = VirtualDaemon(lunchAndTea(), now: self.morning, display: .foreground)
        _ = daemon.machine.displayRead(.foreground, writtenAt: nil, now: self.morning)
        #expect(daemon.machine.lockSaid(.logindLockSignal, true, at: self.micros).isEmpty)
        #expect(daemon.machine.display == .foreground)
        #expect(daemon.machine.screenLock.request != nil)
    }

    @Test("A second locker saying locked while one already does changes nothing: no read, no log")
    func aSecondLockerChangesNothing() {
        var daemon = VirtualDaemon(lunchAndTea(), now: self.morning, display: .foreground)
        _ = daemon.machine.lockSaid(.logind, true, at: self.micros)
        #expect(daemon.machine.lockSaid(.screenSaver, true, at: self.micros).isEmpty)
        #expect(daemon.machine.lockSaid(.logind, false, at: self.micros).isEmpty, "the screensaver still locks")
        #expect(daemon.machine.lockSaid(.screenSaver, false, at: self.micros).last == .readDisplay)
    }
}
