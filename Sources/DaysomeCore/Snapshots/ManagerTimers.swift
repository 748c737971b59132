// What the systemd manager said of its daysome- timers, as `pending` needs it: each unit's name
// and state, and its TimersCalendar as the manager computed it. `daysomectl pending` reads it
// from the manager itself, or has a live daemon relay it over the connection the daemon already
// holds (`pending` on the control socket); either way the same type goes into the same join, so
// the two paths print the same bytes. Never the daemon's memory of what it laid.

/// The manager's daysome- timers, in the order it listed them.
public struct ManagerTimers: Sendable, Equatable {
    /// One timer unit and its calendar entries.
    public struct Unit: Sendable, Equatable {
        public let name: String
        public let activeState: String
        public let entries: [Entry]

        public init(name: String, activeState: String, entries: [Entry]) {
            self.name = name
            self.activeState = activeState
            self.entries = entries
        }
    }

    /// One `TimersCalendar` entry: `(base, spec, next elapse)`.
    public struct Entry: Sendable, Equatable {
        public let base: String
        public let spec: String
        /// CLOCK_REALTIME microseconds; 0 or UInt64.max when it will not elapse again.
        public let nextElapse: UInt64

        public init(base: String, spec: String, nextElapse: UInt64) {
            self.base = base
            self.spec = spec
            self.nextElapse = nextElapse
        }
    }

    public let units: [Unit]

    public init(units: [Unit]) {
        self.units = units
    }

    /// The control socket's answer to `pending`: `timers ` and one line of JSON. A next elapse
    /// is written as a decimal string: UInt64.max has no exact double.
    public var line: String {
        let units: [JSONValue] = self.units.map { unit in
            .object(
                JSONObject([
                    ("unit", .string(unit.name)), ("activeState", .string(unit.activeState)),
                    (
                        "timersCalendar",
                        .array(
                            unit.entries.map { entry in
                                .object(
                                    JSONObject([
                                        ("base", .string(entry.base)), ("spec", .string(entry.spec)),
                                        ("nextElapseUSec", .string(String(entry.nextElapse))),
                                    ]))
                            })
                    ),
                ]))
        }
        return Self.prefix + JSONValue.array(units).serialized(pretty: false)
    }

    static let prefix = "timers "

    /// Reads the daemon's answer; nil for anything else (an error line, an older daemon's
    /// `error: unknown request`, a cut or malformed line): the caller then asks the manager itself.
    public init?(line: String) {
        guard line.hasPrefix(Self.prefix), let json = try? JSONParser.parse(String(line.dropFirst(Self.prefix.count))),
            case .array(let list) = json
        else { return nil }
        var units: [Unit] = []
        for item in list {
            guard let unit = item.objectValue, let name = unit["unit"]?.stringValue,
                let state = unit["activeState"]?.stringValue, case .array(let calendar)? = unit["timersCalendar"]
            else { return nil }
            var entries: [Entry] = []
            for value in calendar {
                guard let entry = value.objectValue, let base = entry["base"]?.stringValue,
                    let spec = entry["spec"]?.stringValue,
                    let next = entry["nextElapseUSec"]?.stringValue.flatMap({ UInt64($0) })
                else { return nil }
                entries.append(Entry(base: base, spec: spec, nextElapse: next))
            }
            units.append(Unit(name: name, activeState: state, entries: entries))
        }
        self.units = units
    }
}
