// RFC 8259 checked without building anything: the grammar `JSONParser` reads (valid UTF-8, no
// raw control in a string, escapes and numbers as the RFC writes them, a number within a
// Double's range), walked once, with each value shown to a visitor as it starts and each
// container as it closes. Reading the wheel's queue back this way
// instead of as a tree of values was most of what `daysomectl pending --json` spent beyond
// starting (issue 44: no slower than `atq`).

/// A strict JSON check that builds no values.
public enum JSONSkim {
    /// What the visitor is shown.
    public enum Event {
        /// A value starts at byte `at`, inside `depth` open containers (the whole text is at depth
        /// 0). `key` is the raw bytes between its member name's quotes (escapes left as written),
        /// or nil for an element of an array and for the whole text.
        case value(depth: Int, key: Range<Int>?, at: Int)
        /// The container that started at `depth` has closed.
        case close(depth: Int)
    }

    /// Whether `bytes` are one JSON text by RFC 8259 (a leading BOM skipped, containers nested at
    /// most `maxDepth` levels, at most 63), showing `visit` each value and each close in order.
    /// `visit` returning false stops the walk, and the answer is false.
    public static func isWellFormed(
        _ bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int = 64, visit: (Event) -> Bool = { _ in true }
    ) -> Bool {
        guard JSONGrammar.firstInvalidUTF8Offset(bytes) == nil else { return false }
        var skimmer = JSONSkimmer(bytes: bytes, maxDepth: min(max(0, maxDepth), 63))
        return skimmer.walk(visit)
    }
}

private struct JSONSkimmer {
    let bytes: UnsafeBufferPointer<UInt8>
    let maxDepth: Int
    var index = 0

    mutating func walk(_ visit: (JSONSkim.Event) -> Bool) -> Bool {
        if self.bytes.count >= 3 && self.bytes[0] == 0xEF && self.bytes[1] == 0xBB && self.bytes[2] == 0xBF {
            self.index = 3
        }
        // Bit d is set when the container open at depth d is an object.
        var objects: UInt64 = 0
        var depth = 0
        var key: Range<Int>? = nil
        while true {
            self.skipWhitespace()
            guard self.index < self.bytes.count, visit(.value(depth: depth, key: key, at: self.index)) else {
                return false
            }
            let byte = self.bytes[self.index]
            var opened = false
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard depth < self.maxDepth else { return false }
                let isObject = byte == UInt8(ascii: "{")
                self.index += 1
                self.skipWhitespace()
                if self.peek(isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    self.index += 1
                    guard visit(.close(depth: depth)) else { return false }
                } else {
                    objects = isObject ? objects | (1 << depth) : objects & ~(1 << depth)
                    depth += 1
                    opened = true
                    if isObject {
                        guard let name = self.key() else { return false }
                        key = name
                    } else {
                        key = nil
                    }
                }
            case UInt8(ascii: "\""): guard self.string() != nil else { return false }
            case UInt8(ascii: "t"): guard self.literal("true") else { return false }
            case UInt8(ascii: "f"): guard self.literal("false") else { return false }
            case UInt8(ascii: "n"): guard self.literal("null") else { return false }
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): guard self.number() else { return false }
            default: return false
            }
            if opened { continue }
            // After a value: the next member or element of its container, or the container's close.
            var next = false
            while depth > 0 && !next {
                let isObject = objects & (1 << (depth - 1)) != 0
                self.skipWhitespace()
                if self.peek(UInt8(ascii: ",")) {
                    self.index += 1
                    self.skipWhitespace()
                    if isObject {
                        guard let name = self.key() else { return false }
                        key = name
                    } else {
                        key = nil
                    }
                    next = true
                } else {
                    guard self.peek(isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) else { return false }
                    self.index += 1
                    depth -= 1
                    guard visit(.close(depth: depth)) else { return false }
                }
            }
            if !next {
                self.skipWhitespace()
                return self.index == self.bytes.count
            }
        }
    }

    /// A member's name and its colon: the name's raw bytes.
    private mutating func key() -> Range<Int>? {
        guard self.peek(UInt8(ascii: "\"")), let name = self.string() else { return nil }
        self.skipWhitespace()
        guard self.peek(UInt8(ascii: ":")) else { return nil }
        self.index += 1
        return name
    }

    /// A string: the range of its raw bytes between the quotes.
    private mutating func string() -> Range<Int>? {
        self.index += 1
        let start = self.index
        while self.index < self.bytes.count {
            let byte = self.bytes[self.index]
            if byte == UInt8(ascii: "\"") {
                self.index += 1
                return start..<(self.index - 1)
            } else if byte == UInt8(ascii: "\\") {
                guard self.index + 1 < self.bytes.count else { return nil }
                switch self.bytes[self.index + 1] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                    UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    self.index += 2
                case UInt8(ascii: "u"):
                    guard self.index + 6 <= self.bytes.count else { return nil }
                    for offset in 2..<6 where JSONGrammar.hexValue(self.bytes[self.index + offset]) == nil {
                        return nil
                    }
                    self.index += 6
                default: return nil
                }
            } else if byte < 0x20 {
                return nil
            } else {
                self.index += 1
            }
        }
        return nil
    }

    private mutating func literal(_ word: StaticString) -> Bool {
        let letters = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        for letter in letters {
            guard self.peek(letter) else { return false }
            self.index += 1
        }
        return true
    }

    /// RFC 8259's number: `-`, then `0` or a digit run not starting with 0, an optional fraction,
    /// an optional exponent; and, as the parser reads it, within a Double's range.
    private mutating func number() -> Bool {
        let start = self.index
        if self.peek(UInt8(ascii: "-")) { self.index += 1 }
        if self.peek(UInt8(ascii: "0")) {
            self.index += 1
        } else if !self.digits() {
            return false
        }
        // Only an exponent or a few hundred digits can leave a Double's range: only those are converted.
        var mayOverflow = self.index - start > 300
        if self.peek(UInt8(ascii: ".")) {
            self.index += 1
            guard self.digits() else { return false }
        }
        if self.peek(UInt8(ascii: "e")) || self.peek(UInt8(ascii: "E")) {
            mayOverflow = true
            self.index += 1
            if self.peek(UInt8(ascii: "+")) || self.peek(UInt8(ascii: "-")) { self.index += 1 }
            guard self.digits() else { return false }
        }
        guard mayOverflow else { return true }
        let text = String(decoding: UnsafeBufferPointer(rebasing: self.bytes[start..<self.index]), as: UTF8.self)
        return Double(text[...])?.isFinite ?? false
    }

    /// One digit or more; false when there is none.
    private mutating func digits() -> Bool {
        let start = self.index
        while self.index < self.bytes.count && self.bytes[self.index] >= UInt8(ascii: "0")
            && self.bytes[self.index] <= UInt8(ascii: "9")
        {
            self.index += 1
        }
        return self.index > start
    }

    private func peek(_ byte: UInt8) -> Bool {
        self.index < self.bytes.count && self.bytes[self.index] == byte
    }

    private mutating func skipWhitespace() {
        while self.index < self.bytes.count {
            switch self.bytes[self.index] {
            case 0x20, 0x09, 0x0A, 0x0D: self.index += 1
            default: return
            }
        }
    }
}
