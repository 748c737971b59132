// The simulator's one source of chance: the core's SplitMix64, so a seed names a run on every machine.

import DaysomeCore

/// A seeded generator: the same seed gives the same run.
public typealias SimRandom = SplitMix64

extension SplitMix64 {
    /// True with probability `percent` in a hundred.
    public mutating func chance(_ percent: Int) -> Bool {
        Int.random(in: 0..<100, using: &self) < percent
    }
}
