// Shared helpers for the core's tests: zones from the system's tzdata, instants from text,
// households built in code.

import DaysomeCore
import DaysomeFiles
import Testing

/// A zone from /usr/share/zoneinfo; the tests never depend on the process's own TZ.
func zone(_ name: String) -> Zone {
    guard let rules = try? ZoneFiles.load(name: name) else {
        Issue.record("zone \(name) is not installed: install tzdata")
        return Zone(name: name, rules: .utc)
    }
    return Zone(name: name, rules: rules)
}

/// An instant from RFC 3339 text (`2026-10-25T13:00:00Z`).
func instant(_ text: String) -> Instant {
    guard let parsed = TimeParsing.instant(text, zone: Zone(name: "UTC", rules: .utc)) else {
        preconditionFailure("bad instant in a test: \(text)")
    }
    return parsed
}

func date(_ text: String) -> LocalDate { LocalDate(iso: text)! }

func time(_ text: String) -> ClockTime { ClockTime(hhmm: text)! }

/// An item with the defaults most tests want.
func item(
    _ id: String, _ clock: String, label: String? = nil, detail: String? = nil, kind: ItemKind = .meal,
    end: String? = nil, sound: Bool? = nil, repeats: Repeat = .daily
) -> Item {
    Item(
        id: id, label: label ?? id.prefix(1).uppercased() + id.dropFirst(), detail: detail, kind: kind,
        time: time(clock),
        end: end.map(time), sound: sound, repeats: repeats)
}

/// A household with notifications on, in a zone, with items.
func household(
    _ zoneName: String, _ items: [Item], clock: ClockStyle = .twentyFourHour, notify: Bool = true
)
    -> Household
{
    Household(zone: zone(zoneName), clock: clock, settings: Settings(notifyInOtherApps: notify), items: items)
}

/// The path of a fixture file in the repository.
func fixture(_ relative: String) -> String {
    let file = #filePath
    let root = file.split(separator: "/").dropLast(3).joined(separator: "/")
    return "/" + root + "/Fixtures/" + relative
}

/// Loads a fixture household that must be usable.
func loadFixture(_ relative: String) -> HouseholdLoad {
    switch HouseholdFile.load(fixture(relative), environment: [:]) {
    case .success(let load): return load
    case .failure(let error):
        Issue.record("fixture \(relative) failed to load: \(error)")
        preconditionFailure()
    }
}
