import Testing

@testable import DaysomeCore

private typealias IntWheel = TimerWheel<Int>

private let minute: Int64 = 60
private let day: Int64 = 86_400
private let year: Int64 = 365 * day
private let start: Int64 = 1_700_000_000

/// An entry reduced to comparable fields.
private struct Snapshot: Equatable, CustomStringConvertible {
    let id: TimerID
    let deadline: Int64
    let payload: Int

    var description: String { "#\(id.rawValue)@\(deadline)=\(payload)" }
}

private func snapshots(_ entries: [IntWheel.Expired]) -> [Snapshot] {
    entries.map { Snapshot(id: $0.id, deadline: $0.deadline, payload: $0.payload) }
}

private func scheduledID(_ result: IntWheel.InsertResult) -> TimerID? {
    if case .scheduled(let id) = result { return id }
    return nil
}

/// WheelRandom (Steele, Lea, Flood 2014): tiny, seedable, and stable across toolchains.
private struct WheelRandom {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform enough in `range` for tests (modulo bias is negligible for these spans).
    mutating func int(in range: ClosedRange<Int64>) -> Int64 {
        let span = UInt64(range.upperBound - range.lowerBound) &+ 1
        return range.lowerBound + Int64(bitPattern: span == 0 ? next() : next() % span)
    }

    /// A value in 0...limit whose magnitude is spread over all scales, so small and large offsets both occur often.
    mutating func spread(upTo limit: Int64) -> Int64 {
        int(in: 0...(limit >> int(in: 0...20)))
    }
}

// MARK: - Basic behaviour

@Test func insertThenAdvanceReturnsEntriesInDeadlineOrder() {
    var wheel = IntWheel(now: start)
    for offset: Int64 in [90, 5, 7_200, 30, 600_000, 1] {
        #expect(scheduledID(wheel.insert(Int(offset), at: start + offset)) != nil)
    }
    #expect(wheel.count == 6)
    #expect(wheel.advance(to: start + 30).map(\.payload) == [1, 5, 30])
    #expect(wheel.now == start + 30)
    #expect(wheel.advance(to: start + 7_199).map(\.payload) == [90])
    #expect(wheel.advance(to: start + 7 * day).map(\.payload) == [7_200, 600_000])
    #expect(wheel.isEmpty)
}

@Test func sameDeadlineEntriesExpireInInsertionOrder() {
    var wheel = IntWheel(now: start)
    var ids: [TimerID] = []
    for payload in 0..<50 {
        ids.append(scheduledID(wheel.insert(payload, at: start + 5_000))!)
        _ = wheel.insert(1_000 + payload, at: start + 4_999)
    }
    #expect(ids == ids.sorted())
    let expired = wheel.advance(to: start + 10_000)
    #expect(expired.prefix(50).map(\.payload) == Array(1_000..<1_050))
    #expect(expired.suffix(50).map(\.id) == ids)
    #expect(expired.suffix(50).map(\.payload) == Array(0..<50))
}

@Test func pastAndPresentDeadlinesAreAlreadyDue() {
    var wheel = IntWheel(now: start)
    #expect(wheel.insert(1, at: start) == .alreadyDue)
    #expect(wheel.insert(2, at: start - 1) == .alreadyDue)
    #expect(wheel.insert(3, at: Int64.min) == .alreadyDue)
    #expect(wheel.isEmpty)
    #expect(wheel.nextDeadline == nil)
    #expect(wheel.insert(4, at: start + 1) != .alreadyDue)
}

@Test func cancelBeforeExpiryRemovesEntry() {
    var wheel = IntWheel(now: start)
    let keep = scheduledID(wheel.insert(1, at: start + 100))!
    let drop = scheduledID(wheel.insert(2, at: start + 50))!
    #expect(wheel.payload(for: drop) == 2)
    #expect(wheel.cancel(drop) == 2)
    #expect(wheel.cancel(drop) == nil)
    #expect(wheel.payload(for: drop) == nil)
    #expect(wheel.count == 1)
    #expect(wheel.nextDeadline == start + 100)
    #expect(snapshots(wheel.advance(to: start + 1_000)) == [Snapshot(id: keep, deadline: start + 100, payload: 1)])
}

