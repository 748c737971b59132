// The display state file's one line: `foreground` or `away`, optionally ` pid=N`.
// Parsing is pure; what a missing or unreadable file means is decided by the daemon
// (missing is away, unreadable at start-up is foreground: rule 1 first).

/// Whether the day display is in front of her.
public enum DisplayState: String, Sendable, Equatable {
    case foreground
    case away
}

/// One parsed line of the display state file.
public struct DisplayStateLine: Sendable, Equatable {
    public let state: DisplayState
    /// The display's process: when it dies in the foreground, the display is away.
    public let pid: Int32?

    public init(state: DisplayState, pid: Int32? = nil) {
        self.state = state
        self.pid = pid
    }

    /// Parses `foreground`, `away`, `foreground pid=1234`; surrounding whitespace and a final newline are allowed.
    public init?(parsing text: String) {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" })
        guard (1...2).contains(words.count), let state = DisplayState(rawValue: String(words[0])) else { return nil }
        var pid: Int32?
        if words.count == 2 {
            guard words[1].hasPrefix("pid="), let parsed = Int32(words[1].dropFirst(4)), parsed > 0 else { return nil }
            pid = parsed
        }
        self.init(state: state, pid: pid)
    }

    /// The line as `signal` writes it.
    public var line: String {
        self.state.rawValue + (self.pid.map { " pid=\($0)" } ?? "") + "\n"
    }
}
