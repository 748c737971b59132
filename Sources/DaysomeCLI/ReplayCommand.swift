// `daysomectl replay`: the time machine. Runs the daemon's real state machine and timer wheel
// on a virtual clock over a span, with the display away throughout unless a script says
// otherwise, and prints every lay, call, expiry, withdrawal and drop in local time (or the
// JSON object, or a picture with --svg). It touches no real timer, bus, notification or clock.
// Also `pending --svg`: the live queue as the same picture.

import DaysomeCore
import DaysomeFiles

let replayVerb = VerbSpec(
    "replay",
    options: [
        OptionSpec("--household", "PATH", "The household file to replay (required)."),
        OptionSpec("--from", "TIME", "Where the replay starts: YYYY-MM-DDTHH:MM[:SS] local, or RFC 3339 (required)."),
        OptionSpec("--to", "TIME", "Where it ends, at most 366 days later; same forms (required)."),
        OptionSpec("--display", "SCRIPT", "A file of display changes, one a line: TIME foreground|away (local)."),
        OptionSpec("--svg", "FILE", "Also draw the span as a picture: one row a day, 00:00 to 24:00 local."),
        OptionSpec("--json", nil, "Print one JSON object instead of lines."),
    ],
    summary: "Replay the daemon on a virtual clock: every lay, call, expiry, withdrawal and drop, in local time.",
    details: """
        The daemon's own state machine and timer wheel run from --from to --to; the timer fires at
        each deadline and a virtual notification server answers every call at once. Nothing real
        is touched: no timer, bus, notification or clock. The display is away throughout unless
        a script says otherwise (its last change at or before --from sets the state there); in
        the script, blank lines and # comments are ignored, and a change at the same instant as
        a start is handled first (rule 1):

            2026-10-25T12:59 foreground
            2026-10-25T13:05 away

        Items that cannot be used are named on stderr and the rest are replayed (exit 0); a
        household file that cannot be used at all, or a bad script line, exits 2.
        """)

/// Runs `replay`.
func runReplay(_ command: ParsedCommand, _ context: CommandContext) -> CommandOutput {
    for required in ["--household", "--from", "--to"] where command.options[required] == nil {
        let name = required == "--household" ? "--household PATH" : "\(required) TIME"
        return .failure(
            .usage, UsageError.missingOption(name, verb: "replay").description + ". See 'daysomectl replay --help'.")
    }
    let path = command.options["--household"]!
    let load: HouseholdLoad
    switch HouseholdFile.load(path, environment: context.environment) {
    case .failure(let error):
        return CommandOutput(
            status: .usage, stderr: (error.problems.map { "daysomectl: \($0)\n" }.joined()) + "daysomectl: \(error)\n")
    case .success(let loaded): load = loaded
    }
    let zone = load.household.zone
    var span: [Instant] = []
    for option in ["--from", "--to"] {
        let text = command.options[option]!
        guard let parsed = TimeParsing.instant(text, zone: zone) else {
            return .failure(
                .usage,
                UsageError.invalidValue(
                    option: option, value: text, expected: "YYYY-MM-DDTHH:MM[:SS] or an RFC 3339 instant"
                ).description)
        }
        span.append(parsed)
    }
    let (from, to) = (span[0], span[1])
    guard to > from, to.seconds - from.seconds <= 366 * 86_400 else {
        return .failure(
            .usage,
            "'--to' must be after '--from' and at most 366 days later (from \(describeLocal(from, zone)), to \(describeLocal(to, zone)))"
        )
    }
    var script: [DisplayChange] = []
    if let scriptPath = command.options["--display"] {
        let bytes: [UInt8]
        do {
            bytes = try FileIO.read(scriptPath, limit: 1 << 20)
        } catch {
            return .failure(.usage, "cannot read the display script: \(error)")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            return .failure(.usage, "display script '\(scriptPath)' is not UTF-8 text")
        }
        switch DisplayScript.parse(text, zone: zone) {
        case .success(let changes): script = changes
        case .failure(let error):
            return .failure(.usage, "display script '\(scriptPath)' \(error)")
        }
    }

    let result = Replay(household: load.household, from: from, to: to, display: script).run()
    var stderr = load.problems.map { "daysomectl: \($0)\n" }.joined()
    if !load.household.settings.notifyInOtherApps {
        stderr +=
            "daysomectl: nothing is laid: notifications in other apps are off: a carer turns on settings.notifyInOtherApps\n"
    }
    if let svgPath = command.options["--svg"] {
        let picture = WeekPicture.replay(result, zone: zone, source: baseName(path))
        do {
            try FileIO.writeAtomically(svgPath, picture.svg(), mode: 0o644)
        } catch {
            return CommandOutput(status: .failure, stderr: stderr + "daysomectl: \(error)\n")
        }
    }
    if command.has("--json") {
        return CommandOutput(
            stdout: ReplayReport.json(result, zone: zone, problems: load.problems).serialized(pretty: true) + "\n",
            stderr: stderr)
    }
    return CommandOutput(stdout: ReplayReport.text(result, zone: zone), stderr: stderr)
}

