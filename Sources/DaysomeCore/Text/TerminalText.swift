// What a terminal acts on instead of showing: the C0 controls (ESC starts a sequence, BEL rings),
// DEL, the C1 controls (U+0080–U+009F: U+009B is a CSI and U+0085 a newline to a terminal that
// reads them), the line and paragraph separators U+2028 and U+2029, and the bidirectional
// embeddings, overrides and isolates, which reorder what follows them. A label, a display line or
// an error holding one must not move the cursor, clear the screen or turn the table around: every
// text the tools print shows each as `\u{…}`, its code in hex.

/// The scalars a terminal acts on, and their escape.
public enum TerminalText {
    /// Whether a terminal acts on `scalar` as a control: C0, DEL, C1, U+2028 or U+2029. JSON's
    /// writer escapes each of these too, so a JSON text never holds one raw.
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        return value < 0x20 || (0x7F...0x9F).contains(value) || value == 0x2028 || value == 0x2029
    }

    /// Whether `scalar` reorders the text after it: a bidirectional embedding, override or isolate.
    public static func isBidiControl(_ scalar: Unicode.Scalar) -> Bool {
        (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
    }

    /// Whether a terminal shown `scalar` would act on it rather than show it.
    public static func actsOn(_ scalar: Unicode.Scalar) -> Bool {
        self.isControl(scalar) || self.isBidiControl(scalar)
    }

    /// How `scalar` is shown: `\u{1b}`.
    public static func escape(_ scalar: Unicode.Scalar) -> String {
        "\\u{\(String(scalar.value, radix: 16))}"
    }

    /// `text` with every control but the line breaks and tabs it is laid out with escaped: what
    /// a tool's whole output goes through last, so a text no caller escaped still reaches the
    /// terminal inert. Bidirectional controls are left to the callers, which know where they
    /// stand (inside a JSON string, an escape would not be JSON).
    public static func inert(_ text: String) -> String {
        // A byte scan clears almost all output without decoding a scalar.
        let clean = text.utf8.withContiguousStorageIfAvailable { self.holdsNoControl($0) } ?? false
        guard !clean, text.unicodeScalars.contains(where: { self.isControl($0) && $0 != "\n" && $0 != "\t" }) else {
            return text
        }
        var out = ""
        for scalar in text.unicodeScalars {
            if self.isControl(scalar) && scalar != "\n" && scalar != "\t" {
                out += self.escape(scalar)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// Whether the UTF-8 `bytes` hold no control but line breaks and tabs, read as bytes: C0 and
    /// DEL are single bytes, C1 is C2 80 to C2 9F, U+2028 and U+2029 are E2 80 A8 and E2 80 A9.
    /// Non-ASCII text (her family's words) is cleared here too, not decoded.
    static func holdsNoControl(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte >= 0x20 && byte < 0x7F {
                index += 1
                continue
            }
            switch byte {
            case 0x0A, 0x09: break
            case 0xC2 where index + 1 < bytes.count && bytes[index + 1] < 0xA0: return false
            case 0xE2
            where index + 2 < bytes.count && bytes[index + 1] == 0x80 && (0xA8...0xA9).contains(bytes[index + 2]):
                return false
            case 0x80...: break
            default: return false
            }
            index += 1
        }
        return true
    }
}
