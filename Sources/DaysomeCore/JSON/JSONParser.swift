// Strict RFC 8259 parsing of UTF-8 bytes into a JSONValue, with typed errors that say where. A
// `\u` escape of a surrogate without its pair, which RFC 8259 allows and no Swift string holds,
// becomes U+FFFD.
// Containers are tracked on an explicit stack, so input depth never becomes call depth.

/// Why and where parsing failed.
public struct JSONParseError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The category of a parse failure.
    public enum Kind: Equatable, Sendable {
        case invalidUTF8
        case unexpectedEnd
        case unexpectedCharacter(UInt8)
        case invalidNumber
        case invalidEscape
        case controlCharacterInString
        case tooDeep(limit: Int)
        case trailingContent
        case empty
    }

    /// The category of the failure.
    public var kind: Kind
    /// The byte offset into the input (a skipped BOM still counts).
    public var offset: Int
    /// The 1-based line number (lines end at LF).
    public var line: Int
    /// The 1-based column, counted in bytes.
    public var column: Int

    /// Creates an error; `line` and `column` must describe `offset`.
    public init(kind: Kind, offset: Int, line: Int, column: Int) {
        self.kind = kind
        self.offset = offset
        self.line = line
        self.column = column
    }

    /// One short English line, e.g. "unexpected character '}' at line 2, column 3".
    public var description: String {
        let what: String
        switch kind {
        case .invalidUTF8: what = "invalid UTF-8"
        case .unexpectedEnd: what = "unexpected end of input"
        case .unexpectedCharacter(let byte) where byte >= 0x20 && byte < 0x7F:
            what = "unexpected character '\(Character(Unicode.Scalar(byte)))'"
        case .unexpectedCharacter(let byte):
            what = "unexpected character 0x\(byte < 0x10 ? "0" : "")\(String(byte, radix: 16))"
        case .invalidNumber: what = "invalid number"
        case .invalidEscape: what = "invalid escape sequence"
        case .controlCharacterInString: what = "unescaped control character in string"
        case .tooDeep(let limit): what = "nesting deeper than \(limit) levels"
        case .trailingContent: what = "unexpected content after the JSON value"
        case .empty: what = "empty input"
        }
        return "\(what) at line \(line), column \(column)"
    }
}

/// Strict RFC 8259 JSON parsing.
public enum JSONParser {
    /// Parses one JSON value from UTF-8 bytes. A leading BOM is skipped. Containers may nest `maxDepth` levels.
    public static func parse(_ bytes: [UInt8], maxDepth: Int = 64) throws(JSONParseError) -> JSONValue {
        try bytes.withUnsafeBufferPointer { (buffer) throws(JSONParseError) -> JSONValue in
            var parser = JSONByteParser(bytes: buffer, maxDepth: max(0, maxDepth))
            return try parser.parseDocument()
        }
    }

    /// Parses one JSON value from a string. Containers may nest `maxDepth` levels.
    public static func parse(_ text: String, maxDepth: Int = 64) throws(JSONParseError) -> JSONValue {
        // String.withUTF8 cannot throw a typed error; copying the bytes costs far less than parsing them.
        try parse(Array(text.utf8), maxDepth: maxDepth)
    }
}

/// An open array or object whose elements are still being read.
private struct JSONOpenContainer {
    var isObject: Bool
    var elements: [JSONValue] = []
    var members: [(key: String, value: JSONValue)] = []
    var pendingKey = ""
}

