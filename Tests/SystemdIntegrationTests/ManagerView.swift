// ManagerView: what the user manager itself holds, read over its own D-Bus API with busctl
// (ListUnitsByPatterns, then each timer's TimersCalendar, AccuracyUSec, RemainAfterElapse and
// Persistent), never through the project's code; the lay the daemon recorded (lay.json); and
// the check that the two agree with `daysomectl plan`.

import DaysomeCore
import DaysomeTestSupport
import Glibc

/// One `daysome-` timer as the manager reports it.
struct ManagerTimer: CustomStringConvertible {
    let name: String
    let activeState: String
    /// Each OnCalendar entry as the manager normalised it.
    let specs: [String]
    /// Every instant the entries name, as RFC 3339 (a spec this view cannot read stands as itself).
    let instants: [String]
    /// Each entry's next elapse in CLOCK_REALTIME microseconds (0 or max once it has passed).
    let nextElapses: [Double]
    let accuracyUSec: Double?
    let remainAfterElapse: Bool?
    let persistent: Bool?

    /// `daysome-lay12-3.timer` → 12.
    var lay: Int? {
        guard self.name.hasPrefix("daysome-lay") else { return nil }
        return Int(self.name.dropFirst("daysome-lay".count).prefix { $0.isNumber })
    }

    var description: String {
        "\(self.name) [\(self.activeState)] \(self.specs.count) entries, \(self.instants.count) instants"
    }
}