@Test func cancelAfterExpiryReturnsNil() {
    var wheel = IntWheel(now: start)
    let id = scheduledID(wheel.insert(1, at: start + 10))!
    #expect(wheel.advance(to: start + 10).map(\.id) == [id])
    #expect(wheel.cancel(id) == nil)
    #expect(wheel.payload(for: id) == nil)
    #expect(wheel.cancel(TimerID(rawValue: 999)) == nil)
}

@Test func advanceToEarlierOrSameTimeIsNoOp() {
    var wheel = IntWheel(now: start)
    _ = wheel.insert(1, at: start + 10)
    #expect(wheel.advance(to: start - day).isEmpty)
    #expect(wheel.advance(to: start).isEmpty)
    #expect(wheel.now == start)
    #expect(wheel.count == 1)
}

@Test func nextDeadlineIsExactAcrossLevels() {
    var wheel = IntWheel(now: start)
    let offsets: [Int64] = [5, 4_000, 600_000]
    for offset in offsets.reversed() {
        _ = wheel.insert(Int(offset), at: start + offset)
    }
    #expect(wheel.nextDeadline == start + 5)
    for (step, target) in [4, 5, 6, 3_999, 4_000, 4_001, 599_999].enumerated() {
        _ = wheel.advance(to: start + Int64(target))
        let expected = offsets.filter { $0 > target }.min().map { start + $0 }
        #expect(wheel.nextDeadline == expected, "step \(step)")
    }
    #expect(wheel.advance(to: start + 600_000).map(\.payload) == [600_000])
    #expect(wheel.nextDeadline == nil)
}

@Test func removeAllEmptiesWheelKeepsTimeAndNeverReusesIDs() {
    var wheel = IntWheel(now: start)
    let old = scheduledID(wheel.insert(1, at: start + 10))!
    _ = wheel.insert(2, at: start + 10 * day)
    _ = wheel.advance(to: start + 5)
    wheel.removeAll()
    #expect(wheel.isEmpty && wheel.count == 0)
    #expect(wheel.nextDeadline == nil)
    #expect(wheel.sortedEntries().isEmpty)
    #expect(wheel.now == start + 5)
    #expect(wheel.cancel(old) == nil)
    #expect(wheel.advance(to: start + 20 * day).isEmpty)
    let fresh = scheduledID(wheel.insert(3, at: start + 21 * day))!
    #expect(fresh > old)
    #expect(wheel.nextDeadline == start + 21 * day)
}

// MARK: - Level choice

/// Whether level `level`'s current window (its 64 slots, aligned to 64^(level+1) s) contains `deadline`.
private func windowHolds(level: Int, _ deadline: Int64, elapsed: Int64) -> Bool {
    let spanBits = 6 * (level + 1)
    return deadline >> spanBits == elapsed >> spanBits
}

/// Why the wheel's placement of `deadline` at time `elapsed` is wrong, or nil if it is right.
private func placementProblem(deadline: Int64, elapsed: Int64) -> String? {
    let level = IntWheel.level(for: deadline, elapsed: elapsed)
    let slot = IntWheel.slot(for: deadline, level: level, elapsed: elapsed)
    guard (0..<6).contains(level), (0..<64).contains(slot) else { return "level \(level) slot \(slot) out of bounds" }
    if let lower = (0..<level).first(where: { windowHolds(level: $0, deadline, elapsed: elapsed) }) {
        return "level \(level) chosen but level \(lower) can hold it"
    }
    guard windowHolds(level: level, deadline, elapsed: elapsed) else {
        // Only the top level's parking slot may take deadlines beyond its window.
        return level == 5 && slot == 63 ? nil : "level \(level) slot \(slot) cannot hold it"
    }
    let width = Int64(1) << (6 * level)
    let span = 64 * width
    let windowStart = elapsed - (elapsed % span + span) % span  // floor to a multiple of span, negatives included
    let slotStart = windowStart + Int64(slot) * width
    guard slotStart <= deadline && deadline < slotStart + width else { return "slot \(slot) misses it" }
    guard slotStart > elapsed else { return "slot \(slot) starts at or before elapsed" }
    return nil
}

@Test(arguments: [0, 63, 4_095, start, start + 3_647, (1 << 36) - 70_000, -1_000_003] as [Int64])
func levelForEveryOffsetUpTo64Cubed(elapsed: Int64) {
    var problems: [String] = []
    for offset in 1...Int64(64 * 64 * 64) {
        if let problem = placementProblem(deadline: elapsed + offset, elapsed: elapsed), problems.count < 5 {
            problems.append("+\(offset): \(problem)")
        }
    }
    #expect(problems.isEmpty)
}

