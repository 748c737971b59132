// Shared by every fuzz target (scripts/fuzz compiles it into each one): the input as bytes, a
// cursor that turns bytes into choices, a fixed set of real zones read once with Glibc, a trap
// that names the broken invariant, and the invariants every plan must keep.

import DaysomeCore
import Glibc

/// The fuzzer's input as an array (libFuzzer may pass a null pointer for an empty input).
func fuzzInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
    guard let data, size > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: data, count: size))
}

/// Traps when an invariant does not hold: libFuzzer reports a deadly signal and saves the input.
func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition {
        fatalError("fuzz invariant violated: \(message())")
    }
}

/// Reads a whole file with open/read, or nil when it cannot be read.
func readWholeFile(_ path: String) -> [UInt8]? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count == 0 { return bytes }
        if count < 0 {
            if errno == EINTR { continue }
            return nil
        }
        bytes.append(contentsOf: chunk[0..<count])
    }
}

/// The rules of each named zone, read from /usr/share/zoneinfo; setup traps with a clear line
/// when a zone is missing, since a target without its zones tests nothing.
func loadZones(_ names: [String]) -> [String: ZoneRules] {
    var zones: [String: ZoneRules] = [:]
    for name in names {
        let path = "/usr/share/zoneinfo/" + name
        guard let bytes = readWholeFile(path) else { fatalError("fuzz setup: cannot read \(path): install tzdata") }
        do {
            zones[name] = try ZoneRules(tzif: bytes)
        } catch {
            fatalError("fuzz setup: \(path): \(error)")
        }
    }
    return zones
}

/// Turns fuzz bytes into choices; past the end every read is zero, so every input is usable.
struct ByteCursor {
    let bytes: [UInt8]
    var position = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func byte() -> UInt8 {
        guard position < bytes.count else { return 0 }
        defer { position += 1 }
        return bytes[position]
    }

    /// `count` bytes, big-endian.
    mutating func integer(bytes count: Int) -> UInt64 {
        var value: UInt64 = 0
        for _ in 0..<count {
            value = value << 8 | UInt64(byte())
        }
        return value
    }

    /// A number in `0..<bound`.
    mutating func below(_ bound: Int) -> Int {
        Int(byte()) % bound
    }
}

/// The invariants of any plan made after `from` through `until`: starts strictly increasing,
/// inside the window, each expiring after it starts, each item at most once per local date.
func checkPlan(_ plan: Plan, _ household: Household, after from: Instant, through until: Instant) {
    require(
        plan.from == from && plan.until == until, "plan window \(plan.from)...\(plan.until), asked \(from)...\(until)")
    if !household.settings.notifyInOtherApps {
        require(plan.starts.isEmpty && plan.notLaidReason != nil, "a plan with notifications off has starts")
        return
    }
    let laid = Set(household.items.filter(\.sound).map(\.id))
    var previous: Instant?
    var seen: Set<String> = []
    for start in plan.starts {
        require(start.at > from && start.at <= until, "start \(start.at) outside (\(from), \(until)]")
        if let previous {
            require(start.at > previous, "starts not strictly increasing: \(previous) then \(start.at)")
        }
        previous = start.at
        require(start.expiresAt > start.at, "start \(start.at) expires at \(start.expiresAt)")
        require(!start.itemIds.isEmpty, "start \(start.at) has no items")
        // Whatever the family wrote, the Notify carries it: nothing sd-bus refuses, nothing it cuts.
        for markup in [false, true] {
            let text = Content.notification(start, markup: markup)
            require(
                (text.summary + text.body).unicodeScalars.allSatisfy(Content.busCarries),
                "start \(start.at): the Notify's text holds a scalar the bus cannot carry")
        }
        let date = household.zone.date(of: start.at)
        require(start.local.date == date, "start \(start.at): local date \(start.local.date), zone says \(date)")
        for id in start.itemIds {
            require(laid.contains(id), "start \(start.at) lays \(id), which is not a laid item")
            let (inserted, _) = seen.insert(id + " " + date.isoString)
            require(inserted, "item \(id) starts twice on \(date)")
        }
    }
}