/// The local clock time, to the minute, of an instant at an offset.
func wallClock(_ seconds: Int64, _ offset: Int32) -> String {
    let second = ((seconds + Int64(offset)) % 86_400 + 86_400) % 86_400
    return ClockTime(hour: Int(second / 3600), minute: Int(second / 60 % 60))?.description ?? "?"
}

/// The last component of a path.
func baseName(_ path: String) -> String {
    path.split(separator: "/").last.map(String.init) ?? path
}

// MARK: The display script

/// Reads a display script: `YYYY-MM-DDTHH:MM[:SS] foreground|away` a line, local time.
enum DisplayScript {
    /// A line that is neither blank, a comment nor a change.
    struct LineError: Error, Equatable, CustomStringConvertible {
        let line: Int
        let message: String

        var description: String { "line \(self.line): \(self.message)" }
    }

    static func parse(_ text: String, zone: Zone) -> Result<[DisplayChange], LineError> {
        var changes: [DisplayChange] = []
        var number = 0
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            number += 1
            var line = Substring(rawLine)
            if let hash = line.firstIndex(of: "#") { line = line[..<hash] }
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
            if words.isEmpty { continue }
            let expected = "expected 'YYYY-MM-DDTHH:MM[:SS] foreground|away'"
            guard words.count >= 2, let state = DisplayState(rawValue: String(words[words.count - 1])) else {
                return .failure(LineError(line: number, message: "\(expected), found '\(printable(String(line)))'"))
            }
            let time = words.dropLast().joined(separator: " ")
            guard let at = TimeParsing.instant(time, zone: zone) else {
                return .failure(
                    LineError(line: number, message: "\(expected): '\(printable(time))' is not a local time"))
            }
            changes.append(DisplayChange(at: at, state: state))
        }
        return .success(changes)
    }
}

// MARK: What replay prints

enum ReplayReport {
    /// One line an event, in local time, with the display's changes and the clock changes between.
    static func text(_ result: ReplayResult, zone: Zone) -> String {
        var text =
            "\(result.timeZone): replay from \(describeLocal(result.from, zone)) to \(describeLocal(result.to, zone))"
        text += "; display \(result.display.first?.state == .foreground ? "on screen" : "away") at the start\n\n"
        var lines: [(time: Instant, order: Int, event: String, lay: String, detail: String)] = []
        for period in result.display.dropFirst() {
            lines.append((period.from, 0, "display", "", period.state.rawValue))
        }
        for change in zone.rules.transitions(after: result.from.seconds, through: result.to.seconds) {
            let way = change.offsetAfter < change.offsetBefore ? "go back" : "go forward"
            let before = "\(wallClock(change.at, change.offsetBefore)) \(formatOffset(change.offsetBefore))"
            let after = "\(wallClock(change.at, change.offsetAfter)) \(formatOffset(change.offsetAfter))"
            lines.append((Instant(seconds: change.at), 1, "clocks", "", "\(way): \(before) becomes \(after)"))
        }
        for (index, event) in result.events.enumerated() {
            lines.append(
                (event.time, 2 + index, event.kind.rawValue, "lay \(event.lay)", self.detail(event, zone: zone)))
        }
        lines.sort { ($0.time, $0.order) < ($1.time, $1.order) }
        let layWidth = lines.map(\.lay.count).max() ?? 0
        for line in lines {
            let event = line.event.padding(to: 9)
            let lay = line.lay.padding(to: layWidth)
            text +=
                "\(describeLocal(line.time, zone))  \(event)  \(lay)  \(line.detail)"
                .trimmingTrailingSpaces() + "\n"
        }
        if result.events.isEmpty { text += "Nothing happened: no lay was made.\n" }
        let count = { (kind: ReplayEvent.Kind) in result.events(kind).count }
        text +=
            "\n\(count(.laid)) laid, \(count(.cleared)) cleared, \(count(.delivered)) delivered, "
            + "\(count(.expired)) expired, \(count(.withdrawn)) withdrawn, \(count(.dropped)) dropped.\n"
        return text
    }

    /// What a line says about one event.
    static func detail(_ event: ReplayEvent, zone: Zone) -> String {
        let title = printable(event.start?.title ?? event.itemIds.joined(separator: ", "))
        let due = event.at.map { " (\(zone.local($0).clockTime))" } ?? ""
        let reason = event.reason.map { ": " + printable($0) } ?? ""
        switch event.kind {
        case .laid, .cleared:
            return printable(event.reason ?? "")
        case .delivered:
            guard let start = event.start else { return title + reason }
            var line = "\(title) — \(printable(start.heading)) · \(printable(start.body))"
            if let late = event.reason { line += " (\(printable(late)))" }
            return line
        case .expired:
            return title + due
        case .withdrawn, .dropped, .reposted:
            return title + due + reason
        }
    }

