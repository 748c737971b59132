// The household as the daemon sees it: only the fields of the contract, already validated.
// Everything else the display app keeps in the file (the supervisor PIN, today's note, the
// menu library) is never copied into this model, so it cannot reach a log or a notification.

/// A validated household: what the daemon lays, and what it needs to compose each call.
public struct Household: Sendable, Equatable {
    /// The zone the items' clock times are read in.
    public var zone: Zone
    /// How clock times are written in a body.
    public var clock: ClockStyle
    public var settings: Settings
    public var dayParts: DayParts
    /// Valid items, in file order.
    public var items: [Item]
    /// Local date → item id → the detail to show for that item on that date only.
    public var mealChoices: [LocalDate: [String: String]]
    /// The display's words for the text the daemon composes (English where the file gives none).
    public var words: Words

    public init(
        zone: Zone, clock: ClockStyle = .twelveHour, settings: Settings = Settings(), dayParts: DayParts = DayParts(),
        items: [Item], mealChoices: [LocalDate: [String: String]] = [:], words: Words = .english
    ) {
        self.zone = zone
        self.clock = clock
        self.settings = settings
        self.dayParts = dayParts
        self.items = items
        self.mealChoices = mealChoices
        self.words = words
    }
}

/// `12h` ("1:00 pm") or `24h` ("13:00").
public enum ClockStyle: String, Sendable {
    case twelveHour = "12h"
    case twentyFourHour = "24h"
}

/// The carer's switches.
public struct Settings: Sendable, Equatable {
    /// Rule 7: nothing is laid until a carer turns this on.
    public var notifyInOtherApps = false
    /// Bring the display back after a call.
    public var bringDayBack = false
    /// Timers to the second rather than to the minute.
    public var exactAlarms = true
    /// The bell, or silence.
    public var chime: Chime = .bell
    /// A Do Not Disturb the family set holds calls back, banner and bell (default false: seen
    /// through a forgotten one). `nil`: the household does not say, and the daemon's `--dnd` decides.
    public var respectDoNotDisturb: Bool?

    public init(
        notifyInOtherApps: Bool = false, bringDayBack: Bool = false, exactAlarms: Bool = true, chime: Chime = .bell
    ) {
        self.notifyInOtherApps = notifyInOtherApps
        self.bringDayBack = bringDayBack
        self.exactAlarms = exactAlarms
        self.chime = chime
    }
}

/// The only sound choice a household makes.
public enum Chime: String, Sendable {
    case bell
    case off
}

/// Where each part of the day begins; night runs from `night` to the next `morning`.
public struct DayParts: Sendable, Equatable {
    public var morning = ClockTime(hour: 5, minute: 0)!
    public var afternoon = ClockTime(hour: 12, minute: 0)!
    public var evening = ClockTime(hour: 17, minute: 0)!
    public var night = ClockTime(hour: 21, minute: 0)!

    public init() {}

    /// The part of the day a local clock time falls in.
    public func part(at time: ClockTime) -> DayPart {
        if time >= self.night || time < self.morning { return .night }
        if time >= self.evening { return .evening }
        if time >= self.afternoon { return .afternoon }
        return .morning
    }

    /// The English name of the part of the day a local clock time falls in.
    public func name(at time: ClockTime) -> String {
        self.part(at: time).rawValue
    }
}

/// What kind of thing an item is; it decides only the default of `sound` (rule 6).
public enum ItemKind: String, Sendable, CaseIterable {
    case meal, drink, visitor, other, dayShape

    /// Rule 6: on for everything a person is called to; off for the shape of the day.
    public var soundByDefault: Bool { self != .dayShape }
}

/// When an item happens.
public enum Repeat: Sendable, Equatable {
    case daily
    case weekdays(Set<Weekday>)
    case dates(Set<LocalDate>)

    /// Whether the item is due on a local date.
    public func occurs(on date: LocalDate) -> Bool {
        switch self {
        case .daily: return true
        case .weekdays(let days): return days.contains(date.weekday)
        case .dates(let dates): return dates.contains(date)
        }
    }
}

/// One valid item of the household.
public struct Item: Sendable, Equatable {
    public var id: String
    public var label: String
    public var detail: String?
    public var kind: ItemKind
    public var time: ClockTime
    public var end: ClockTime?
    /// Rule 6: only items whose sound is on are laid.
    public var sound: Bool
    public var repeats: Repeat

    public init(
        id: String, label: String, detail: String? = nil, kind: ItemKind, time: ClockTime, end: ClockTime? = nil,
        sound: Bool? = nil, repeats: Repeat
    ) {
        self.id = id
        self.label = label
        self.detail = detail
        self.kind = kind
        self.time = time
        self.end = end
        self.sound = sound ?? kind.soundByDefault
        self.repeats = repeats
    }
}
