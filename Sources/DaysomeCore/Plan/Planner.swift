// Expands a household into the starts of a window: clock times built as clock times on each
// local date (rule 8), items that share an instant coalesced (rule 5), only items whose sound
// is on (rule 6), nothing unless the carer turned notifications on (rule 7).

/// One item on one local date, at its instant.
struct Occurrence {
    let itemIndex: Int
    let at: Instant
    /// The local date of `at`: "that date" wherever the design speaks of an occurrence's date.
    let date: LocalDate
    let dst: DSTDecision?
}

/// Computes what a lay contains.
public enum Planner {
    /// The default horizon of a lay, in days.
    public static let defaultDays = 7

    /// The starts of a lay made at `from` with a horizon of `days` days.
    public static func plan(_ household: Household, from: Instant, days: Int = Planner.defaultDays) -> Plan {
        self.plan(household, after: from, through: from.adding(seconds: Int64(days) * 86_400))
    }

    /// The starts with `from < at <= until`.
    public static func plan(_ household: Household, after from: Instant, through until: Instant) -> Plan {
        guard household.settings.notifyInOtherApps else {
            return Plan(
                timeZone: household.zone.name, from: from, until: until, starts: [],
                notLaidReason: "notifications in other apps are off: a carer turns on settings.notifyInOtherApps")
        }
        let zone = household.zone
        let occurrences = self.occurrences(
            household, from: zone.date(of: from).adding(days: -1), through: zone.date(of: until).adding(days: 1))
        var startsByDate: [LocalDate: [Instant]] = [:]
        for occurrence in occurrences { startsByDate[occurrence.date, default: []].append(occurrence.at) }
        for date in startsByDate.keys { startsByDate[date]!.sort() }

        // The occurrences laid, in order of instant and then of item, grouped by walking: one sort,
        // where a table of arrays keyed by instant made an array for each of a dense week's 10,080.
        var laid = occurrences.filter {
            $0.at > from && $0.at <= until && household.items[$0.itemIndex].sound
        }
        laid.sort { $0.at < $1.at || ($0.at == $1.at && $0.itemIndex < $1.itemIndex) }
        // A week has a handful of headings (weekday and part of the day): each is filled once,
        // not once per start (a dense week has 10,080 starts).
        var headings = Headings()
        var idLists = ItemIdLists()
        var day = Day()
        var starts: [Start] = []
        starts.reserveCapacity(laid.count)
        var first = 0
        while first < laid.count {
            var end = first + 1
            while end < laid.count && laid[end].at == laid[first].at { end += 1 }
            starts.append(
                self.start(
                    at: laid[first].at, occurrences: laid[first..<end], household, startsByDate,
                    headings: &headings, idLists: &idLists, day: &day))
            first = end
        }
        return Plan(timeZone: zone.name, from: from, until: until, starts: starts, notLaidReason: nil)
    }

    /// Every valid item's occurrences on the local dates `first...last`, at most one per item and local date.
    static func occurrences(_ household: Household, from first: LocalDate, through last: LocalDate) -> [Occurrence] {
        let zone = household.zone
        var kept: [Occurrence] = []
        // Where each item's latest occurrence is in `kept`: dates are walked in order and an
        // occurrence never lands before its own date, so only that one can share its local date.
        var latest = [Int](repeating: -1, count: household.items.count)
        let dates = max(0, Int(last.daysSinceEpoch - first.daysSinceEpoch) + 1)
        kept.reserveCapacity(household.items.count * dates)
        var date = first
        while date <= last {
            for (itemIndex, item) in household.items.enumerated() where item.repeats.occurs(on: date) {
                let resolved = zone.resolve(date, item.time)
                let occurrence = Occurrence(
                    itemIndex: itemIndex, at: resolved.instant, date: zone.date(of: resolved.instant), dst: resolved.dst
                )
                // A date that does not exist (Apia, 2011-12-30) lands on the next date's instants:
                // the item is listed once there, the earliest occurrence kept.
                let existing = latest[itemIndex]
                if existing >= 0 && kept[existing].date == occurrence.date {
                    let previous = kept[existing]
                    if occurrence.at == previous.at {
                        kept[existing] = Occurrence(
                            itemIndex: itemIndex, at: previous.at, date: previous.date,
                            dst: DSTDecision.combine(previous.dst, occurrence.dst))
                    } else if occurrence.at < previous.at {
                        kept[existing] = occurrence
                    }
                } else {
                    latest[itemIndex] = kept.count
                    kept.append(occurrence)
                }
            }
            date = date.adding(days: 1)
        }
        return kept
    }

