// Hierarchical timer wheel (after Kafka's TimingWheel, tokio's time wheel and Linux kernel/time/timer.c).
//
// Time is whole Unix seconds (Int64), always passed in; the wheel never reads a clock. Tick = 1 s. Every level has
// 64 slots; a slot of level k spans 64^k s, so level k spans 64^(k+1) s, aligned to a multiple of 64^(k+1) (its
// "window": the one containing `now`).
//
//   level | slot width          | window (64 slots)            | holds deadlines that first differ from now in
//   ------+---------------------+------------------------------+----------------------------------------------
//     0   | 1 s                 | 64 s          (~1 minute)    | bits 0-5   (exact second)
//     1   | 64 s (~1 minute)    | 4,096 s       (~68 minutes)  | bits 6-11  (the per-minute slots)
//     2   | 4,096 s (~68 min)   | 262,144 s     (~3 days)      | bits 12-17
//     3   | 262,144 s (~3 days) | 16,777,216 s  (~194 days)    | bits 18-23 (a week ahead lands here or lower)
//     4   | ~194 days           | 2^30 s        (~34 years)    | bits 24-29
//     5   | ~34 years           | 2^36 s        (~2,177 years) | bits 30-35, plus everything beyond (slot 63)
//
// An entry lives at the level owning the highest bit in which its deadline differs from `now` (tokio's `level_for`),
// in the slot named by that level's 6 bits of the deadline. So every slot in use lies strictly after `now`'s slot on
// its level, everything on level k is earlier than everything on level k+1, and within a level a lower slot is earlier:
// the earliest entry sits in the lowest occupied slot of the lowest occupied level, found with `trailingZeroBitCount`
// on the per-level `occupied` bitmasks. When time reaches an occupied slot's start the slot is emptied: entries due
// expire, the others are re-inserted against the new `now` and fall to a lower level ("cascade"). Empty stretches are
// skipped by jumping straight to the next occupied slot, so an advance costs O(slots emptied x levels), not O(seconds).
//
// Worked example: t0 = now = 1_700_000_000 (a multiple of 64, in level-1 slot 4); insert at t0 + 3700 = 1_700_003_700.
//   - deadline ^ now = 0b1110_0111_0100: highest bit 11 -> level 11 / 6 = 1; slot (deadline >> 6) & 63 = 61,
//     which covers [1_700_003_648, 1_700_003_711].
//   - advance(to: t0 + 3000): the next occupied slot starts at t0 + 3648 > target, nothing moves: O(levels).
//   - advance(to: t0 + 3648): slot 1/61 is emptied at its start 1_700_003_648; against that time the deadline differs
//     only in bits 0-5 -> level 0, slot 1_700_003_700 & 63 = 52.
//   - advance(to: t0 + 3700) or later: slot 0/52 is emptied and the entry is returned. (A single advance straight past
//     1_700_003_700 visits slot 1/61 once and returns the entry without the intermediate re-insert.)
//
// Deadlines beyond level 5's window (or across a sign change of Int64) go to level 5's last slot, 63, and are
// re-cascaded later: once when `now` reaches that slot's start, and again, if still beyond, at the start of the 2^36 s
// window holding the slot's earliest deadline. So even a deadline of Int64.max costs only a few slot visits.

/// Identifies one inserted timer; stable until it expires or is cancelled.
public struct TimerID: Hashable, Sendable, Comparable {
    /// The wheel-assigned sequence number; later inserts get larger values and values are never reused.
    public let rawValue: UInt64

    /// Orders IDs by insertion, the tie-break between entries with equal deadlines.
    public static func < (lhs: TimerID, rhs: TimerID) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A hierarchical timer wheel of payloads keyed by whole-second Unix deadlines, driven by an explicit `now`.
public struct TimerWheel<Payload> {
    /// The outcome of `insert(_:at:)`.
    public enum InsertResult: Equatable, Sendable {
        /// The entry was stored under this ID.
        case scheduled(TimerID)
        /// The deadline is not after `now`; nothing was stored and the caller should act on it immediately.
        case alreadyDue
    }

    /// One entry, as returned by `advance(to:)` and `sortedEntries()`.
    public struct Expired {
        /// The ID that `insert(_:at:)` returned for this entry.
        public let id: TimerID
        /// The exact deadline that was inserted, in Unix seconds (not rounded to a slot).
        public let deadline: Int64
        /// The caller's value.
        public let payload: Payload
    }

