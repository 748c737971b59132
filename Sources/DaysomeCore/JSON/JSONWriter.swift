extension JSONValue {
    /// Serialized JSON. Compact: no spaces at all. Pretty: 2-space indent, "key": value, one member per line;
    /// empty containers as [] and {}. Object members are written in `members` order; non-finite numbers as null.
    public func serialized(pretty: Bool = false) -> String {
        var writer = JSONByteWriter(pretty: pretty)
        writer.write(self, depth: 0)
        return String(decoding: writer.output, as: UTF8.self)
    }

    /// The serialized bytes and a final newline: a file's contents, with no String between
    /// (a String's UTF-8 check, and the copy back into bytes, cost as much as the writing).
    public func serializedFile(pretty: Bool = true) -> [UInt8] {
        var writer = JSONByteWriter(pretty: pretty)
        writer.output.reserveCapacity(1_024)
        writer.write(self, depth: 0)
        writer.output.append(0x0A)
        return writer.output
    }

    /// Appends this value serialized at `depth` (its first line unindented, as a member's value).
    func serialize(pretty: Bool, depth: Int, into output: inout [UInt8]) {
        var writer = JSONByteWriter(pretty: pretty)
        swap(&writer.output, &output)
        defer { swap(&writer.output, &output) }
        writer.write(self, depth: depth)
    }

    /// The object, if this is an object.
    public var objectValue: JSONObject? {
        if case .object(let object) = self { object } else { nil }
    }

    /// The elements, if this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let elements) = self { elements } else { nil }
    }

    /// The string, if this is a string.
    public var stringValue: String? {
        if case .string(let string) = self { string } else { nil }
    }

    /// The boolean, if this is a boolean.
    public var boolValue: Bool? {
        if case .bool(let bool) = self { bool } else { nil }
    }

    /// The number, if this is a number.
    public var doubleValue: Double? {
        if case .number(let number) = self { number } else { nil }
    }

    /// The number as a count (a lay number, an id, a pid), if it is a whole number from 0 to 2^53:
    /// every such number survives a Double exactly, and no conversion of it can trap. A state
    /// file that says `1e300` or `-1` or `2.5` there gets nil, never a crash.
    public var countValue: UInt64? {
        guard case .number(let number) = self, number >= 0, number <= 9_007_199_254_740_992,
            number.rounded(.towardZero) == number
        else { return nil }
        return UInt64(number)
    }

    /// Whether this is JSON null.
    public var isNull: Bool {
        self == .null
    }

    /// The JSON type name for messages such as "expected a string, found a number".
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}

/// Accumulates UTF-8 output; recursion depth equals the value's nesting depth.
struct JSONByteWriter {
    let pretty: Bool
    var output: [UInt8] = []
    private var lastDay: (days: Int64, date: LocalDate)?

    init(pretty: Bool) {
        self.pretty = pretty
    }