/// The parser proper. Containers are tracked on an explicit stack so that input depth never becomes call depth.
private struct JSONByteParser {
    let bytes: UnsafeBufferPointer<UInt8>
    let maxDepth: Int
    var index = 0

    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        if let bad = JSONGrammar.firstInvalidUTF8Offset(bytes) { throw error(.invalidUTF8, at: bad) }
        if bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF { index = 3 }
        skipWhitespace()
        if index == bytes.count { throw error(.empty, at: index) }
        let value = try parseValue()
        skipWhitespace()
        if index != bytes.count { throw error(.trailingContent, at: index) }
        return value
    }

    private mutating func parseValue() throws(JSONParseError) -> JSONValue {
        var stack: [JSONOpenContainer] = []
        while true {
            skipWhitespace()
            guard index < bytes.count else { throw error(.unexpectedEnd, at: index) }
            var value: JSONValue
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                if stack.count >= maxDepth { throw error(.tooDeep(limit: maxDepth), at: index) }
                index += 1
                skipWhitespace()
                let isObject = byte == UInt8(ascii: "{")
                if peek(isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    index += 1
                    value = isObject ? .object(JSONObject()) : .array([])
                } else {
                    var container = JSONOpenContainer(isObject: isObject)
                    if isObject { container.pendingKey = try parseKey() }
                    stack.append(container)
                    continue
                }
            case UInt8(ascii: "\""): value = .string(try parseString())
            case UInt8(ascii: "t"): value = try parseLiteral("true", .bool(true))
            case UInt8(ascii: "f"): value = try parseLiteral("false", .bool(false))
            case UInt8(ascii: "n"): value = try parseLiteral("null", .null)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): value = .number(try parseNumber())
            default: throw unexpected()
            }
            // Hand the finished value to its container; a closing bracket finishes that container too.
            while let top = stack.indices.last {
                let isObject = stack[top].isObject
                if isObject {
                    stack[top].members.append((key: stack[top].pendingKey, value: value))
                } else {
                    stack[top].elements.append(value)
                }
                skipWhitespace()
                if peek(UInt8(ascii: ",")) {
                    index += 1
                    skipWhitespace()
                    if isObject { stack[top].pendingKey = try parseKey() }
                    break
                }
                guard peek(isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) else { throw unexpected() }
                index += 1
                let closed = stack.removeLast()
                value = isObject ? .object(JSONObject(closed.members)) : .array(closed.elements)
            }
            if stack.isEmpty { return value }
        }
    }

    /// Reads `"key"` and the colon after it.
    private mutating func parseKey() throws(JSONParseError) -> String {
        guard peek(UInt8(ascii: "\"")) else { throw unexpected() }
        let key = try parseString()
        skipWhitespace()
        guard peek(UInt8(ascii: ":")) else { throw unexpected() }
        index += 1
        return key
    }

    private mutating func parseLiteral(_ word: StaticString, _ value: JSONValue) throws(JSONParseError) -> JSONValue {
        let letters = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        for letter in letters {
            guard peek(letter) else { throw unexpected() }
            index += 1
        }
        return value
    }

    /// Reads a string; the bytes are already valid UTF-8, so unescaped runs are copied as they are.
    private mutating func parseString() throws(JSONParseError) -> String {
        index += 1
        var runStart = index
        // Stays empty (and unallocated) unless the string has an escape; every escape appends at least one byte.
        var decoded: [UInt8] = []
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let run = UnsafeBufferPointer(rebasing: bytes[runStart..<index])
                index += 1
                if decoded.isEmpty { return String(decoding: run, as: UTF8.self) }
                decoded.append(contentsOf: run)
                return String(decoding: decoded, as: UTF8.self)
            } else if byte == UInt8(ascii: "\\") {
                decoded.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                try appendEscape(to: &decoded)
                runStart = index
            } else if byte < 0x20 {
                throw error(.controlCharacterInString, at: index)
            } else {
                index += 1
            }
        }
        throw error(.unexpectedEnd, at: index)
    }

    private mutating func appendEscape(to utf8: inout [UInt8]) throws(JSONParseError) {
        let escapeStart = index
        index += 1
        guard index < bytes.count else { throw error(.unexpectedEnd, at: index) }
        let letter = bytes[index]
        index += 1
        switch letter {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(letter)
        case UInt8(ascii: "b"): utf8.append(0x08)
        case UInt8(ascii: "f"): utf8.append(0x0C)
        case UInt8(ascii: "n"): utf8.append(0x0A)
        case UInt8(ascii: "r"): utf8.append(0x0D)
        case UInt8(ascii: "t"): utf8.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try readHex4(escapeStart: escapeStart)
            // A high surrogate joins the low one escaped right after it. One without its pair (a
            // lone or mismatched surrogate: no Swift string can hold it) stands as U+FFFD, as
            // other text that cannot be carried does: one scalar never refuses the whole file.
            // What follows a lone high surrogate is read as it comes, another escape included.
            if scalar >= 0xD800 && scalar <= 0xDBFF, let low = lowSurrogate(at: index) {
                index += 6
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            }
            utf8.append(contentsOf: (Unicode.Scalar(scalar) ?? Self.replacement).utf8)
        default:
            throw error(.invalidEscape, at: escapeStart)
        }
    }

    /// What a surrogate without its pair becomes.
    private static let replacement: Unicode.Scalar = "\u{FFFD}"

    /// The low surrogate escaped as `\uDC00`…`\uDFFF` at `offset`, or nil for anything else.
    private func lowSurrogate(at offset: Int) -> UInt32? {
        guard offset + 6 <= bytes.count, bytes[offset] == UInt8(ascii: "\\"), bytes[offset + 1] == UInt8(ascii: "u")
        else { return nil }
        var value: UInt32 = 0
        for byte in bytes[(offset + 2)..<(offset + 6)] {
            guard let digit = JSONGrammar.hexValue(byte) else { return nil }
            value = value << 4 | UInt32(digit)
        }
        return (0xDC00...0xDFFF).contains(value) ? value : nil
    }

    private mutating func readHex4(escapeStart: Int) throws(JSONParseError) -> UInt32 {
        var result: UInt32 = 0
        for _ in 0..<4 {
            guard index < bytes.count else { throw error(.unexpectedEnd, at: index) }
            guard let digit = JSONGrammar.hexValue(bytes[index]) else { throw error(.invalidEscape, at: escapeStart) }
            result = result << 4 | UInt32(digit)
            index += 1
        }
        return result
    }

    /// Follows the RFC 8259 number grammar exactly; the failing byte's offset is reported.
    private mutating func parseNumber() throws(JSONParseError) -> Double {
        let start = index
        let negative = bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        guard isDigit(at: index) else { throw error(.invalidNumber, at: index) }
        var integer = 0
        var integerDigits = 0
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if isDigit(at: index) { throw error(.invalidNumber, at: index) }
        } else {
            while isDigit(at: index) {
                // Wrapping is harmless: the value is only used when there are at most 15 digits.
                integer = integer &* 10 &+ Int(bytes[index] &- UInt8(ascii: "0"))
                integerDigits += 1
                index += 1
            }
        }
        var isInteger = true
        if peek(UInt8(ascii: ".")) {
            isInteger = false
            index += 1
            try skipDigits()
        }
        if peek(UInt8(ascii: "e")) || peek(UInt8(ascii: "E")) {
            isInteger = false
            index += 1
            if peek(UInt8(ascii: "+")) || peek(UInt8(ascii: "-")) { index += 1 }
            try skipDigits()
        }
        // Integers below 10^15 are exact in a Double, so the common case can skip text conversion.
        if isInteger && integerDigits <= 15 {
            return negative ? -Double(integer) : Double(integer)
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let number = Double(text[...]), number.isFinite else { throw error(.invalidNumber, at: start) }
        return number
    }

    private mutating func skipDigits() throws(JSONParseError) {
        guard isDigit(at: index) else { throw error(.invalidNumber, at: index) }
        while isDigit(at: index) { index += 1 }
    }

    private func isDigit(at offset: Int) -> Bool {
        offset < bytes.count && bytes[offset] >= UInt8(ascii: "0") && bytes[offset] <= UInt8(ascii: "9")
    }

    /// Whether the next byte is `byte`; false at the end of input.
    private func peek(_ byte: UInt8) -> Bool {
        index < bytes.count && bytes[index] == byte
    }

    /// The error for whatever is at `index`: that byte, or the end of input.
    private func unexpected() -> JSONParseError {
        index < bytes.count ? error(.unexpectedCharacter(bytes[index]), at: index) : error(.unexpectedEnd, at: index)
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    /// Builds an error, deriving line and column from the offset (only LF ends a line).
    private func error(_ kind: JSONParseError.Kind, at offset: Int) -> JSONParseError {
        var line = 1
        var lineStart = 0
        for position in 0..<min(offset, bytes.count) where bytes[position] == 0x0A {
            line += 1
            lineStart = position + 1
        }
        return JSONParseError(kind: kind, offset: offset, line: line, column: offset - lineStart + 1)
    }
}

