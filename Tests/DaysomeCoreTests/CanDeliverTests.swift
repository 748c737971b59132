// Status's `canDeliver`, decided by the machine: a carer reads it as "a call due now would reach
// her". It never claims more than the daemon knows.

import DaysomeCore
import Testing

@Suite("Whether a call could reach her now")
struct CanDeliverTests {
    let morning = instant("2026-06-01T08:00:00Z")

    @Test("A call can be delivered only with calls turned on, a household in force and a server on the bus")
    func aCallCanBeDeliveredOnlyWithCallsOnAHouseholdAndAServer() {
        let on = VirtualDaemon(lunchAndTea(), now: self.morning, display: .away)
        #expect(on.machine.canDeliver(serverPresent: true))
        #expect(!on.machine.canDeliver(serverPresent: false), "no server owns the name: nothing could show a call")
        let off = VirtualDaemon(
            household("Europe/London", [item("lunch", "13:00")], notify: false), now: self.morning, display: .away)
        #expect(!off.machine.canDeliver(serverPresent: true), "the family turned calls in other apps off")
        let none = DaemonMachine(config: MachineConfig(), persisted: PersistedState(), now: self.morning)
        #expect(!none.canDeliver(serverPresent: true), "no household has been read yet")
    }

    @Test("The display in front does not change whether a call could be delivered once she leaves")
    func theDisplayInFrontDoesNotChangeCanDeliver() {
        let front = VirtualDaemon(lunchAndTea(), now: self.morning, display: .foreground)
        #expect(front.machine.canDeliver(serverPresent: true))
    }
}
