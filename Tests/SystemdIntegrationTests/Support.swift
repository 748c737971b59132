// Support: households written by the tests (an item at the next whole minute, or a fixture),
// minutes on the wall clock, and milliseconds for the printed measurements.

import DaysomeCore
import DaysomeTestSupport
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

/// Milliseconds of a duration in seconds, for the printed measurements.
func milliseconds(_ seconds: Double) -> Int {
    Int((seconds * 1_000).rounded())
}

extension DaemonOptions {
    /// `daysomed --backend systemd --notifier log`: what these tests start unless one says otherwise.
    static let systemdBackend = DaemonOptions(backend: .systemd, notifier: "log")
}

extension TestWorld {
    /// The `at` of every start of `daysomectl plan --household PATH --from TIME --json`.
    func plannedInstants(from: String, household: String? = nil) async throws -> [String] {
        try await self.plan(from: from, household: household).map(\.at)
    }
}
