// What dunst shows, read through dunstctl with dunst's own environment: the tests see the
// notifications the way she would, on the screen or gone into dunst's history.

import DaysomeCore

/// A test world with dunst running on its bus.
public protocol ShowsNotifications: RunsTools {
    /// dunst's environment (and dunstctl's), once it runs.
    var serverEnvironment: [String: String]? { get }
    /// Added to a failing dunstctl's error: what dunst (and whatever else matters) logged.
    var serverDiagnosis: String { get }
}

extension ShowsNotifications {
    public var serverDiagnosis: String { "dunst.log: " + String(self.directory.read("dunst.log").suffix(1_000)) }

    /// Runs dunstctl with dunst's environment.
    public func dunstctl(_ arguments: [String]) async throws -> ToolResult {
        guard let environment = self.serverEnvironment else {
            throw HarnessError("this world runs no notification server")
        }
        do {
            return try await self.run(
                try findExecutable("dunstctl", package: "dunst"), arguments, environment: environment)
        } catch {
            throw HarnessError("\(error); \(self.serverDiagnosis)")
        }
    }

    /// `dunstctl count displayed`: how many notifications are on the screen now.
    public func displayedCount() async throws -> Int {
        try await self.count("displayed")
    }

    /// `dunstctl count history`: how many notifications dunst has closed.
    public func historyCount() async throws -> Int {
        try await self.count("history")
    }

    private func count(_ which: String) async throws -> Int {
        let result = try await self.dunstctl(["count", which])
        guard result.status == 0, let count = Int(result.stdout.filter { !$0.isWhitespace }) else {
            throw HarnessError("\(result); \(self.serverDiagnosis)")
        }
        return count
    }

    /// `dunstctl history`: the notifications dunst has closed (by timeout, by her, or by the
    /// daemon), newest first, as dunst describes them.
    public func closedNotifications() async throws -> [JSONObject] {
        let result = try await self.dunstctl(["history"])
        guard result.status == 0, let json = try? JSONParser.parse(result.stdout),
            let lists = json.objectValue?["data"]?.arrayValue
        else {
            throw HarnessError("dunstctl history printed no history: \(result)")
        }
        return lists.flatMap { $0.arrayValue ?? [] }.compactMap(\.objectValue)
    }

    /// The summaries of `closedNotifications()`.
    public func closedSummaries() async throws -> [String] {
        try await self.closedNotifications().compactMap { $0["summary"]?.objectValue?["data"]?.stringValue }
    }

    /// Watches dunst from half a second before `minute` (polling every 50 ms) and returns how
    /// many seconds after the minute something was first displayed, or nil if nothing was by
    /// `within` seconds after it.
    public func firstShown(after minute: Int64, within: Double = 10) async throws -> Double? {
        await pause(untilWall: Double(minute) - 0.5)
        while wallSeconds() < Double(minute) + within {
            let count = try await self.displayedCount()
            let now = wallSeconds()
            if count > 0 { return now - Double(minute) }
            await pause(0.05)
        }
        return nil
    }
}

/// One notification of `dunstctl history`. `message` is the Pango markup dunst rendered
/// (its `format` applied to the summary, escaped, and the body as sent).
public struct ShownNotification: CustomStringConvertible {
    public let appName: String
    public let summary: String
    public let body: String
    public let message: String

    public init(_ object: JSONObject) {
        func field(_ name: String) -> String { object[name]?.objectValue?["data"]?.stringValue ?? "" }
        self.appName = field("appname")
        self.summary = field("summary")
        self.body = field("body")
        self.message = field("message")
    }

    /// What the user reads: the text Pango renders from `message`, or nil when `message` is not
    /// well-formed markup (Pango refuses it, and dunst shows something else than was sent).
    public var visibleText: String? { pangoVisibleText(self.message) }

    public var description: String { "[\(self.appName)] \(self.summary) | \(self.body.debugDescription)" }
}

/// The text Pango renders from `markup`: tags removed, entities decoded; nil when a `<` does not
/// open a tag or an `&` does not open an entity (Pango then refuses the markup).
public func pangoVisibleText(_ markup: String) -> String? {
    var visible = ""
    var rest = Substring(markup)
    while let character = rest.first {
        switch character {
        case "<":
            guard let close = rest.firstIndex(of: ">") else { return nil }
            var tag = rest[rest.index(after: rest.startIndex)..<close]
            if tag.first == "/" { tag = tag.dropFirst() }
            let name = tag.prefix { $0.isLetter }
            guard !name.isEmpty, name.count == tag.count || tag[name.endIndex] == " ", !tag.contains("<") else {
                return nil
            }
            rest = rest[rest.index(after: close)...]
        case "&":
            guard let semicolon = rest.prefix(12).firstIndex(of: ";") else { return nil }
            let entity = rest[rest.index(after: rest.startIndex)..<semicolon]
            let named: [Substring: String] = ["amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'"]
            if let text = named[entity] {
                visible += text
            } else if entity.hasPrefix("#"), let code = UInt32(entity.dropFirst(), radix: 10),
                let scalar = Unicode.Scalar(code)
            {
                visible.unicodeScalars.append(scalar)
            } else {
                return nil
            }
            rest = rest[rest.index(after: semicolon)...]
        default:
            visible.append(character)
            rest = rest.dropFirst()
        }
    }
    return visible
}