/// The instants of a UTC calendar expression with lists and ranges in each component
/// (`2026-12-01..06,08 00..23:*:00 UTC`), as RFC 3339; the spec itself when it is not of that
/// form. Written here on its own, not with the daemon's CalendarSpec, so that the view checks it.
func instantsOfSpec(_ spec: String) -> [String] {
    let parts = spec.split(separator: " ")
    guard parts.count == 3, parts[2] == "UTC" else { return [spec] }
    let date = parts[0].split(separator: "-").map(String.init)
    let time = parts[1].split(separator: ":").map(String.init)
    func values(_ text: String, _ all: ClosedRange<Int>) -> [Int]? {
        if text == "*" { return Array(all) }
        var out: [Int] = []
        for item in text.split(separator: ",") {
            let ends = item.split(separator: "..").compactMap { Int($0) }
            guard ends.count == (item.contains("..") ? 2 : 1) else { return nil }
            out += Array(ends[0]...ends[ends.count - 1])
        }
        return out
    }
    guard date.count == 3, time.count == 3, let years = values(date[0], 1970...2199),
        let months = values(date[1], 1...12), let days = values(date[2], 1...31), let hours = values(time[0], 0...23),
        let minutes = values(time[1], 0...59), let secs = values(time[2], 0...59)
    else { return [spec] }
    func pad(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
    var out: [String] = []
    for year in years {
        for month in months {
            for day in days {
                // A day the month lacks (November 31st) never elapses.
                guard seconds(of: "\(year)-\(pad(month))-\(pad(day))T00:00:00Z") != nil else { continue }
                for hour in hours {
                    for minute in minutes {
                        for second in secs {
                            out.append("\(year)-\(pad(month))-\(pad(day))T\(pad(hour)):\(pad(minute)):\(pad(second))Z")
                        }
                    }
                }
            }
        }
    }
    return out
}

private let utcZone = Zone(name: "UTC", rules: .utc)

/// Whole seconds of an RFC 3339 instant.
func seconds(of text: String) -> Int64? {
    TimeParsing.instant(text, zone: utcZone)?.seconds
}

/// Whether `next` (microseconds), an entry's next elapse read between the wall times `before`
/// and `after`, is the instant of `spec` the manager must elapse next: one the spec names, none
/// skipped (an instant up to 2 s before the read may still be due: the timer's accuracy), and
/// not past the first one after the read.
func isTheNextElapse(_ next: Double, of spec: String, readBetween before: Double, and after: Double) -> Bool {
    let instants = instantsOfSpec(spec).compactMap { seconds(of: $0) }.map(Double.init)
    guard let bound = instants.first(where: { $0 > after + 1 }) else { return true }
    let at = next / 1_000_000
    return instants.contains(at) && at >= before - 2 && at <= bound
}

/// The lay the daemon recorded in <state-dir>/lay.json.
struct LayRecordView {
    let number: Int
    let from: String
}

extension TestWorld {
    /// Every unit matching `pattern` (any state) the manager has loaded.
    func daysomeUnits(_ pattern: String = "daysome-*") async throws -> [(name: String, activeState: String)] {
        let result = try await self.busctl([
            "call", "org.freedesktop.systemd1", "/org/freedesktop/systemd1", "org.freedesktop.systemd1.Manager",
            "ListUnitsByPatterns", "asas", "0", "1", pattern,
        ])
        guard result.status == 0, let json = try? JSONParser.parse(result.stdout),
            let rows = json.objectValue?["data"]?.arrayValue?.first?.arrayValue
        else {
            throw HarnessError("ListUnitsByPatterns failed: \(result)")
        }
        return rows.compactMap { row in
            guard let fields = row.arrayValue, fields.count >= 7, let name = fields[0].stringValue,
                let active = fields[3].stringValue
            else { return nil }
            return (name, active)
        }
    }

    /// Every `daysome-*.timer` the manager holds, with its calendar and settings; nil when a
    /// unit vanished between the listing and the reads (a stop in progress).
    func daysomeTimers() async throws -> [ManagerTimer]? {
        let listed = try await self.busctl([
            "call", "org.freedesktop.systemd1", "/org/freedesktop/systemd1", "org.freedesktop.systemd1.Manager",
            "ListUnitsByPatterns", "asas", "0", "1", "daysome-*.timer",
        ])
        guard listed.status == 0, let json = try? JSONParser.parse(listed.stdout),
            let rows = json.objectValue?["data"]?.arrayValue?.first?.arrayValue
        else {
            throw HarnessError("ListUnitsByPatterns failed: \(listed)")
        }
        var timers: [ManagerTimer] = []
        for row in rows {
            guard let fields = row.arrayValue, fields.count >= 7, let name = fields[0].stringValue,
                let active = fields[3].stringValue, let path = fields[6].stringValue
            else {
                throw HarnessError("ListUnitsByPatterns row not understood: \(row)")
            }
            let properties = try await self.busctl([
                "get-property", "org.freedesktop.systemd1", path, "org.freedesktop.systemd1.Timer", "TimersCalendar",
                "AccuracyUSec", "RemainAfterElapse", "Persistent",
            ])
            guard properties.status == 0 else { return nil }
            let values = properties.stdout.split(separator: "\n").map {
                (try? JSONParser.parse(String($0)))?.objectValue?["data"]
            }
            guard values.count == 4, let entries = values[0]?.arrayValue else {
                throw HarnessError("get-property printed \(properties.stdout)")
            }
            let parsed = entries.compactMap(\.arrayValue)
            timers.append(
                ManagerTimer(
                    name: name, activeState: active,
                    specs: parsed.map { $0.count > 1 ? $0[1].stringValue ?? "" : "" },
                    instants: parsed.flatMap { instantsOfSpec($0.count > 1 ? $0[1].stringValue ?? "" : "") },
                    nextElapses: parsed.map { $0.count > 2 ? $0[2].doubleValue ?? -1 : -1 },
                    accuracyUSec: values[1]?.doubleValue, remainAfterElapse: values[2]?.boolValue,
                    persistent: values[3]?.boolValue))
        }
        return timers
    }

    /// `systemctl --user list-timers --all 'daysome-*'`: the unit names it lists.
    func listedTimers() async throws -> [String] {
        let result = try await self.systemctl(["list-timers", "--all", "--no-legend", "--plain", "daysome-*"])
        guard result.status == 0 else {
            throw HarnessError("\(result)")
        }
        return result.stdout.split(separator: "\n").compactMap { line in
            line.split(separator: " ").first { $0.hasPrefix("daysome-") && $0.hasSuffix(".timer") }.map(String.init)
        }
    }

    /// The current lay of lay.json, or nil when none is recorded.
    func layRecord() -> LayRecordView? {
        let text = readFile(self.stateDirectory + "/lay.json")
        guard let lay = (try? JSONParser.parse(text))?.objectValue?["lay"]?.objectValue,
            let number = lay["number"]?.doubleValue, let from = lay["from"]?.stringValue
        else { return nil }
        return LayRecordView(number: Int(number), from: from)
    }
}

/// What `holdsExactlyThePlan` found once the manager and the plan agreed.
struct Converged {
    let lay: Int
    let from: String
    let timers: [ManagerTimer]
    let instants: [String]
    /// A start fell between `from` and the check, so only the still-future part was compared.
    let comparedFutureOnly: Bool
    /// The wall clock just before and just after the timers were read.
    let readBetween: (Double, Double)
}

extension TestWorld {
    /// One look: does the manager hold exactly the plan of the lay in `layFile` (default: this
    /// daemon's lay.json), every entry once, in timers named for that lay only, all active?
    /// Returns nil with the reason in `why` when not (yet).
    func holdsExactlyThePlan(
        layRecord: LayRecordView?, household: String? = nil, planCache: inout [String: [String]], why: inout String
    ) async throws -> Converged? {
        guard let lay = layRecord else {
            why = "no lay recorded in lay.json"
            return nil
        }
        let before = wallSeconds()
        guard let timers = try await self.daysomeTimers() else {
            why = "a daysome- timer vanished while it was read"
            return nil
        }
        guard !timers.isEmpty else {
            why = "the manager holds no daysome- timer (lay \(lay.number))"
            return nil
        }
        let foreign = timers.filter { $0.lay != lay.number || $0.activeState != "active" }
        guard foreign.isEmpty else {
            why = "timers of another lay or not active: \(foreign) (current lay \(lay.number))"
            return nil
        }
        let expected: [String]
        if let cached = planCache[lay.from] {
            expected = cached
        } else {
            expected = try await self.plannedInstants(from: lay.from, household: household)
            planCache[lay.from] = expected
        }
        let read = (before, wallSeconds())
        let held = timers.flatMap(\.instants)
        guard Set(held).count == held.count else {
            let duplicates = Dictionary(grouping: held, by: { $0 }).filter { $0.value.count > 1 }.keys.sorted()
            why = "duplicate entries in the manager: \(duplicates)"
            return nil
        }
        if Set(held) == Set(expected) {
            return Converged(
                lay: lay.number, from: lay.from, timers: timers, instants: held, comparedFutureOnly: false,
                readBetween: read)
        }
        // A start between the lay's `from` and now may already be handled and not laid again
        // after a restart (and the horizon moved with it): compare what is still ahead.
        let now = Int64(wallSeconds().rounded(.down))
        let from = seconds(of: lay.from) ?? 0
        let crossed = expected.contains { (seconds(of: $0) ?? 0) <= now + 2 }
        if crossed {
            let horizon = from + 7 * 86_400
            let ahead = { (text: String) -> Bool in
                guard let at = seconds(of: text) else { return true }
                return at > now + 2 && at <= horizon
            }
            if Set(held.filter(ahead)) == Set(expected.filter(ahead)) {
                return Converged(
                    lay: lay.number, from: lay.from, timers: timers, instants: held, comparedFutureOnly: true,
                    readBetween: read)
            }
        }
        let missing = Set(expected).subtracting(held).sorted()
        let extra = Set(held).subtracting(expected).sorted()
        why =
            "lay \(lay.number) from \(lay.from): the manager holds \(held.count) entries, the plan \(expected.count); "
            + "missing \(missing.prefix(5)), extra \(extra.prefix(5))"
        return nil
    }

    /// Polls until the manager holds exactly the plan of the current lay; returns what it found
    /// and how long it took.
    func waitUntilManagerHoldsThePlan(
        within timeout: Double, since start: Double = monotonicSeconds(), household: String? = nil,
        layRecord: (() -> LayRecordView?)? = nil
    ) async throws -> (found: Converged, seconds: Double) {
        var cache: [String: [String]] = [:]
        var why = ""
        let deadline = start + timeout
        while true {
            let record = layRecord?() ?? self.layRecord()
            if let found = try await self.holdsExactlyThePlan(
                layRecord: record, household: household, planCache: &cache, why: &why)
            {
                return (found, monotonicSeconds() - start)
            }
            if monotonicSeconds() >= deadline {
                throw HarnessError(
                    "After \(timeout) s the manager does not hold exactly the plan: \(why). daysomed said: "
                        + String(self.daemonStderr.suffix(2_000)))
            }
            await pause(0.05)
        }
    }

    /// Polls until the manager holds no daysome- timer (in any state); returns how long it took.
    func waitUntilManagerHoldsNothing(
        within timeout: Double, since start: Double = monotonicSeconds()
    ) async throws
        -> Double
    {
        var last: [String] = []
        while true {
            last = try await self.daysomeUnits("daysome-*.timer").map { "\($0.name) [\($0.activeState)]" }
            if last.isEmpty {
                return monotonicSeconds() - start
            }
            if monotonicSeconds() >= start + timeout {
                throw HarnessError(
                    "After \(timeout) s the manager still holds \(last). daysomed said: "
                        + String(self.daemonStderr.suffix(2_000)))
            }
            await pause(0.02)
        }
    }
}