    /// `Content.heading`, filled once per weekday and part of the day.
    struct Headings {
        private var filled: [Weekday: [DayPart: String]] = [:]

        private var last: (date: LocalDate, part: DayPart, heading: String)?

        mutating func heading(date: LocalDate, part: DayPart, words: Words) -> String {
            // Starts come in order: most ask for the same date and part as the one before.
            if let last, last.date == date, last.part == part { return last.heading }
            let heading = self.heading(weekday: date.weekday, part: part, words: words)
            self.last = (date, part, heading)
            return heading
        }

        private mutating func heading(weekday: Weekday, part: DayPart, words: Words) -> String {
            if let known = self.filled[weekday]?[part] { return known }
            let heading = Content.heading(weekday: weekday, part: part, words: words)
            self.filled[weekday, default: [:]][part] = heading
            return heading
        }
    }

    /// Each start's item ids, one array per item where a start calls one: a dense week's 10,080
    /// starts share 1,440 arrays instead of holding one each (64 bytes a start, kept while laid).
    struct ItemIdLists {
        private var single: [Int: [String]] = [:]

        mutating func ids(of itemIndex: Int, _ item: Item) -> [String] {
            if let known = self.single[itemIndex] { return known }
            let ids = [item.id]
            self.single[itemIndex] = ids
            return ids
        }
    }

    /// What the starts of one local date share, looked up once for the date, not once per start.
    struct Day {
        var date: LocalDate?
        var starts: [Instant]?
        var choices: [String: String]?
    }

    private static func start(
        at: Instant, occurrences: ArraySlice<Occurrence>, _ household: Household,
        _ startsByDate: [LocalDate: [Instant]], headings: inout Headings, idLists: inout ItemIdLists,
        day: inout Day
    ) -> Start {
        let zone = household.zone
        let local = zone.local(at)
        let date = local.date
        if day.date != date {
            day = Day(date: date, starts: startsByDate[date], choices: household.mealChoices[date])
        }
        let heading = headings.heading(
            date: date, part: household.dayParts.part(at: local.clockTime), words: household.words)
        let choices = day.choices
        // Most starts call one item: its label is the title and no list is built for it.
        if occurrences.count == 1, let occurrence = occurrences.first {
            let item = household.items[occurrence.itemIndex]
            let detail = choices?[item.id] ?? item.detail
            return Start(
                at: at, local: local, itemIds: idLists.ids(of: occurrence.itemIndex, item),
                heading: heading, title: item.label,
                body: detail
                    ?? Content.clock(local.clockTime, style: household.clock, words: household.words),
                expiresAt: max(at, self.expiry(of: item, at: at, date: date, zone: zone, day.starts)),
                dst: occurrence.dst)
        }
        let items = occurrences.map { household.items[$0.itemIndex] }
        var expiresAt = at
        var dst: DSTDecision?
        for (occurrence, item) in zip(occurrences, items) {
            expiresAt = max(expiresAt, self.expiry(of: item, at: at, date: date, zone: zone, day.starts))
            dst = DSTDecision.combine(dst, occurrence.dst)
        }
        let details = items.map { choices?[$0.id] ?? $0.detail }
        return Start(
            at: at, local: local, itemIds: items.map(\.id), heading: heading,
            title: Content.title(items.map(\.label), words: household.words),
            body: Content.body(details: details, time: local.clockTime, clock: household.clock, words: household.words),
            expiresAt: expiresAt, dst: dst)
    }

    /// When one item's card leaves the display: its end if later than `at`; else the next start of
    /// any valid item that date (laid or not); else the first instant of the next local date.
    static func expiry(of item: Item, at: Instant, date: LocalDate, zone: Zone, _ startsOfDate: [Instant]?) -> Instant {
        if let end = item.end {
            let endAt = zone.resolve(date, end).instant
            if endAt > at { return endAt }
        }
        // Sorted: found by halving, not by a walk (a dense date has 1,440 starts, each asking).
        if let starts = startsOfDate {
            var low = 0
            var high = starts.count
            while low < high {
                let middle = (low + high) / 2
                if starts[middle] > at { high = middle } else { low = middle + 1 }
            }
            if low < starts.count { return starts[low] }
        }
        return zone.startOfDay(date.adding(days: 1))
    }
}
