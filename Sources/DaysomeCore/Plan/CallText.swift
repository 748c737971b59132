// The text of a call as it goes on the bus: the summary and body the Notify carries. The family
// may write any text (rule 4: never refused, never censored), but the bus cannot carry all of it:
// sd-bus refuses a string holding a Unicode noncharacter (U+FDD0..U+FDEF, any plane's xFFFE and
// xFFFF) and a C string ends at U+0000. Swift strings hold no surrogates. The plan keeps what the
// family wrote; only the Notify gets the stand-in.

extension Content {
    /// What stands where the bus cannot carry the family's scalar: the replacement character.
    public static let unsendableStandIn: Unicode.Scalar = "\u{FFFD}"

    /// Whether sd-bus can carry `scalar` in a string: not U+0000, not a noncharacter.
    public static func busCarries(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        if value == 0 { return false }
        if (0xFDD0...0xFDEF).contains(value) { return false }
        return value & 0xFFFE != 0xFFFE
    }

    /// `text` with every scalar the bus cannot carry replaced by U+FFFD, so the rest of the
    /// family's words arrive whole: `Lun\0ch` goes as `Lun�ch`, never refused, never cut to `Lun`.
    public static func busSendable(_ text: String) -> String {
        guard !text.unicodeScalars.allSatisfy(Self.busCarries) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            out.append(Self.busCarries(scalar) ? scalar : Self.unsendableStandIn)
        }
        return String(out)
    }

    /// The Notify's summary and body for a start: the title as the summary (plain text on every
    /// server); the heading, a newline and the body as the body, escaped where the server reads
    /// body markup. Both sendable on the bus.
    public static func notification(_ start: Start, markup: Bool) -> (summary: String, body: String) {
        let body = start.heading + "\n" + start.body
        return (Self.busSendable(start.title), Self.busSendable(markup ? Self.markupEscaped(body) : body))
    }
}
