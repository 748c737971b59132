// A seeded random source for the tests that pick random points (storms, kill points), so a
// failing run can be repeated with `DAYSOME_SEED=<n>`.

/// SplitMix64: a small seeded generator, so a run's random points can be replayed with
/// `DAYSOME_SEED=<n>`.
public struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64

    public init(seed: UInt64) {
        self.state = seed
    }

    /// The seed from $DAYSOME_SEED, else `fallback`.
    public static func seed(default fallback: UInt64) -> UInt64 {
        environmentNumber("DAYSOME_SEED") ?? fallback
    }

    public mutating func next() -> UInt64 {
        self.state &+= 0x9E37_79B9_7F4A_7C15
        var z = self.state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