    /// `{ "timeZone", "from", "to", "events": [...], "display": [...], "notifyInOtherApps", "errors" }`.
    static func json(_ result: ReplayResult, zone: Zone, problems: [HouseholdProblem]) -> JSONValue {
        let events = result.events.map { event -> JSONValue in
            .object(
                JSONObject([
                    ("time", .string(event.time.rfc3339)),
                    ("local", .string(zone.local(event.time).rfc3339)),
                    ("event", .string(event.kind.rawValue)),
                    ("lay", .number(Double(event.lay))),
                    ("at", event.at.map { .string($0.rfc3339) } ?? .null),
                    ("itemIds", .array(event.itemIds.map { .string($0) })),
                    ("title", event.start.map { .string($0.title) } ?? .null),
                    ("reason", event.reason.map { .string($0) } ?? .null),
                    ("count", event.count.map { .number(Double($0)) } ?? .null),
                    (
                        "expiresAt",
                        event.kind == .delivered ? event.start.map { .string($0.expiresAt.rfc3339) } ?? .null : .null
                    ),
                ]))
        }
        let display = result.display.map { period -> JSONValue in
            .object(
                JSONObject([
                    ("from", .string(period.from.rfc3339)), ("to", .string(period.to.rfc3339)),
                    ("state", .string(period.state.rawValue)),
                ]))
        }
        return .object(
            JSONObject([
                ("timeZone", .string(result.timeZone)),
                ("from", .string(result.from.rfc3339)),
                ("to", .string(result.to.rfc3339)),
                ("events", .array(events)),
                ("display", .array(display)),
                ("errors", .array(problems.map(\.json))),
            ]))
    }
}

extension String {
    fileprivate func padding(to width: Int) -> String {
        self.count >= width ? self : self + String(repeating: " ", count: width - self.count)
    }

    fileprivate func trimmingTrailingSpaces() -> String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}

// MARK: pending --svg

let svgOption = OptionSpec("--svg", "FILE", "Also draw the queue as a picture: one row a day, 00:00 to 24:00 local.")

/// `pending` with `--svg FILE`: the same verb, with the picture added.
let pendingPictureVerb = VerbSpec(
    pendingVerb.name, arguments: pendingVerb.arguments, options: pendingVerb.options + [svgOption],
    summary: pendingVerb.summary, details: pendingVerb.details)

/// Runs `pending`, then draws what it read when `--svg` is given.
func runPendingWithPicture(_ command: ParsedCommand, _ context: CommandContext) -> CommandOutput {
    guard let svgPath = command.options["--svg"] else { return runPending(command, context) }
    var plain = command
    plain.options["--svg"] = nil
    var output = runPending(plain, context)
    guard output.status == .success else { return output }
    let paths = paths(command, context)
    let queue: QueueSnapshot
    switch readQueue(paths) {
    case .success(let read): queue = read
    case .failure(let why): return .failure(.failure, why.description)
    }
    output.draw(pendingPicture(queue, now: context.now, environment: context.environment), to: svgPath)
    return output
}

extension CommandOutput {
    /// Writes a picture for `--svg`; a file that cannot be written fails the command, naming the
    /// file, and what was printed stays.
    mutating func draw(_ picture: WeekPicture, to path: String) {
        do {
            try FileIO.writeAtomically(path, picture.svg(), mode: 0o644)
        } catch {
            self.status = .failure
            self.stderr += "daysomectl: \(error)\n"
        }
    }
}

/// The live queue as a picture: each pending start to its expiry, from now.
func pendingPicture(_ queue: QueueSnapshot, now: Instant, environment: [String: String]) -> WeekPicture {
    let zoneName = queue.publisher?.timeZone ?? "UTC"
    let tzdir = environment["TZDIR"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/usr/share/zoneinfo"
    let rules = (try? ZoneFiles.load(name: zoneName, tzdir: tzdir)) ?? .utc
    let zone = Zone(name: zoneName, rules: rules)
    let cards = queue.pending.map { entry in
        WeekPicture.Card(
            at: entry.at, title: entry.title, until: entry.expiresAt ?? entry.at, state: .planned, end: .open)
    }
    let to = max(cards.map(\.until).max() ?? now, now.adding(seconds: 86_400))
    let display = queue.display ?? .away
    let lay = queue.lay.map { "lay \($0)" } ?? "nothing laid"
    return WeekPicture(
        heading: "Daysome pending · \(zone.name)",
        summary: "\(describeLocal(now, zone)) → \(describeLocal(to, zone)) · \(lay) · \(cards.count) starts pending",
        zone: zone, from: now, to: to, display: [DisplayPeriod(from: now, to: to, state: display)], cards: cards)
}
