// The instant and local-time formats written into fixed-width ASCII at once: a dense week's
// queue formats 30,000 of them, and string interpolation of two-digit pieces spent more time
// there than the planner did. Years outside 0...9999 keep the general path.

enum TimeText {
    /// `YYYY-MM-DDTHH:MM:SS` followed by `suffix` (`Z`, or an offset `±HH:MM`), or nil when the
    /// year needs more or fewer than four digits.
    static func dateTime(_ date: LocalDate, secondOfDay: Int64, offset: Int32?) -> String? {
        guard self.fits(date, secondOfDay: secondOfDay) else { return nil }
        let width = self.width(offset: offset)
        return String(unsafeUninitializedCapacity: width) { buffer in
            self.fill(buffer, date, secondOfDay: secondOfDay, offset: offset)
            return width
        }
    }

    /// Whether the fixed-width form can say this date and time.
    static func fits(_ date: LocalDate, secondOfDay: Int64) -> Bool {
        (0...9_999).contains(date.year) && (0..<86_400).contains(secondOfDay)
    }

    /// 20 bytes for an instant (`Z`), 25 for a local time with its offset.
    static func width(offset: Int32?) -> Int { offset == nil ? 20 : 25 }

    /// Writes the form into the first `width(offset:)` bytes of `buffer`; `fits` must hold.
    static func fill(_ buffer: UnsafeMutableBufferPointer<UInt8>, _ date: LocalDate, secondOfDay: Int64, offset: Int32?)
    {
        // Two digits at a time, without a loop: a queue formats 30,000 of these.
        func put2(_ value: Int, at index: Int) {
            buffer[index] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value / 10)
            buffer[index + 1] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value % 10)
        }
        func put(_ value: Int, at index: Int, digits: Int) {
            if digits == 4 {
                put2(value / 100, at: index)
                put2(value % 100, at: index + 2)
            } else {
                put2(value, at: index)
            }
        }
        put(date.year, at: 0, digits: 4)
        buffer[4] = UInt8(ascii: "-")
        put(date.month, at: 5, digits: 2)
        buffer[7] = UInt8(ascii: "-")
        put(date.day, at: 8, digits: 2)
        buffer[10] = UInt8(ascii: "T")
        put(Int(secondOfDay / 3600), at: 11, digits: 2)
        buffer[13] = UInt8(ascii: ":")
        put(Int((secondOfDay / 60) % 60), at: 14, digits: 2)
        buffer[16] = UInt8(ascii: ":")
        put(Int(secondOfDay % 60), at: 17, digits: 2)
        guard let offset else {
            buffer[19] = UInt8(ascii: "Z")
            return
        }
        // Seconds of an LMT offset are dropped, as formatOffset does.
        let magnitude = Int(offset.magnitude)
        buffer[19] = offset < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+")
        put(magnitude / 3600 % 100, at: 20, digits: 2)
        buffer[22] = UInt8(ascii: ":")
        put((magnitude / 60) % 60, at: 23, digits: 2)
    }
}
