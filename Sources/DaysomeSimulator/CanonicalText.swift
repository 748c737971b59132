// A value's whole state as text that is the same for equal values in every process: what the
// exploration keys the worlds it has seen by. `String(describing:)` prints a dictionary or a set
// in its storage's order, which follows the process's random hash seed (and the table's size and
// history), so equal worlds printed differently and the exploration's counts moved from run to
// run. Here every stored field is written through its mirror, custom descriptions aside (they may
// leave fields out), and the entries of each dictionary and set are written sorted.

enum CanonicalText {
    /// `value`, every field of it, dictionaries' and sets' entries in sorted order.
    static func of(_ value: Any) -> String {
        var text = ""
        self.write(value, to: &text)
        return text
    }

    /// `value`'s fields but those named in `leaving` (fields that are the same in every value
    /// compared, such as the constants a world is made with), each written as `of` writes it.
    static func of(_ value: Any, leaving: Set<String>) -> String {
        var text = "("
        for child in Mirror(reflecting: value).children where !leaving.contains(child.label ?? "") {
            text += child.label ?? "_"
            text += ":"
            self.write(child.value, to: &text)
            text += ","
        }
        return text + ")"
    }

    private static func write(_ value: Any, to text: inout String) {
        // The commonest leaves first, without a mirror: a world holds thousands of them.
        switch value {
        case let number as Int64: text += String(number)
        case let number as Int: text += String(number)
        case let number as UInt64: text += String(number)
        case let number as UInt32: text += String(number)
        case let flag as Bool: text += flag ? "true" : "false"
        case let string as String: text += String(reflecting: string)
        default: self.write(mirrorOf: value, to: &text)
        }
    }

    private static func write(mirrorOf value: Any, to text: inout String) {
        let mirror = Mirror(reflecting: value)
        switch mirror.displayStyle {
        case .dictionary?, .set?:
            var entries = mirror.children.map { Self.of($0.value) }
            entries.sort()
            text += "{"
            for entry in entries {
                text += entry
                text += ";"
            }
            text += "}"
        case .optional?:
            if let wrapped = mirror.children.first { self.write(wrapped.value, to: &text) } else { text += "nil" }
        default:
            // A leaf: a number, a string (quoted, escaped), an enum case without a payload.
            guard !mirror.children.isEmpty else {
                text += String(reflecting: value)
                return
            }
            // A struct's fields, a tuple's, an array's elements, an enum case's payload under
            // its case's name: in their declared order, which is the same in every process.
            text += "("
            for child in mirror.children {
                text += child.label ?? "_"
                text += ":"
                self.write(child.value, to: &text)
                text += ","
            }
            text += ")"
        }
    }
}
