// What can be wrong with a household file, in the words a carer or tester needs to fix it.
// Two kinds, as rule 9 says: the whole file unusable (keep the last good household), or one
// item or field skipped and named (lay the rest). Neither ever quotes an unknown key's value.

/// One item or field that was skipped or ignored; the rest of the household stands.
public struct HouseholdProblem: Sendable, Equatable, CustomStringConvertible {
    /// The household file's path as given.
    public let file: String
    /// The item's id when it has a usable one.
    public let itemId: String?
    /// Where in the file: `time`, `items[3]`, `settings.chime`, …
    public let field: String?
    /// What is wrong and what happens because of it, in one sentence.
    public let message: String

    public init(file: String, itemId: String?, field: String?, message: String) {
        self.file = file
        self.itemId = itemId
        self.field = field
        self.message = message
    }

    /// One line: `household.json: item 'lunch': field 'time': "25:00" is not a 24-hour HH:MM time; item skipped`.
    public var description: String {
        var parts = [self.file]
        if let itemId { parts.append("item '\(itemId)'") }
        if let field { parts.append("field '\(field)'") }
        parts.append(self.message)
        return parts.joined(separator: ": ")
    }
}

/// Why a household file cannot be used at all: the last good household stays in force.
public struct HouseholdFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What made the file unusable.
    public enum Reason: Sendable, Equatable {
        case unreadable(String)
        case tooLarge(bytes: Int, limit: Int)
        case notJSON(String)
        case notAnObject
        case badVersion
        case badItems(String)
        case unknownTimeZone(String)
        /// A zone under tzdata's `right/` or `posix/` tree, and the plain name to use instead.
        case zoneVariant(String, ZoneVariant, plain: String)
        case noValidItems(count: Int)
    }

    public let file: String
    public let reason: Reason
    /// Item-level problems found on the way (why no item was valid, for instance).
    public let problems: [HouseholdProblem]

    public init(file: String, reason: Reason, problems: [HouseholdProblem] = []) {
        self.file = file
        self.reason = reason
        self.problems = problems
    }

    /// The field the reason is about, for status's `field`.
    public var field: String? {
        switch self.reason {
        case .badVersion: return "version"
        case .badItems, .noValidItems: return "items"
        case .unknownTimeZone, .zoneVariant: return "timeZone"
        default: return nil
        }
    }

    /// The reason alone, one sentence, without the field: `field` names it, and the line that
    /// shows both names it once (`description`, status's `error:` lines).
    public var message: String {
        switch self.reason {
        case .unreadable(let why): return "cannot be read (\(why))"
        case .tooLarge(let bytes, let limit): return "is \(bytes) bytes, over the \(limit)-byte limit"
        case .notJSON(let why): return "is not valid JSON: \(why)"
        case .notAnObject: return "is not a JSON object at the top level"
        case .badVersion: return "must be 1"
        case .badItems(let why): return why
        case .unknownTimeZone(let name): return "unknown time zone \(quoted(name))"
        case .zoneVariant(let name, let variant, let plain):
            return "\(quoted(name)) \(variant.what); use \(quoted(plain))"
        case .noValidItems(let count): return "none of its \(count) items is valid"
        }
    }

    /// The reason after its field, each once: `field 'version': must be 1`, or the reason alone.
    public var fieldAndMessage: String {
        self.field.map { "field '\($0)': \(self.message)" } ?? self.message
    }

    /// One line naming the file, the field and the reason, each once, as `HouseholdProblem` does.
    public var description: String { "\(self.file): \(self.fieldAndMessage)" }
}

/// A value from the file, quoted for an error line: short, control characters escaped.
func quoted(_ text: String, limit: Int = 40) -> String {
    var out = ""
    var count = 0
    for scalar in text.unicodeScalars {
        if count == limit {
            out += "…"
            break
        }
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        default:
            if TerminalText.actsOn(scalar) {
                out += TerminalText.escape(scalar)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        count += 1
    }
    return "\"" + out + "\""
}
