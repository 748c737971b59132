// The four combinations issue 25 names, each as a trace in the corpus, with what she would
// notice asserted on the simulated server (scripts/simulate-reverts shows each is caught with
// its fix taken out).

import DaysomeCore
import Testing

@testable import DaysomeSimulator

@Suite struct CombinationTests {
    /// Lunch's minute: its call is counted under every lay, whichever lay number the trace made.
    let lunch = instant("2026-12-03T12:30:00Z")

    @Test func aFullDiskAndARestartInsideTheGraceWindowCallLunchOnce() throws {
        let world = try play("full-disk-and-a-restart-inside-the-grace-window.trace")
        #expect(world.server.madeCounts.filter { $0.key.at == self.lunch }.values.reduce(0, +) == 1)
        #expect(world.bells.filter { $0.key.at == self.lunch }.values.reduce(0, +) == 1)
    }

    @Test func aServerHungPastTheBusTimeoutShowsOneCardForLunch() throws {
        let world = try play("a-server-hung-past-the-bus-timeout.trace")
        #expect(world.server.madeCounts.filter { $0.key.at == self.lunch }.values.reduce(0, +) == 1)
        #expect(world.server.cards.values.filter { $0.at == self.lunch }.count == 1)
    }

    @Test func aRestartWhileLockedKeepsLunchOnScreen() throws {
        let world = try play("a-restart-while-locked-with-lunch-on-screen.trace")
        #expect(world.server.cards.values.contains { $0.at == self.lunch })
        #expect(!world.disk.history.contains { $0.event == .withdrawn })
    }

    /// Issue 43's kill variant: lunch fell due while she was locked, after a return and a lock
    /// no daemon read; the start inside grace calls it, and her unlock takes it away. The real
    /// daemon's run of it is EmbeddedRunTests'.
    @Test func aReturnThenALockWhileTheDaemonWasStoppedCallsLunchDueWhileLocked() throws {
        let name = "a-return-then-a-lock-while-the-daemon-was-stopped-calls-lunch-due-while-locked.trace"
        let world = try play(name)
        #expect(world.server.madeCounts.filter { $0.key.at == self.lunch }.values.reduce(0, +) == 1)
        #expect(world.disk.history.contains { $0.event == .withdrawn && $0.at == self.lunch })
    }

    @Test func anUnlockWhileTheDaemonWasStoppedLetsNoCallOverTheDay() throws {
        let world = try play("an-unlock-while-the-daemon-was-stopped.trace")
        #expect(world.server.madeCounts.isEmpty)
        #expect(world.daemon?.machine.display == .foreground)
    }
}
