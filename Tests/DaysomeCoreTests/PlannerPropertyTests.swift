// Properties that hold for every household and instant: generated from a seeded generator so
// a failure names its seed and reproduces.

import DaysomeCore
import Testing

let propertyZones = [
    "Europe/London", "Australia/Lord_Howe", "America/Havana", "America/Santiago", "America/St_Johns", "Europe/Dublin",
    "Pacific/Apia", "Pacific/Auckland", "Antarctica/Troll", "Asia/Kolkata", "UTC", "America/New_York",
]

@Test(
    "For generated households and instants: starts lie in the window, strictly increase, each item once per local date, expiry after start",
    arguments: 0..<40)
func plannerProperties(seed: Int) {
    var random = SplitMix64(seed: UInt64(seed) &* 7919)
    let zoneName = propertyZones[random.below(propertyZones.count)]
    let kinds = ItemKind.allCases
    var items: [Item] = []
    for index in 0..<(1 + random.below(12)) {
        let hour = random.below(24)
        let minute = [0, 15, 30, 45, random.below(60)][random.below(5)]
        let clock = ClockTime(hour: hour, minute: minute)!
        let repeats: Repeat
        switch random.below(3) {
        case 0: repeats = .daily
        case 1: repeats = .weekdays(Set((0..<(1 + random.below(7))).map { _ in Weekday.allCases[random.below(7)] }))
        default: repeats = .dates([date("2026-03-29"), date("2026-10-25"), date("2011-12-30")])
        }
        let end = random.below(2) == 0 ? nil : ClockTime(hour: random.below(24), minute: random.below(60))
        items.append(
            Item(
                id: "i\(index)", label: "L\(index)", kind: kinds[random.below(kinds.count)], time: clock,
                end: end.flatMap { $0 > clock ? $0 : nil }, repeats: repeats))
    }
    let home = Household(zone: zone(zoneName), settings: Settings(notifyInOtherApps: true), items: items)
    let anchors = ["2026-03-26T05:17:00Z", "2026-10-22T23:59:59Z", "2011-12-27T10:00:00Z", "2026-09-03T00:00:00Z"]
    let from = instant(anchors[random.below(anchors.count)]).adding(seconds: Int64(random.below(86_400)))
    let days = 1 + random.below(9)
    let plan = Planner.plan(home, from: from, days: days)
    let until = from.adding(seconds: Int64(days) * 86_400)
    var previous: Instant?
    var seen: Set<String> = []
    for start in plan.starts {
        #expect(start.at > from && start.at <= until, "seed \(seed) \(zoneName)")
        if let previous { #expect(start.at > previous, "seed \(seed)") }
        previous = start.at
        #expect(start.expiresAt > start.at, "seed \(seed) \(zoneName) \(start.local.rfc3339)")
        #expect(home.zone.date(of: start.at) == start.local.date)
        for id in start.itemIds {
            let key = "\(id) \(start.local.date)"
            #expect(!seen.contains(key), "seed \(seed) \(zoneName): \(key) twice")
            seen.insert(key)
        }
        #expect(!start.itemIds.isEmpty)
    }
    // Splitting the window in two gives the same starts: a top-up extends a lay exactly.
    let middle = from.adding(seconds: Int64(random.below(days * 86_400)))
    let joined =
        Planner.plan(home, after: from, through: middle).starts
        + Planner.plan(home, after: middle, through: until).starts
    #expect(joined == plan.starts, "seed \(seed)")
}
