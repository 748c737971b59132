// Whole minutes on the wall clock: the integration tests lay a call at the next minute and wait
// for it, as she would, and name it as the daemon does (RFC 3339, UTC).

import DaysomeCore
import DaysomeFiles

/// The first whole minute at least `margin` seconds from now (so a test can set itself up first).
public func nextMinute(leaving margin: Double) -> Int64 {
    let earliest = wallSeconds() + margin
    return (Int64(earliest.rounded(.down)) / 60 + 1) * 60
}

/// The UTC `HH:MM` of an instant.
public func utcClockTime(_ seconds: Int64) -> String {
    let minutes = (seconds % 86_400) / 60
    let hour = minutes / 60
    let minute = minutes % 60
    return (hour < 10 ? "0" : "") + String(hour) + ":" + (minute < 10 ? "0" : "") + String(minute)
}

/// The local `HH:MM` of an instant in a zone from /usr/share/zoneinfo.
public func clockTime(_ seconds: Int64, zone name: String) throws -> String {
    let rules: ZoneRules
    do {
        rules = try ZoneFiles.load(name: name)
    } catch {
        throw HarnessError("zone \(name) is not installed (\(error)): install the Debian package 'tzdata'")
    }
    let time = Zone(name: name, rules: rules).local(Instant(seconds: seconds)).clockTime
    return (time.hour < 10 ? "0" : "") + String(time.hour) + ":" + (time.minute < 10 ? "0" : "") + String(time.minute)
}

/// RFC 3339 UTC text of an instant (`2026-11-30T13:00:00Z`).
public func rfc3339(_ seconds: Int64) -> String {
    Instant(seconds: seconds).rfc3339
}
