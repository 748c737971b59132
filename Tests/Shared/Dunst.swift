// What dunst shows, read through dunstctl with dunst's own environment: the tests see the
// notifications the way she would, on the screen or gone into dunst's history.

import DaysomeCore

/// A test world with dunst running on its bus.
protocol ShowsNotifications: RunsTools {
    /// dunst's environment (and dunstctl's), once it runs.
    var serverEnvironment: [String: String]? { get }
    /// Added to a failing dunstctl's error: what dunst (and whatever else matters) logged.
    var serverDiagnosis: String { get }
}

extension ShowsNotifications {
    var serverDiagnosis: String { "dunst.log: " + String(self.directory.read("dunst.log").suffix(1_000)) }

    /// Runs dunstctl with dunst's environment.
    func dunstctl(_ arguments: [String]) async throws -> ToolResult {
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
    func displayedCount() async throws -> Int {
        try await self.count("displayed")
    }

    /// `dunstctl count history`: how many notifications dunst has closed.
    func historyCount() async throws -> Int {
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
    func closedNotifications() async throws -> [JSONObject] {
        let result = try await self.dunstctl(["history"])
        guard result.status == 0, let json = try? JSONParser.parse(result.stdout),
            let lists = json.objectValue?["data"]?.arrayValue
        else {
            throw HarnessError("dunstctl history printed no history: \(result)")
        }
        return lists.flatMap { $0.arrayValue ?? [] }.compactMap(\.objectValue)
    }

    /// The summaries of `closedNotifications()`.
    func closedSummaries() async throws -> [String] {
        try await self.closedNotifications().compactMap { $0["summary"]?.objectValue?["data"]?.stringValue }
    }

    /// Watches dunst from half a second before `minute` (polling every 50 ms) and returns how
    /// many seconds after the minute something was first displayed, or nil if nothing was by
    /// `within` seconds after it.
    func firstShown(after minute: Int64, within: Double = 10) async throws -> Double? {
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
