// A seeded random source for the tests that pick random points (storms, kill points), so a
// failing run can be repeated with `DAYSOME_SEED=<n>`: the core's SplitMix64.

import DaysomeCore

/// SplitMix64, so a run's random points can be replayed with `DAYSOME_SEED=<n>`.
public typealias SeededRandom = SplitMix64

extension SplitMix64 {
    /// The seed from $DAYSOME_SEED, else `fallback`.
    public static func seed(default fallback: UInt64) -> UInt64 {
        environmentNumber("DAYSOME_SEED") ?? fallback
    }
}
