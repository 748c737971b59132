// Fuzz target `planner`: a household built from the fuzz bytes structurally (a zone with a
// change worth testing, 1-12 items with times, ends, kinds, sounds and repeats) and a lay of
// 1-30 days from any instant of 1970-2100. The plan keeps its invariants (see checkPlan), and
// planning the window in two pieces gives exactly the starts of planning it whole.
//
// Bytes, in order (missing bytes read as zero): zone, clock, from (5 bytes), days, item count,
// split point (4 bytes), a meal choice (2 bytes), then for each item: flags, hour, minute, end
// (2 bytes), weekday mask, date count and up to 4 date offsets.

import DaysomeCore

private let zoneNames = [
    "Europe/London", "UTC", "Australia/Lord_Howe", "America/Havana", "Pacific/Apia", "Antarctica/Troll",
    "Europe/Dublin", "America/Santiago", "Asia/Kolkata", "America/St_Johns",
]
private let zones = loadZones(zoneNames)

/// 2100-01-01T00:00:00Z: `from` lies in 1970-01-01 up to this.
private let latestFrom: UInt64 = 4_102_444_800

@_cdecl("LLVMFuzzerTestOneInput")
public func plannerFuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = ByteCursor(fuzzInput(data, size))
    let zoneName = zoneNames[input.below(zoneNames.count)]
    let zone = Zone(name: zoneName, rules: zones[zoneName]!)
    let clock: ClockStyle = input.byte() & 1 == 0 ? .twentyFourHour : .twelveHour
    let from = Instant(seconds: Int64(input.integer(bytes: 5) % latestFrom))
    let days = 1 + input.below(30)
    let itemCount = 1 + input.below(12)
    let until = from.adding(seconds: Int64(days) * 86_400)
    let split = from.adding(seconds: Int64(input.integer(bytes: 4) % UInt64(days * 86_400 + 1)))
    let fromDate = zone.date(of: from)

    let choice = (day: input.below(40), item: input.byte())
    var items: [Item] = []
    for index in 0..<itemCount {
        items.append(item(index, &input, near: fromDate))
    }
    var mealChoices: [LocalDate: [String: String]] = [:]
    if choice.item < 128 {
        let id = items[Int(choice.item) % items.count].id
        mealChoices[fromDate.adding(days: Int64(choice.day) - 5)] = [id: "Fish pie"]
    }
    let household = Household(
        zone: zone, clock: clock, settings: Settings(notifyInOtherApps: true), items: items, mealChoices: mealChoices)

    let whole = Planner.plan(household, from: from, days: days)
    checkPlan(whole, household, after: from, through: until)
    let first = Planner.plan(household, after: from, through: split)
    let second = Planner.plan(household, after: split, through: until)
    checkPlan(first, household, after: from, through: split)
    checkPlan(second, household, after: split, through: until)
    require(
        first.starts + second.starts == whole.starts,
        "\(zoneName) from \(from) for \(days) days split at \(split): \(first.starts.count) + \(second.starts.count)"
            + " starts, whole \(whole.starts.count)")
    return 0
}

/// One item from the next bytes. Times cluster on the minutes that meet clock changes.
private func item(_ index: Int, _ input: inout ByteCursor, near date: LocalDate) -> Item {
    let flags = input.byte()
    let time = clockTime(&input)
    let endTime = clockTime(&input)
    let kind = ItemKind.allCases[Int(flags) % ItemKind.allCases.count]
    let sound: Bool? = [nil, true, false, true][Int(flags >> 3) & 3]
    let end = flags & 0x20 != 0 && endTime > time ? endTime : nil
    let detail = flags & 0x04 != 0 ? "Detail \(index)" : nil
    let mask = input.byte()
    let dateCount = 1 + input.below(4)
    var dates: Set<LocalDate> = []
    for _ in 0..<dateCount {
        dates.insert(date.adding(days: Int64(input.below(40)) - 5))
    }
    let repeats: Repeat
    switch flags >> 6 {
    case 2:
        let days = Weekday.allCases.enumerated().filter { mask & (1 << $0.offset) != 0 }.map(\.element)
        repeats = days.isEmpty ? .daily : .weekdays(Set(days))
    case 3: repeats = .dates(dates)
    default: repeats = .daily
    }
    return Item(
        id: "item-\(index)", label: "Item \(index)", detail: detail, kind: kind, time: time, end: end, sound: sound,
        repeats: repeats)
}

/// A clock time: half the bytes pick an hour on a quarter, the rest any minute.
private func clockTime(_ input: inout ByteCursor) -> ClockTime {
    let hour = input.below(24)
    let minute = input.byte()
    return ClockTime(hour: hour, minute: minute < 128 ? Int(minute % 4) * 15 : Int(minute) % 60)!
}
