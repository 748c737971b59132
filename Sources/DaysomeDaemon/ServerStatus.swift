// What `daysomectl status` says of the notification server beyond its name: what the daemon
// does for it ("On every desktop": the urgency chosen and why, its Do Not Disturb where it
// tells it, and whether the household lets a Do Not Disturb hold calls back).

import DaysomeCore

extension ServerInfo {
    /// `urgency`, `urgencyReason`, `doNotDisturb` for the status file's `notificationServer`.
    var statusFields: [(key: String, value: JSONValue)] {
        [
            ("urgency", self.choice.map { .string($0.urgency.name) } ?? .null),
            ("urgencyReason", self.choice.map { .string($0.reason) } ?? .null),
            ("doNotDisturb", .string(self.doNotDisturb.rawValue)),
        ]
    }
}

extension Manager {
    /// Whether a Do Not Disturb holds calls back: `settings.respectDoNotDisturb` where the
    /// household says, else the daemon's `--dnd` (default override: seen through a forgotten one).
    var respectsDoNotDisturb: Bool {
        self.machine.household?.load.household.settings.respectDoNotDisturb ?? (self.options.doNotDisturb == .respect)
    }
}
