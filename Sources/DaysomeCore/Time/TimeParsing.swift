// Reads the times a person types: a local `YYYY-MM-DDTHH:MM[:SS]` in the household's zone (read
// by rule 8) or an RFC 3339 instant with `Z` or an offset. Fractions of a second are allowed
// and truncated: a lay starts on a whole second.

/// Parses `--from` and `--to` values.
public enum TimeParsing {
    /// The instant a typed time stands for, or nil when it is neither form.
    public static func instant(_ text: String, zone: Zone) -> Instant? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 16, let date = LocalDate(iso: String(decoding: bytes[0..<10], as: UTF8.self)),
            bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: "t") || bytes[10] == UInt8(ascii: " "),
            let time = ClockTime(hhmm: String(decoding: bytes[11..<16], as: UTF8.self))
        else { return nil }
        var index = 16
        var second = 0
        if index < bytes.count && bytes[index] == UInt8(ascii: ":") {
            guard index + 3 <= bytes.count, let parsed = parseDigits(bytes[(index + 1)..<(index + 3)]), parsed <= 60
            else { return nil }
            // A leap second reads as the last second of its minute.
            second = min(parsed, 59)
            index += 3
            if index < bytes.count && bytes[index] == UInt8(ascii: ".") {
                index += 1
                let digitsStart = index
                while index < bytes.count && bytes[index] >= UInt8(ascii: "0") && bytes[index] <= UInt8(ascii: "9") {
                    index += 1
                }
                guard index > digitsStart else { return nil }
            }
        }
        let secondOfDay = time.secondOfDay + Int64(second)
        if index == bytes.count {
            return zone.resolve(date, secondOfDay: secondOfDay).instant
        }
        let wall = date.daysSinceEpoch * 86_400 + secondOfDay
        let rest = bytes[index...]
        if rest.count == 1 && (rest.first == UInt8(ascii: "Z") || rest.first == UInt8(ascii: "z")) {
            return Instant(seconds: wall)
        }
        guard rest.count == 6, rest.first == UInt8(ascii: "+") || rest.first == UInt8(ascii: "-"),
            bytes[index + 3] == UInt8(ascii: ":"),
            let hours = parseDigits(bytes[(index + 1)..<(index + 3)]), hours <= 23,
            let minutes = parseDigits(bytes[(index + 4)..<(index + 6)]), minutes <= 59
        else { return nil }
        let offset = Int64(hours * 3600 + minutes * 60) * (rest.first == UInt8(ascii: "-") ? -1 : 1)
        return Instant(seconds: wall - offset)
    }
}
