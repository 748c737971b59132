// Whole minutes on the wall clock: the integration tests lay a call at the next minute and wait
// for it, as she would.

/// The first whole minute at least `margin` seconds from now (so a test can set itself up first).
func nextMinute(leaving margin: Double) -> Int64 {
    let earliest = wallSeconds() + margin
    return (Int64(earliest.rounded(.down)) / 60 + 1) * 60
}

/// The UTC `HH:MM` of an instant.
func utcClockTime(_ seconds: Int64) -> String {
    let minutes = (seconds % 86_400) / 60
    let hour = minutes / 60
    let minute = minutes % 60
    return (hour < 10 ? "0" : "") + String(hour) + ":" + (minute < 10 ? "0" : "") + String(minute)
}