@Test func levelForRandomLargeOffsets() {
    var rng = WheelRandom(state: 42)
    var problems: [String] = []
    var beyondRange = 0
    for _ in 0..<200_000 {
        let elapsed = Int64(bitPattern: rng.next()) >> rng.int(in: 0...62)
        let offset = Int64(bitPattern: rng.next() >> 1) >> rng.int(in: 0...62)
        let (deadline, overflow) = elapsed.addingReportingOverflow(max(offset, 1))
        guard !overflow else { continue }
        if !windowHolds(level: 5, deadline, elapsed: elapsed) { beyondRange += 1 }
        if let problem = placementProblem(deadline: deadline, elapsed: elapsed), problems.count < 5 {
            problems.append("\(elapsed) -> \(deadline): \(problem)")
        }
    }
    #expect(problems.isEmpty)
    #expect(beyondRange > 1_000)
}

@Test func workedExampleFromHeaderComment() {
    var wheel = IntWheel(now: 1_700_000_000)
    let id = scheduledID(wheel.insert(1, at: 1_700_003_700))!
    #expect(wheel.location(of: id)! == (1, 61))
    #expect(wheel.advance(to: 1_700_003_000).isEmpty)
    #expect(wheel.cascadeSteps == 0)
    #expect(wheel.advance(to: 1_700_003_648).isEmpty)
    #expect(wheel.location(of: id)! == (0, 52))
    #expect(wheel.advance(to: 1_700_003_699).isEmpty)
    #expect(wheel.advance(to: 1_700_003_700).map(\.id) == [id])
    #expect(wheel.cascadeSteps == 2)
}

// MARK: - Cost and range

@Test func tenYearJumpVisitsOnlyOccupiedSlots() {
    var empty = IntWheel(now: start)
    #expect(empty.advance(to: start + 10 * year).isEmpty)
    #expect(empty.cascadeSteps == 0)

    var wheel = IntWheel(now: start)
    let offsets: [Int64] = [5, 4_000, 600_000, 40 * day, 9 * year]
    for offset in offsets {
        _ = wheel.insert(Int(offset), at: start + offset)
    }
    #expect(wheel.advance(to: start + 10 * year).map(\.deadline) == offsets.map { start + $0 })
    #expect(wheel.cascadeSteps <= offsets.count * IntWheel.levelCount)

    // Walking day by day to a deadline 9 years out still touches it at most once per level.
    var walker = IntWheel(now: start)
    _ = walker.insert(1, at: start + 9 * year)
    var expired: [IntWheel.Expired] = []
    for days in 1...(9 * 365) {
        expired += walker.advance(to: start + Int64(days) * day)
    }
    #expect(expired.map(\.deadline) == [start + 9 * year])
    #expect(walker.cascadeSteps <= IntWheel.levelCount)
}

@Test func deadlinesBeyondTopLevelAreRecascaded() {
    let window: Int64 = 1 << 36
    var wheel = IntWheel(now: 0)
    let near = scheduledID(wheel.insert(1, at: window + 5))!
    let far = scheduledID(wheel.insert(2, at: 3 * window + 7))!
    let last = scheduledID(wheel.insert(3, at: Int64.max))!
    #expect(wheel.location(of: near)! == (5, 63))
    #expect(wheel.location(of: far)! == (5, 63))
    #expect(wheel.nextDeadline == window + 5)
    #expect(wheel.advance(to: window + 4).isEmpty)
    #expect(wheel.nextDeadline == window + 5)
    #expect(wheel.advance(to: window + 5).map(\.id) == [near])
    #expect(wheel.nextDeadline == 3 * window + 7)
    #expect(wheel.advance(to: 3 * window + 6).isEmpty)
    #expect(wheel.advance(to: 3 * window + 7).map(\.id) == [far])
    #expect(wheel.payload(for: last) == 3)
    #expect(wheel.advance(to: Int64.max).map(\.id) == [last])
    #expect(wheel.cascadeSteps < 30)

    // Across the sign of Int64 every bit differs, so this also parks in the top level's last slot.
    var negative = IntWheel(now: -100)
    let crossing = scheduledID(negative.insert(1, at: 50))!
    #expect(negative.location(of: crossing)! == (5, 63))
    #expect(negative.nextDeadline == 50)
    #expect(negative.advance(to: 49).isEmpty)
    #expect(negative.advance(to: 50).map(\.id) == [crossing])
}