    mutating func write(_ value: JSONValue, depth: Int) {
        switch value {
        case .null: append("null")
        case .bool(let bool): append(bool ? "true" : "false")
        case .number(let number): writeNumber(number)
        case .string(let string): writeString(string)
        case .array(let elements):
            writeArray(elements, depth: depth) { $0 }
        case .object(let object):
            guard !object.members.isEmpty else { return append("{}") }
            output.append(UInt8(ascii: "{"))
            for (position, member) in object.members.enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                newline(depth: depth + 1)
                writeString(member.key)
                output.append(UInt8(ascii: ":"))
                if pretty { output.append(UInt8(ascii: " ")) }
                write(member.value, depth: depth + 1)
            }
            newline(depth: depth)
            output.append(UInt8(ascii: "}"))
        }
    }

    mutating func writeArray<Elements: Collection>(
        _ elements: Elements, depth: Int, _ element: (Elements.Element) -> JSONValue
    ) {
        guard !elements.isEmpty else { return append("[]") }
        output.append(UInt8(ascii: "["))
        for (position, value) in elements.enumerated() {
            if position > 0 { output.append(UInt8(ascii: ",")) }
            newline(depth: depth + 1)
            write(element(value), depth: depth + 1)
        }
        newline(depth: depth)
        output.append(UInt8(ascii: "]"))
    }

    mutating func append(_ text: StaticString) {
        output.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    mutating func newline(depth: Int) {
        guard pretty else { return }
        // The line break and its indent in one append, for the depths a file of ours reaches.
        let count = 1 + 2 * depth
        if count <= Self.indentation.utf8CodeUnitCount {
            output.append(contentsOf: UnsafeBufferPointer(start: Self.indentation.utf8Start, count: count))
            return
        }
        output.append(0x0A)
        output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * depth))
    }

    /// A line break and the indent of depth 16.
    private static let indentation: StaticString = "\n                                "

    mutating func writeNumber(_ number: Double) {
        guard number.isFinite else { return append("null") }
        // Below 2^53 every integral Double is an exact integer, so printing it without ".0" loses nothing.
        // The magnitude test comes first because Int64(_:) traps on out-of-range values.
        if number.magnitude < 9_007_199_254_740_992, Double(Int64(number)) == number {
            output.append(contentsOf: String(Int64(number)).utf8)
        } else {
            output.append(contentsOf: number.description.utf8)
        }
    }

    /// A byte `writeString` copies as it is: printable ASCII other than the quote and backslash,
    /// and UTF-8 bytes that cannot start a C1 control or U+2028/2029.
    @inline(__always)
    static func isPlain(_ byte: UInt8) -> Bool {
        (byte >= 0x20 && byte < 0x7F && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\"))
            || (byte >= 0x80 && byte != 0xC2 && byte != 0xE2)
    }

    mutating func writeString(_ string: String) {
        var string = string
        output.append(UInt8(ascii: "\""))
        string.withUTF8 { utf8 in
            var index = 0
            while index < utf8.count {
                // A run that needs no escape is copied at once (most of every string).
                var end = index
                while end < utf8.count, Self.isPlain(utf8[end]) { end += 1 }
                if end > index {
                    output.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[index..<end]))
                    index = end
                    continue
                }
                let byte = utf8[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""): append("\\\"")
                case UInt8(ascii: "\\"): append("\\\\")
                case 0x08: append("\\b")
                case 0x0C: append("\\f")
                case 0x0A: append("\\n")
                case 0x0D: append("\\r")
                case 0x09: append("\\t")
                case 0x00..<0x20, 0x7F:
                    append("\\u00")
                    output.append(Self.hexDigit(byte >> 4))
                    output.append(Self.hexDigit(byte & 0x0F))
                // The C1 controls (C2 80…C2 9F) are legal in JSON, but a terminal may act on them
                // (U+009B is a CSI): escaped, JSON printed to a terminal stays inert.
                case 0xC2 where index < utf8.count && (0x80...0x9F).contains(utf8[index]):
                    append("\\u00")
                    output.append(Self.hexDigit(utf8[index] >> 4))
                    output.append(Self.hexDigit(utf8[index] & 0x0F))
                    index += 1
                // U+2028 and U+2029 (E2 80 A8/A9) are legal in JSON but end lines in JavaScript source.
                case 0xE2 where index + 1 < utf8.count && utf8[index] == 0x80 && (utf8[index + 1] & 0xFE) == 0xA8:
                    append(utf8[index + 1] == 0xA8 ? "\\u2028" : "\\u2029")
                    index += 2
                default: output.append(byte)
                }
            }
        }
        output.append(UInt8(ascii: "\""))
    }

    /// `"2026-12-01T13:00:00Z"`, as `writeString(instant.rfc3339)` writes it, formatted in place:
    /// a dense week's queue writes 20,160 instants, and a String for each was a third of its cost.
    mutating func writeInstant(_ instant: Instant) {
        let days = floorDiv(instant.seconds, 86_400)
        let secondOfDay = instant.seconds - days * 86_400
        // A queue's instants come in order, most on the day before: the date is worked out once a day.
        if self.lastDay?.days != days { self.lastDay = (days, LocalDate(daysSinceEpoch: days)) }
        if !self.writeDateTime(self.lastDay!.date, secondOfDay: secondOfDay, offset: nil) {
            self.writeString(instant.rfc3339)
        }
    }

    /// `"2026-12-01T13:00:00+00:00"`, as `writeString(local.rfc3339)` writes it, formatted in place.
    mutating func writeLocal(_ local: LocalDateTime) {
        if !self.writeDateTime(local.date, secondOfDay: local.secondOfDay, offset: local.offset) {
            self.writeString(local.rfc3339)
        }
    }

    private mutating func writeDateTime(_ date: LocalDate, secondOfDay: Int64, offset: Int32?) -> Bool {
        guard TimeText.fits(date, secondOfDay: secondOfDay) else { return false }
        let width = TimeText.width(offset: offset)
        output.append(UInt8(ascii: "\""))
        let start = output.count
        output.append(contentsOf: repeatElement(0, count: width))
        output.withUnsafeMutableBufferPointer { buffer in
            TimeText.fill(
                UnsafeMutableBufferPointer(rebasing: buffer[start..<start + width]), date, secondOfDay: secondOfDay,
                offset: offset)
        }
        output.append(UInt8(ascii: "\""))
        return true
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}
