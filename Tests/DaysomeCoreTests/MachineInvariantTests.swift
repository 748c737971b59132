// The machine's invariants, written once (DaemonMachine+Invariants.swift), hold where they should
// and name what broke where they do not: the simulator checks them after every step.

import Testing

@testable import DaysomeCore

@Suite struct MachineInvariantTests {
    @Test func aFreshMachineAndAStartedOneKeepEveryInvariant() {
        let now = instant("2026-06-01T08:00:00Z")
        var machine = DaemonMachine(config: MachineConfig(), persisted: PersistedState(), now: now)
        #expect(machine.invariantViolations().isEmpty)
        _ = machine.displayRead(.away, writtenAt: nil, now: now)
        #expect(machine.invariantViolations().isEmpty)
    }

    @Test func aLayAboveTheCounterIsNamed() {
        let now = instant("2026-06-01T08:00:00Z")
        let lay = LayRecord(
            number: 3, from: now, laidUntil: now.adding(seconds: 7 * 86_400), householdDigest: 1, handledThrough: now)
        let machine = DaemonMachine(
            config: MachineConfig(), persisted: PersistedState(layCounter: 1, lay: lay), now: now)
        #expect(machine.invariantViolations() == ["lay 3 is above the lay counter 1"])
    }

    @Test func aCallRecordedTwiceIsNamed() {
        let now = instant("2026-06-01T12:00:00Z")
        let call = DeliveredCall(
            key: DeliveryKey(lay: 1, at: now), itemIds: ["lunch"], expiresAt: now.adding(seconds: 2_700))
        let machine = DaemonMachine(
            config: MachineConfig(), persisted: PersistedState(layCounter: 1, delivered: [call, call]), now: now)
        #expect(machine.invariantViolations() == ["a delivered call is recorded twice"])
    }
}
