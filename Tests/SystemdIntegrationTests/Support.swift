// Support: households written by the tests (an item at the next whole minute, or a fixture),
// minutes on the wall clock, and a seeded random source so a failing run can be repeated.

import DaysomeCore
import Glibc

/// A UTC household with notifications on and one daily meal at `time`.
func oneItemHousehold(
    id: String = "soup", label: String, detail: String, time: String, exactAlarms: Bool = true
) -> String {
    """
    {
      "version": 1,
      "timeZone": "UTC",
      "clock": "24h",
      "settings": { "notifyInOtherApps": true, "exactAlarms": \(exactAlarms) },
      "items": [
        { "id": "\(id)", "label": "\(label)", "detail": "\(detail)", "kind": "meal", "time": "\(time)",
          "repeat": "daily" }
      ]
    }

    """
}

/// The path of a fixture household.
func fixturePath(_ name: String) -> String {
    packageRoot() + "/Fixtures/households/" + name
}

/// The text of a fixture household.
func fixtureText(_ name: String) throws -> String {
    let text = readFile(fixturePath(name))
    guard !text.isEmpty else {
        throw HarnessError("fixture \(fixturePath(name)) is missing or empty")
    }
    return text
}

/// Replaces the first occurrence of `target`, which must be there.
func replacingOnce(_ text: String, _ target: String, with replacement: String) throws -> String {
    guard let range = text.firstRange(of: target) else {
        throw HarnessError("fixture text has no \(target.debugDescription)")
    }
    var replaced = text
    replaced.replaceSubrange(range, with: replacement)
    return replaced
}

/// SplitMix64: a small seeded generator, so the random kill points of a run can be replayed
/// (`DAYSOME_SEED=<n>`).
struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        self.state = seed
    }

    /// The seed from $DAYSOME_SEED, else `fallback`.
    static func seed(default fallback: UInt64) -> UInt64 {
        getenv("DAYSOME_SEED").flatMap { UInt64(String(cString: $0)) } ?? fallback
    }

    mutating func next() -> UInt64 {
        self.state &+= 0x9E37_79B9_7F4A_7C15
        var z = self.state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Milliseconds of a duration in seconds, for the printed measurements.
func milliseconds(_ seconds: Double) -> Int {
    Int((seconds * 1_000).rounded())
}