    /// Bits of the deadline per level: 6, so a level has 64 slots and its `occupied` bitmask fits a UInt64.
    static var slotBits: Int { 6 }
    /// Slots per level (64).
    static var slotsPerLevel: Int { 1 << slotBits }
    /// Levels: 6 x 6 bits = 2^36 s (~2,177 years) of exact range; further levels would only hold absurd dates.
    static var levelCount: Int { 6 }
    /// The level that also takes deadlines beyond the wheel's range.
    static var topLevel: Int { levelCount - 1 }

    /// The wheel's current time in Unix seconds; only `advance(to:)` moves it, and only forwards.
    public private(set) var now: Int64
    /// `levelCount * 64` slots, slot `s` of level `l` at flat index `l << slotBits | s`.
    private var slots: [[TimerID: Expired]]
    /// Per level, bit `s` is set exactly when slot `s` is non-empty.
    private var occupied: [UInt64]
    /// Flat slot index of every stored entry, which makes `cancel` and `payload(for:)` O(1).
    private var index: [TimerID: Int] = [:]
    /// Next ID to hand out; it survives `removeAll()` so that a stale ID can never match a newer timer.
    private var nextID: UInt64 = 1
    /// Slots emptied by `advance(to:)` since creation; tests bound it instead of measuring wall time.
    var cascadeSteps = 0

    /// Creates an empty wheel whose time is `now` (Unix seconds).
    public init(now: Int64) {
        self.now = now
        slots = Array(repeating: [:], count: Self.levelCount * Self.slotsPerLevel)
        occupied = Array(repeating: 0, count: Self.levelCount)
    }

    /// The number of stored entries.
    public var count: Int { index.count }

    /// Whether no entries are stored.
    public var isEmpty: Bool { index.isEmpty }

    /// The level that stores `deadline` when the wheel's time is `elapsed`: the one owning the highest bit in which
    /// the two differ, capped at the top level. Requires `deadline > elapsed`.
    static func level(for deadline: Int64, elapsed: Int64) -> Int {
        // Or-ing in the level-0 bits makes a deadline within the current 64 s still report bit 5, i.e. level 0.
        let masked = UInt64(bitPattern: deadline ^ elapsed) | UInt64(slotsPerLevel - 1)
        let highestBit = UInt64.bitWidth - 1 - masked.leadingZeroBitCount
        return min(highestBit / slotBits, topLevel)
    }

    /// The slot of `level` that stores `deadline` when the wheel's time is `elapsed`.
    static func slot(for deadline: Int64, level: Int, elapsed: Int64) -> Int {
        if level == topLevel && (deadline ^ elapsed) >> (levelCount * slotBits) != 0 {
            // Beyond the top level's window there is no slot for it: park it in the last one, which is emptied only
            // after every in-range slot, and re-cascade it from there.
            return slotsPerLevel - 1
        }
        // In range: the level's own 6 bits of the deadline name a slot strictly after `elapsed`'s on that level,
        // so time reaches the slot's start, and the entry is looked at again, no later than its deadline.
        return Int(truncatingIfNeeded: deadline >> (level * slotBits)) & (slotsPerLevel - 1)
    }

    /// Stores `payload` to expire at `deadline` (Unix seconds). O(1).
    public mutating func insert(_ payload: Payload, at deadline: Int64) -> InsertResult {
        guard deadline > now else {
            // Its slot would lie at or before `now`, which the wheel has already passed: it would never fire.
            return .alreadyDue
        }
        // In the future: it must be stored. IDs come from a counter that is never reset, so none is ever reused.
        let id = TimerID(rawValue: nextID)
        nextID += 1
        store(Expired(id: id, deadline: deadline, payload: payload))
        return .scheduled(id)
    }

    /// Removes the entry `id` and returns its payload, or nil if it is unknown, expired or already cancelled. O(1).
    @discardableResult
    public mutating func cancel(_ id: TimerID) -> Payload? {
        guard let flat = index.removeValue(forKey: id) else { return nil }
        let entry = slots[flat].removeValue(forKey: id)
        if slots[flat].isEmpty {
            occupied[flat >> Self.slotBits] &= ~(UInt64(1) << (flat & (Self.slotsPerLevel - 1)))
        }
        return entry?.payload
    }

