// `status`'s `displayFileProblem`: the display state file holds a line that is neither
// `foreground` nor `away` (or cannot be read at all), and which state the daemon keeps meanwhile.
// The journal said so alone before; a display maker checking `status` after changing a writer
// needs to see it there (docs/display-makers.md). The line is capped here, escaped where shown.

/// An unusable display state file, as `status` shows it until a good line is written.
public struct DisplayFileProblem: Sendable, Equatable {
    /// The line as read, without its newline and capped (`shownLine`); nil when the file could not
    /// be read at all (a directory, a symlink, too long).
    public var line: String?
    /// Why it cannot be used, in one line.
    public var message: String
    /// The display state kept meanwhile: foreground at start-up (rule 1 first), else the previous.
    public var keeping: DisplayState

    public init(line: String?, message: String, keeping: DisplayState) {
        self.line = line
        self.message = message
        self.keeping = keeping
    }

    /// How many characters of an unusable line `status` shows: enough to recognise a writer's
    /// mistake, never a 4 KiB blob in every status.
    public static let shownCharacters = 40

    /// The start of the file's text as `status` shows it: invalid UTF-8 replaced, one trailing
    /// newline dropped, capped at `shownCharacters` with `…` when longer.
    public static func shownLine(_ bytes: [UInt8]) -> String {
        var text = String(decoding: bytes, as: UTF8.self)
        if text.hasSuffix("\n") { text.removeLast() }
        guard text.count > self.shownCharacters else { return text }
        return String(text.prefix(self.shownCharacters)) + "…"
    }

    var json: JSONValue {
        .object(
            JSONObject([
                ("line", .stringOrNull(self.line)), ("message", .string(self.message)),
                ("keeping", .string(self.keeping.rawValue)),
            ]))
    }

    init(_ reader: SnapshotReader) throws(SnapshotProblem) {
        self.line = try reader.optionalString("line")
        self.message = try reader.string("message")
        self.keeping = try reader.word("keeping", as: DisplayState.self)
    }
}
