// The simulator's household variants as the files the family's app writes: what the embedded
// run (EmbeddedRun.swift) saves for the real daemon to read, the same households `Households.variant`
// gives the machine directly.

import DaysomeCore

extension Households {
    /// Variant `index`'s file in `zone`; variant 3 is a half-written file.
    public static func text(_ index: Int, zone: String) -> String {
        var items = [("breakfast", "08:00"), ("lunch", "12:30"), ("tea", "17:00"), ("night", "01:30")]
        var inOtherApps = true
        var respect = false
        switch index {
        case 1: items[1] = ("lunch", "12:45")
        case 2: inOtherApps = false
        case 3: return "{ \"version\": 1, \"timeZone\": \"\(zone)\", \"items\": [ { \"id\": \"lunch\""
        case 4: items.append(("walk", "02:30"))
        case Households.respectsDoNotDisturb: respect = true
        default: break
        }
        let lines = items.map { id, time in
            let label = id.prefix(1).uppercased() + id.dropFirst()
            return
                "{ \"id\": \"\(id)\", \"label\": \"\(label)\", \"kind\": \"meal\", \"time\": \"\(time)\", \"repeat\": \"daily\" }"
        }
        return """
            { "version": 1, "timeZone": "\(zone)", "clock": "24h",
              "settings": { "notifyInOtherApps": \(inOtherApps), "respectDoNotDisturb": \(respect) },
              "items": [ \(lines.joined(separator: ",\n")) ] }
            """
    }
}
