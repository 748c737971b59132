// One call lifecycle (CallsInHand.swift): each call the machine holds is in one phase at a time,
// waiting for a server, posting, shown, or taken back while its post was out, and the invariants
// written beside the phases name any call in two places at once.

import Testing

@testable import DaysomeCore

@Suite("The life of one call")
struct CallPhaseTests {
    let morning = instant("2026-06-01T08:00:00Z")
    let lunch = instant("2026-06-01T12:00:00Z")
    let key = DeliveryKey(lay: 1, at: instant("2026-06-01T12:00:00Z"))

    func phaseName(_ daemon: VirtualDaemon) -> String {
        switch daemon.machine.inHand.phase(of: self.key) {
        case .waitingForServer?: "waiting for a server"
        case .posting?: "posting"
        case .shown?: "shown"
        case .takenBack?: "taken back"
        case nil: "gone"
        }
    }

    @Test("A call goes posting, then shown with its id, then gone at its end, keeping every invariant")
    func aCallGoesFromPostingToShownToGone() {
        var daemon = VirtualDaemon(lunchAndTea(), now: self.morning, display: .away)
        daemon.send(.serverIdentified("boot bus :1.5"))
        daemon.holdReplies = true
        daemon.run(until: self.lunch)
        #expect(self.phaseName(daemon) == "posting")
        #expect(daemon.machine.invariantViolations().isEmpty)
        daemon.heldPosts = []
        daemon.reply(self.key)
        #expect(self.phaseName(daemon) == "shown")
        #expect(daemon.machine.invariantViolations().isEmpty)
        daemon.run(until: instant("2026-06-01T12:45:00Z"))
        #expect(self.phaseName(daemon) == "gone")
        #expect(daemon.machine.invariantViolations().isEmpty)
    }

    @Test("A call no server took waits for one, and her return while its post is out takes it back")
    func aCallWaitsForAServerThenIsTakenBackWhilePosting() {
        var daemon = VirtualDaemon(lunchAndTea(), now: self.morning, display: .away)
        daemon.holdReplies = true
        daemon.run(until: self.lunch)
        daemon.send(.postFailed(self.key, reason: "no server", failure: .serverUnavailable))
        #expect(self.phaseName(daemon) == "waiting for a server")
        #expect(daemon.machine.awaitsAServer)
        #expect(daemon.machine.invariantViolations().isEmpty)
        // A server takes the name: the call is posted again at once.
        daemon.send(.serverIdentified("boot bus :1.7"))
        #expect(self.phaseName(daemon) == "posting")
        daemon.send(.display(.foreground))
        #expect(self.phaseName(daemon) == "taken back")
        #expect(!daemon.machine.awaitsAServer)
        #expect(daemon.machine.invariantViolations().isEmpty)
        // Its id arrives: the card is closed at once, and the call is gone.
        daemon.heldPosts = []
        daemon.reply(self.key)
        #expect(self.phaseName(daemon) == "gone")
        #expect(daemon.shown.isEmpty)
        #expect(daemon.machine.invariantViolations().isEmpty)
    }

    @Test("A call taken back but still on the delivered list is named")
    func aCallTakenBackButStillDeliveredIsNamed() {
        let call = DeliveredCall(key: self.key, itemIds: ["lunch"], expiresAt: self.lunch.adding(seconds: 2_700))
        var machine = DaemonMachine(
            config: MachineConfig(), persisted: PersistedState(layCounter: 1, delivered: [call]), now: self.lunch)
        machine.inHand.posting(self.key, to: nil, at: self.lunch, repost: Repost())
        _ = machine.inHand.takeBack(self.key, saying: nil)
        #expect(
            machine.invariantViolations() == ["the call at 2026-06-01T12:00:00Z is taken back but still delivered"])
    }

    @Test("A call with a server's id that is still posting is named")
    func aCallWithAnIdStillPostingIsNamed() {
        var call = DeliveredCall(key: self.key, itemIds: ["lunch"], expiresAt: self.lunch.adding(seconds: 2_700))
        call.notificationId = 4
        var machine = DaemonMachine(
            config: MachineConfig(), persisted: PersistedState(layCounter: 1, delivered: [call]), now: self.lunch)
        #expect(machine.invariantViolations().isEmpty)
        machine.inHand.posting(self.key, to: nil, at: self.lunch, repost: Repost())
        #expect(
            machine.invariantViolations() == [
                "the call at 2026-06-01T12:00:00Z has a server's id but is not shown"
            ])
    }

    @Test("A call waiting for a server with no retry timer is named: nothing would ever post it")
    func aCallWaitingWithNoTimerIsNamed() {
        let call = DeliveredCall(key: self.key, itemIds: ["lunch"], expiresAt: self.lunch.adding(seconds: 2_700))
        var machine = DaemonMachine(
            config: MachineConfig(), persisted: PersistedState(layCounter: 1, delivered: [call]), now: self.lunch)
        machine.inHand.keep(Repost(), for: self.key)
        #expect(
            machine.invariantViolations() == [
                "the call at 2026-06-01T12:00:00Z waits for a server with no retry timer"
            ])
    }
}
