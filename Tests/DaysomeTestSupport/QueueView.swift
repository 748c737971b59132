// What the reliability tests of both backends (storms, crashes, power cuts, bad input) read
// besides the TestWorld's tools: the lay the daemon recorded in its state directory, and the one
// comparison they all make, the live queue against `daysomectl plan`.

import DaysomeCore
import Glibc

private let utc = Zone(name: "UTC", rules: .utc)

/// The instant of RFC 3339 text, in whole seconds.
private func instant(_ text: String) -> Int64? {
    TimeParsing.instant(text, zone: utc)?.seconds
}

/// The lay the daemon recorded in <state-dir>/lay.json, and what it delivered.
public struct LayView: Equatable {
    public let number: Int
    public let from: String
    public let laidUntil: String
    public let counter: Int
    /// The delivered calls it remembers: their instants, and whether the server's id came back.
    public let delivered: [(at: String, hasId: Bool)]

    public static func == (lhs: LayView, rhs: LayView) -> Bool {
        lhs.number == rhs.number && lhs.from == rhs.from && lhs.laidUntil == rhs.laidUntil
    }
}

/// What lay.json holds: the counter, and the current lay if there is one.
public func layFile(_ stateDirectory: String) -> (counter: Int, lay: LayView?) {
    guard let object = (try? JSONParser.parse(readFile(stateDirectory + "/lay.json")))?.objectValue else {
        return (0, nil)
    }
    let counter = object["layCounter"]?.int ?? 0
    let delivered = (object["delivered"]?.arrayValue ?? []).compactMap { $0.objectValue }.map {
        (at: $0["at"]?.stringValue ?? "", hasId: $0["notificationId"]?.int != nil)
    }
    guard let lay = object["lay"]?.objectValue, let number = lay["number"]?.int,
        let from = lay["from"]?.stringValue, let until = lay["laidUntil"]?.stringValue
    else { return (counter, nil) }
    return (counter, LayView(number: number, from: from, laidUntil: until, counter: counter, delivered: delivered))
}

extension TestWorld {
    /// The lay in lay.json, if any.
    public var recordedLay: LayView? { layFile(self.stateDirectory).lay }

    /// The plan of this session's household from `from` through `until`, cached by those two.
    public func planned(
        from: String, until: String, cache: inout [String: [PlannedStart]]
    ) async throws -> [PlannedStart] {
        let key = from + "/" + until
        if let cached = cache[key] { return cached }
        let span = (instant(until) ?? 0) - (instant(from) ?? 0)
        let days = max(1, min(366, Int((span + 86_399) / 86_400)))
        let result = try await self.ctlJSON([
            "plan", "--household", self.household, "--from", from, "--days", String(days), "--json",
        ])
        let starts = (result["starts"]?.arrayValue ?? []).map(PlannedStart.init).filter {
            (instant($0.at) ?? 0) <= (instant(until) ?? 0)
        }
        cache[key] = starts
        return starts
    }

