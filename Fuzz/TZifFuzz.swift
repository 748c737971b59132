// Fuzz target `tzif`: any bytes as a TZif file (RFC 8536). Rules that parse answer offsets at a
// few instants from 1900 to 2200 and list the transitions of bounded two-year ranges, in order,
// each a real change that agrees with `offset(at:)`; rule 8 is read through them without a trap.

import DaysomeCore

private let instants: [Int64] = [
    -2_208_988_800, -1, 0, 1, 1_000_000_000, 1_325_030_400, 1_792_839_600, 2_147_483_648, 4_102_444_800,
    7_258_118_400,
]

/// Two years of 366 days, the bound the harness puts on every transition range.
private let twoYears: Int64 = 2 * 366 * 86_400

@_cdecl("LLVMFuzzerTestOneInput")
public func tzifFuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let rules: ZoneRules
    do {
        rules = try ZoneRules(tzif: fuzzInput(data, size))
    } catch {
        require(!error.description.isEmpty, "empty error")
        return 0
    }
    for instant in instants {
        _ = rules.offset(at: instant)
        _ = rules.abbreviation(at: instant)
    }
    for first in [-2_208_988_800, 0, 1_767_225_600, 4_102_444_800] as [Int64] {
        let last = first + twoYears
        let transitions = rules.transitions(after: first, through: last)
        var previous = first
        for transition in transitions {
            require(transition.at > previous && transition.at <= last, "transition \(transition.at) out of order")
            require(transition.offsetBefore != transition.offsetAfter, "transition \(transition.at) changes nothing")
            require(rules.offset(at: transition.at) == transition.offsetAfter, "offset after \(transition.at)")
            require(rules.offset(at: transition.at - 1) == transition.offsetBefore, "offset before \(transition.at)")
            previous = transition.at
        }
        // No change goes unreported: sampled offsets agree with the list.
        let opening = transitions.first?.offsetBefore ?? rules.offset(at: first + 1)
        for step in 1...16 {
            let sample = first + twoYears / 16 * Int64(step)
            let expected = transitions.last { $0.at <= sample }?.offsetAfter ?? opening
            require(rules.offset(at: sample) == expected, "offset at \(sample) changed without a transition")
        }
    }
    let zone = Zone(name: "Fuzz/Zone", rules: rules)
    for date in ["1970-01-01", "2011-12-30", "2026-03-29", "2026-10-25", "2099-12-31"] {
        let day = LocalDate(iso: date)!
        for clock in ["00:00", "01:30", "02:30", "23:59"] {
            let resolved = zone.resolve(day, ClockTime(hhmm: clock)!)
            _ = zone.local(resolved.instant).rfc3339
        }
        _ = zone.startOfDay(day)
    }
    return 0
}