// MARK: - Model-based and dense

@Test(arguments: [1, 2, 3, 0xDEAD_BEEF, 20_240_601] as [UInt64])
func matchesSortedArrayModelOver2000RandomOperations(seed: UInt64) throws {
    var rng = WheelRandom(state: seed)
    let origin = start + rng.int(in: 0...100_000)
    var wheel = IntWheel(now: origin)
    var model: [Snapshot] = []
    var now = origin
    var issued: [TimerID] = []
    var tally = (alreadyDue: 0, cancelled: 0, expired: 0, peak: 0)
    for step in 0..<2_000 {
        let context: Comment = "seed \(seed) step \(step)"
        switch rng.int(in: 0...9) {
        case 0...5:
            // Reusing a live deadline now and then exercises the (deadline, id) tie-break.
            let reuse = !model.isEmpty && rng.int(in: 0...9) == 0
            let deadline =
                reuse
                ? model[Int(rng.int(in: 0...Int64(model.count - 1)))].deadline
                : now + rng.spread(upTo: 10 * day)
            let result = wheel.insert(step, at: deadline)
            if deadline <= now {
                tally.alreadyDue += 1
                try #require(result == .alreadyDue, context)
            } else {
                let id = try #require(scheduledID(result), context)
                try #require(issued.last.map { $0 < id } ?? true, context)
                issued.append(id)
                model.append(Snapshot(id: id, deadline: deadline, payload: step))
            }
        case 6:
            guard !issued.isEmpty else { continue }
            // Mostly live IDs (a real removal); otherwise any ID ever issued, usually expired or cancelled already.
            let pickLive = !model.isEmpty && rng.int(in: 0...2) > 0
            let id =
                pickLive
                ? model[Int(rng.int(in: 0...Int64(model.count - 1)))].id
                : issued[Int(rng.int(in: 0...Int64(issued.count - 1)))]
            let position = model.firstIndex { $0.id == id }
            let expected = position.map { model.remove(at: $0).payload }
            tally.cancelled += expected == nil ? 0 : 1
            try #require(wheel.cancel(id) == expected, context)
        default:
            now += rng.spread(upTo: 2 * day)
            let expected = model.filter { $0.deadline <= now }.sorted { ($0.deadline, $0.id) < ($1.deadline, $1.id) }
            model.removeAll { $0.deadline <= now }
            tally.expired += expected.count
            try #require(snapshots(wheel.advance(to: now)) == expected, context)
        }
        try #require(wheel.now == now, context)
        try #require(wheel.count == model.count, context)
        tally.peak = max(tally.peak, model.count)
        try #require(wheel.nextDeadline == model.map(\.deadline).min(), context)
        if step % 100 == 0 {
            let sorted = model.sorted { ($0.deadline, $0.id) < ($1.deadline, $1.id) }
            try #require(snapshots(wheel.sortedEntries()) == sorted, context)
            try #require(model.allSatisfy { wheel.payload(for: $0.id) == $0.payload }, context)
        }
    }
    #expect(tally.alreadyDue > 20 && tally.cancelled > 100 && tally.expired > 500 && tally.peak > 10)
}

@Test func denseWeekOfOneEntryPerMinuteExpiresEachAtItsMinute() {
    let origin = start + 17
    var wheel = IntWheel(now: origin)
    let minutes = 7 * 24 * 60
    #expect(minutes == 10_080)
    for index in 1...minutes {
        _ = wheel.insert(index, at: origin + Int64(index) * minute)
    }
    #expect(wheel.count == minutes)
    var mismatches = 0
    for index in 1...minutes {
        let due = origin + Int64(index) * minute
        if wheel.nextDeadline != due { mismatches += 1 }
        if !wheel.advance(to: due - 1).isEmpty { mismatches += 1 }
        let expired = wheel.advance(to: due)
        if expired.map(\.payload) != [index] || expired.map(\.deadline) != [due] { mismatches += 1 }
    }
    #expect(mismatches == 0)
    #expect(wheel.isEmpty)
    #expect(wheel.cascadeSteps <= minutes * IntWheel.levelCount)
}