    /// One look: does the live queue hold exactly the plan of the lay recorded in lay.json, from
    /// its `from` through its `laidUntil`, less the starts already due? Nil when it does, else
    /// what differs. A start falling due during the look is looked at again; one still falling
    /// due at the last look may be pending or gone, and is not counted either way.
    public func queueMismatch(cache: inout [String: [PlannedStart]]) async throws -> String? {
        var attempt = 0
        while true {
            attempt += 1
            let before = Int64(wallSeconds().rounded(.down)) - 1
            let queue = try await self.pending()
            let after = Int64(wallSeconds().rounded(.up))
            guard let lay = self.recordedLay else { return "lay.json records no lay (queue: lay \(queue.lay ?? -1))" }
            let planned = try await self.planned(from: lay.from, until: lay.laidUntil, cache: &cache)
            if planned.contains(where: { (before...after).contains(instant($0.at) ?? 0) }) && attempt < 4 {
                await pause(0.3)
                continue
            }
            let expected = planned.filter { (instant($0.at) ?? 0) > before }
            var problems: [String] = []
            if queue.display != "away" { problems.append("display \(queue.display ?? "-")") }
            if queue.lay != lay.number { problems.append("queue lay \(queue.lay ?? -1), lay.json \(lay.number)") }
            let foreign = queue.starts.filter { $0.lay != lay.number }
            if !foreign.isEmpty { problems.append("starts of another lay: \(foreign.prefix(3))") }
            let instants = queue.starts.map(\.at)
            if Set(instants).count != instants.count {
                let duplicates = Dictionary(grouping: instants, by: { $0 }).filter { $0.value.count > 1 }.keys.sorted()
                problems.append("duplicates \(duplicates.prefix(3))")
            }
            let falling = Set(
                planned.map(\.at).filter { (before...after).contains(instant($0) ?? 0) })
            let missing = Set(expected.map(\.at)).subtracting(instants).subtracting(falling).sorted()
            let extra = Set(instants).subtracting(expected.map(\.at)).subtracting(falling).sorted()
            if !missing.isEmpty { problems.append("gaps (planned, not pending) \(missing.prefix(3))") }
            if !extra.isEmpty { problems.append("pending, not planned \(extra.prefix(3))") }
            let compared = queue.starts.filter { !falling.contains($0.at) }
            let planAhead = expected.filter { !falling.contains($0.at) }
            if problems.isEmpty
                && (compared.map(\.at) != planAhead.map(\.at) || compared.map(\.itemIds) != planAhead.map(\.itemIds)
                    || compared.map(\.title) != planAhead.map(\.title))
            {
                problems.append("the same instants, but not the plan's order, items or titles")
            }
            guard !problems.isEmpty else { return nil }
            return "lay \(lay.number) from \(lay.from) (\(expected.count) planned ahead, \(instants.count) pending): "
                + problems.joined(separator: "; ")
        }
    }

    /// One look: nothing pending (display foreground, no lay) and nothing shown. Nil when so.
    public func foregroundMismatch() async throws -> String? {
        let queue = try await self.pending()
        let shown = try await self.displayedCount()
        var problems: [String] = []
        if queue.display != "foreground" { problems.append("display \(queue.display ?? "-")") }
        if !queue.starts.isEmpty { problems.append("\(queue.starts.count) pending: \(queue.starts.prefix(2))") }
        if queue.lay != nil { problems.append("lay \(queue.lay!) still current") }
        if shown != 0 { problems.append("dunst shows \(shown)") }
        return problems.isEmpty ? nil : problems.joined(separator: "; ")
    }

    /// Polls until the queue holds exactly the plan of the recorded lay; returns how long it took.
    @discardableResult
    public func waitUntilQueueHoldsThePlan(within timeout: Double) async throws -> Double {
        let start = monotonicSeconds()
        var cache: [String: [PlannedStart]] = [:]
        var why = ""
        while true {
            if let mismatch = try await self.queueMismatch(cache: &cache) {
                why = mismatch
            } else {
                return monotonicSeconds() - start
            }
            if monotonicSeconds() - start > timeout {
                throw HarnessError(
                    "after \(timeout) s the queue is not the plan: \(why); daysomed said: "
                        + String(self.daemonStderr.suffix(1_500)))
            }
            await pause(0.05)
        }
    }

    /// Polls until nothing is pending and nothing shown; returns how long it took.
    @discardableResult
    public func waitUntilNothing(within timeout: Double) async throws -> Double {
        let start = monotonicSeconds()
        while true {
            guard let why = try await self.foregroundMismatch() else { return monotonicSeconds() - start }
            if monotonicSeconds() - start > timeout {
                throw HarnessError(
                    "after \(timeout) s something is left: \(why); daysomed said: "
                        + String(self.daemonStderr.suffix(1_500))
                )
            }
            await pause(0.05)
        }
    }
}

/// The laid and cleared lay numbers of a history, and whether they tell a consistent story:
/// numbers only grow, each laid once, each cleared at most once and only after it was laid.
public func layStory(_ history: [HistoryEvent]) -> (laid: [Int], cleared: [Int], problems: [String]) {
    let laid = history.filter { $0.event == "laid" }.compactMap(\.lay)
    let cleared = history.filter { $0.event == "cleared" }.compactMap(\.lay)
    var problems: [String] = []
    if !zip(laid, laid.dropFirst()).allSatisfy({ $0 < $1 }) {
        problems.append("laid numbers do not only grow: \(laid)")
    }
    if Set(cleared).count != cleared.count { problems.append("a lay cleared twice: \(cleared)") }
    let unlaid = Set(cleared).subtracting(laid)
    if !unlaid.isEmpty { problems.append("cleared but never laid: \(unlaid.sorted())") }
    return (laid, cleared, problems)
}
