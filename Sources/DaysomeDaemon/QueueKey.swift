// What the published queue is made of: when none of it moved, `queue.json` would come out the
// same bytes, so it is neither rebuilt nor written.

import DaysomeCore

struct QueueKey: Equatable {
    /// Moves on with every change to the laid starts (a lay, a top-up, a start due, a clear).
    let laidGeneration: UInt64
    let lay: UInt64?
    let display: DisplayState
    /// The zone names the `local` times; the digest covers a household read again.
    let zone: String?
    let householdDigest: UInt64?

    init(_ machine: DaemonMachine) {
        self.laidGeneration = machine.laidGeneration
        self.lay = machine.currentLay?.number
        self.display = machine.display
        self.zone = machine.household?.load.household.zone.name
        self.householdDigest = machine.household?.digest
    }
}
