// A run of the simulator, whole: the zone and instant it starts in, how the bus behaves, and the
// steps. Its text form is what the corpus keeps and `scripts/simulate --replay` reads.

import DaysomeCore
import DaysomeFiles

/// One simulated run, replayable from its text.
public struct SimScenario: Sendable, Equatable {
    /// The household's zone: one of the oracle matrix's, each run starting near one of its DST changes.
    public var zone: String
    /// Where the virtual clock starts.
    public var start: Instant
    /// Whether the bus answers `NoReply` to a post a hung server has held for 25 s (dbus-daemon's
    /// reply timeout); the server may still show the call when it wakes.
    public var busTimesOut: Bool
    /// Where the lay's starts wait: the daemon's wheel, or the systemd manager's timers.
    public var backend: StartStore
    public var steps: [SimStep]

    public init(zone: String, start: Instant, busTimesOut: Bool, backend: StartStore = .wheel, steps: [SimStep]) {
        self.backend = backend
        self.zone = zone
        self.start = start
        self.busTimesOut = busTimesOut
        self.steps = steps
    }

    /// The zones and the DST changes runs start near (each a real transition of tzdata).
    public static let changes: [(zone: String, at: String)] = [
        ("Europe/London", "2026-10-25T01:00:00Z"), ("Europe/London", "2027-03-28T01:00:00Z"),
        ("America/New_York", "2026-11-01T06:00:00Z"), ("America/New_York", "2027-03-14T07:00:00Z"),
        ("Australia/Lord_Howe", "2027-04-03T15:00:00Z"), ("Europe/Berlin", "2026-10-25T01:00:00Z"),
        ("UTC", "2026-12-03T00:00:00Z"),
    ]

    /// The text form: a header of `key value` lines, then one step per line.
    public var text: String {
        var lines = ["zone \(self.zone)", "start \(self.start.rfc3339)", "busTimesOut \(self.busTimesOut)"]
        if self.backend != .wheel { lines.append("backend \(self.backend.rawValue)") }
        lines += self.steps.map(\.line)
        return lines.joined(separator: "\n") + "\n"
    }

    /// Reads a scenario's text; `#` lines are comments.
    public init(text: String) throws(SimTraceError) {
        var zone: String?
        var start: Instant?
        var busTimesOut = false
        var backend = StartStore.wheel
        var steps: [SimStep] = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingSpaces
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("zone ") {
                zone = String(line.dropFirst(5))
            } else if line.hasPrefix("start ") {
                start = TimeParsing.instant(String(line.dropFirst(6)), zone: Zone(name: "UTC", rules: .utc))
                if start == nil { throw SimTraceError(line: index + 1, "is not an RFC 3339 instant: '\(line)'") }
            } else if line.hasPrefix("busTimesOut ") {
                busTimesOut = line.hasSuffix("true")
            } else if line.hasPrefix("backend ") {
                guard let store = StartStore(rawValue: String(line.dropFirst(8))) else {
                    throw SimTraceError(line: index + 1, "names no backend (wheel or systemd): '\(line)'")
                }
                backend = store
            } else if let step = SimStep(line: line) {
                steps.append(step)
            } else {
                throw SimTraceError(line: index + 1, "is not a step: '\(line)'")
            }
        }
        guard let zone else { throw SimTraceError(line: 1, "no 'zone' line") }
        guard let start else { throw SimTraceError(line: 1, "no 'start' line") }
        self.init(zone: zone, start: start, busTimesOut: busTimesOut, backend: backend, steps: steps)
    }
}

/// Why a trace cannot be read: its line and what is wrong.
public struct SimTraceError: Error, Sendable, CustomStringConvertible {
    public let line: Int
    public let message: String

    public init(line: Int, _ message: String) {
        self.line = line
        self.message = message
    }

    public var description: String { "line \(self.line) \(self.message)" }
}

extension Substring {
    var trimmingSpaces: String {
        String(
            self.drop { $0 == " " || $0 == "\t" || $0 == "\r" }.reversed().drop {
                $0 == " " || $0 == "\t" || $0 == "\r"
            }.reversed())
    }
}

/// The households a run's app writes: one the family made, an edit, notifications off, a file
/// that cannot be read, one with a start in a DST gap, and one that respects Do Not Disturb.
public enum Households {
    public static let count = 6

    /// The variant whose household holds calls back in a Do Not Disturb the family set.
    public static let respectsDoNotDisturb = 5

    /// Variant `index` in `zone`, or the file's error for the unreadable one.
    public static func variant(_ index: Int, zone: Zone, now: Instant) -> Result<LoadedHousehold, HouseholdFileError> {
        var items = [
            Self.item("breakfast", 8, 0), Self.item("lunch", 12, 30), Self.item("tea", 17, 0),
            Self.item("night", 1, 30),
        ]
        var settings = Settings(notifyInOtherApps: true)
        switch index {
        case 1: items[1] = Self.item("lunch", 12, 45)
        case 2: settings.notifyInOtherApps = false
        case 3:
            return .failure(HouseholdFileError(file: "household.json", reason: .notJSON("a half-written file")))
        case 4: items.append(Self.item("walk", 2, 30))
        case Self.respectsDoNotDisturb: settings.respectDoNotDisturb = true
        default: break
        }
        let household = Household(zone: zone, clock: .twentyFourHour, settings: settings, items: items)
        return .success(
            LoadedHousehold(
                load: HouseholdLoad(household: household, problems: []), digest: UInt64(index + 1), loadedAt: now))
    }

    private static func item(_ id: String, _ hour: Int, _ minute: Int) -> Item {
        Item(
            id: id, label: id.prefix(1).uppercased() + id.dropFirst(), kind: .meal,
            time: ClockTime(hour: hour, minute: minute)!, sound: true, repeats: .daily)
    }

    /// The zone a scenario names, from the system's tzdata.
    public static func zone(_ name: String) throws(SimTraceError) -> Zone {
        if name == "UTC" { return Zone(name: "UTC", rules: .utc) }
        do {
            return Zone(name: name, rules: try ZoneFiles.load(name: name))
        } catch {
            throw SimTraceError(line: 1, "zone '\(name)' is not installed: \(error)")
        }
    }
}