    /// The payload of the stored entry `id`, or nil if it is not stored.
    public func payload(for id: TimerID) -> Payload? {
        guard let flat = index[id] else { return nil }
        return slots[flat][id]?.payload
    }

    /// Moves time forward to `target` and returns every entry with deadline <= target, sorted by (deadline, id). Time
    /// never goes backwards: an earlier `target` is a no-op returning [] (the caller handles backward clock jumps by
    /// rebuilding).
    public mutating func advance(to target: Int64) -> [Expired] {
        guard target > now else { return [] }
        var expired: [Expired] = []
        while let next = nextOccupiedSlot(), next.start <= target {
            cascadeSteps += 1
            // Stop exactly at the slot's start, never past it: every entry left elsewhere keeps a valid level and slot.
            now = next.start
            var emptied: [TimerID: Expired] = [:]
            swap(&emptied, &slots[next.flat])
            occupied[next.flat >> Self.slotBits] &= ~(UInt64(1) << (next.flat & (Self.slotsPerLevel - 1)))
            for entry in emptied.values {
                if entry.deadline <= target {
                    index[entry.id] = nil
                    expired.append(entry)
                } else {
                    store(entry)
                }
            }
        }
        now = target
        expired.sort { ($0.deadline, $0.id) < ($1.deadline, $1.id) }
        return expired
    }

    /// The exact earliest deadline stored (not a slot boundary), or nil when empty. Scans only one slot.
    public var nextDeadline: Int64? {
        guard let next = nextOccupiedSlot() else { return nil }
        return Self.earliestDeadline(in: slots[next.flat])
    }

    /// All stored entries sorted by (deadline, id). Found through the index, not by walking
    /// every slot of every level: the simulator's oracle asks after each step, and most slots
    /// are empty.
    public func sortedEntries() -> [Expired] {
        var entries: [Expired] = []
        entries.reserveCapacity(index.count)
        for (id, flat) in index {
            if let entry = slots[flat][id] { entries.append(entry) }
        }
        return entries.sorted { ($0.deadline, $0.id) < ($1.deadline, $1.id) }
    }

    /// Removes every entry. `now` is kept, and IDs handed out before are never reissued.
    public mutating func removeAll() {
        slots = Array(repeating: [:], count: Self.levelCount * Self.slotsPerLevel)
        occupied = Array(repeating: 0, count: Self.levelCount)
        index = [:]
    }

    /// The level and slot holding `id`, for tests.
    func location(of id: TimerID) -> (level: Int, slot: Int)? {
        index[id].map { ($0 >> Self.slotBits, $0 & (Self.slotsPerLevel - 1)) }
    }

    private mutating func store(_ entry: Expired) {
        let level = Self.level(for: entry.deadline, elapsed: now)
        let flat = level << Self.slotBits | Self.slot(for: entry.deadline, level: level, elapsed: now)
        slots[flat][entry.id] = entry
        occupied[level] |= UInt64(1) << (flat & (Self.slotsPerLevel - 1))
        index[entry.id] = flat
    }

    /// The lowest occupied slot of the lowest occupied level, and the second at which it must be emptied.
    private func nextOccupiedSlot() -> (flat: Int, start: Int64)? {
        guard let level = occupied.firstIndex(where: { $0 != 0 }) else { return nil }
        let slot = occupied[level].trailingZeroBitCount
        let flat = level << Self.slotBits | slot
        let shift = level * Self.slotBits
        let windowMask = (Int64(1) << (shift + Self.slotBits)) - 1
        if slot == Int(truncatingIfNeeded: now >> shift) & (Self.slotsPerLevel - 1) {
            // Only the top level's parking slot can be in use while `now` is inside it (every in-range slot lies after
            // `now`'s), and all it holds lies in later windows: empty it where the earliest of them begins.
            return (flat, Self.earliestDeadline(in: slots[flat]) & ~windowMask)
        }
        return (flat, (now & ~windowMask) + (Int64(slot) << shift))
    }

    private static func earliestDeadline(in slot: [TimerID: Expired]) -> Int64 {
        slot.values.reduce(Int64.max) { min($0, $1.deadline) }
    }
}

extension TimerWheel: Sendable where Payload: Sendable {}
extension TimerWheel.Expired: Sendable where Payload: Sendable {}