/// What the parser and the skimmer (`JSONSkim`) both check the same way.
enum JSONGrammar {
    /// The offset of the first byte of the first ill-formed UTF-8 sequence, or nil if the input is well-formed.
    static func firstInvalidUTF8Offset(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        let count = bytes.count
        guard let base = bytes.baseAddress else { return nil }
        var offset = 0
        while offset < count {
            // Mostly-ASCII input: check eight bytes per step.
            if offset + 8 <= count
                && UnsafeRawPointer(base + offset).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 == 0
            {
                offset += 8
                continue
            }
            let lead = bytes[offset]
            if lead < 0x80 {
                offset += 1
                continue
            }
            // The second byte's range is what excludes overlongs, UTF-16 surrogates and values above U+10FFFF.
            var low: UInt8 = 0x80
            var high: UInt8 = 0xBF
            let length: Int
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0: (length, low) = (3, 0xA0)
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: (length, high) = (3, 0x9F)
            case 0xF0: (length, low) = (4, 0x90)
            case 0xF1...0xF3: length = 4
            case 0xF4: (length, high) = (4, 0x8F)
            default: return offset
            }
            guard offset + length <= count, bytes[offset + 1] >= low, bytes[offset + 1] <= high else { return offset }
            for continuation in 2..<length where bytes[offset + continuation] & 0xC0 != 0x80 {
                return offset
            }
            offset += length
        }
        return nil
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
