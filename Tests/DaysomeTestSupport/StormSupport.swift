// StormSupport: what the reliability tests of both backends share. A dbus-monitor on the bus the
// notification server serves records every Notify, its reply (the id) and every
// NotificationClosed, each with the bus's timestamp: what the server saw, and when. A flip log
// records when the display state file said foreground or away. Rule 1 is then a comparison of
// the two. The storm itself (seeded flips at random intervals, settled checks, a delivery
// straddled) runs the same way for the wheel and for the systemd backend; only the checks differ.
//
// It serves Tests/IntegrationTests and Tests/SystemdIntegrationTests through this library.

import Glibc

// MARK: Knobs

/// A whole number from the environment (`DAYSOME_SEED`, `DAYSOME_STORM_FLIPS`), or nil.
public func environmentNumber(_ name: String) -> UInt64? {
    getenv(name).flatMap { UInt64(String(cString: $0)) }
}

/// How many flips a storm makes: `DAYSOME_STORM_FLIPS`, else `fallback`.
public func stormFlips(default fallback: Int) -> Int {
    environmentNumber("DAYSOME_STORM_FLIPS").map { max(2, Int(clamping: $0)) } ?? fallback
}

/// A number from a generator in `range` (inclusive), for readable seeded draws.
public func draw(_ range: ClosedRange<Int>, _ random: inout SeededRandom) -> Int {
    range.lowerBound + Int(random.next() % UInt64(range.count))
}

// MARK: What the server saw

/// One Notify sent to the notification server, as the bus carried it.
public struct ServerNotification: CustomStringConvertible {
    public let appName: String
    public let summary: String
    /// The bus's time of the Notify call (seconds since the epoch).
    public let postedAt: Double
    public let sender: String
    public let serial: String
    /// The id the server answered with, and when.
    public var id: UInt32?
    public var answeredAt: Double?
    /// When the server said it closed it (NotificationClosed), and why (3: CloseNotification).
    public var closedAt: Double?
    public var closeReason: UInt32?

    public var description: String {
        let closed = self.closedAt.map { "closed \(clockText($0)) (reason \(self.closeReason ?? 0))" } ?? "never closed"
        return "\"\(self.summary)\" id \(self.id.map(String.init) ?? "-") posted \(clockText(self.postedAt)), \(closed)"
    }
}

/// `HH:MM:SS.mmm` UTC of epoch seconds, for failure messages.
public func clockText(_ seconds: Double) -> String {
    let whole = Int64(seconds.rounded(.down))
    let millis = Int((seconds - Double(whole)) * 1_000)
    let day = whole % 86_400
    func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : String(value) }
    let milliText = millis < 10 ? "00\(millis)" : millis < 100 ? "0\(millis)" : String(millis)
    return "\(two(day / 3_600)):\(two(day % 3_600 / 60)):\(two(day % 60)).\(milliText)"
}

/// A `dbus-monitor --monitor` on one bus, watching org.freedesktop.Notifications: its calls,
/// every method return (the ids come back in them) and its signals.
public final class BusRecorder {
    public let log: String
    private let process: SpawnedProcess

    private init(process: SpawnedProcess, log: String) {
        self.process = process
        self.log = log
    }

    /// Starts recording `address` into `log`; returns once the monitor is attached.
    public static func start(address: String, log: String) async throws -> BusRecorder {
        let executable = try findExecutable("dbus-monitor", package: "dbus-bin")
        let process = try SpawnedProcess(
            executable,
            [
                "--address", address, "--monitor", "type='method_call',interface='org.freedesktop.Notifications'",
                "type='method_return'", "type='error'", "type='signal',interface='org.freedesktop.Notifications'",
            ], environment: ["PATH": childPath, "LANG": "C.UTF-8"], stdoutPath: log, stderrPath: log + ".err")
        let recorder = BusRecorder(process: process, log: log)
        // A monitor first loses the unique name it was given: from then on it sees everything.
        _ = try await poll("dbus-monitor to attach to \(address)", timeout: 10, interval: 0.02) { () -> Bool? in
            if process.poll() {
                throw HarnessError("dbus-monitor exited: \(readFile(log + ".err"))")
            }
            return readFile(log).contains("member=NameLost") ? true : nil
        }
        return recorder
    }

    deinit {
        self.process.stop()
    }

    /// Stops the monitor (its output is flushed line by line, so nothing is lost).
    public func stop() {
        self.process.stop()
    }

    /// Every Notify the bus carried so far, with its id and closing, in order.
    public func notifications() -> [ServerNotification] {
        parseMonitorLog(readFile(self.log))
    }
}

/// One message header of dbus-monitor's output, and its top-level arguments.
private struct MonitorMessage {
    var kind = ""
    var fields: [String: String] = [:]
    var arguments: [String] = []
}

/// Reads dbus-monitor's default output: a header line a message (`method call time=… sender=…
/// -> destination=… serial=… path=…; interface=…; member=…`), then its arguments indented by
/// three spaces. A string argument may span lines (a body holds a newline): only the header
/// lines and the first arguments, which never do here, are read.
private func parseMonitorLog(_ text: String) -> [ServerNotification] {
    var messages: [MonitorMessage] = []
    for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
        let line = String(rawLine)
        if let kind = ["method call ", "method return ", "signal ", "error "].first(where: {
            line.hasPrefix($0 + "time=")
        }) {
            var message = MonitorMessage()
            message.kind = String(kind.dropLast())
            for word in line.dropFirst(kind.count).split(separator: " ") {
                let token = word.hasSuffix(";") ? word.dropLast() : word
                guard let equals = token.firstIndex(of: "=") else { continue }
                message.fields[String(token[..<equals])] = String(token[token.index(after: equals)...])
            }
            messages.append(message)
        } else if line.hasPrefix("   "), !line.hasPrefix("    "), !messages.isEmpty {
            messages[messages.count - 1].arguments.append(String(line.dropFirst(3)))
        }
    }
    func string(_ argument: String) -> String {
        guard argument.hasPrefix("string \""), argument.hasSuffix("\"") else { return argument }
        return String(argument.dropFirst("string \"".count).dropLast())
    }
    func number(_ argument: String?) -> UInt32? {
        argument.flatMap { $0.split(separator: " ").last.flatMap { UInt32($0) } }
    }
    var notifications: [ServerNotification] = []
    var waiting: [String: Int] = [:]
    var byId: [UInt32: Int] = [:]
    for message in messages {
        let time = Double(message.fields["time"] ?? "") ?? 0
        switch (message.kind, message.fields["member"]) {
        case ("method call", "Notify"?):
            let sender = message.fields["sender"] ?? ""
            let serial = message.fields["serial"] ?? ""
            waiting[sender + "#" + serial] = notifications.count
            notifications.append(
                ServerNotification(
                    appName: message.arguments.first.map(string) ?? "",
                    summary: message.arguments.count > 3 ? string(message.arguments[3]) : "", postedAt: time,
                    sender: sender, serial: serial))
        case ("method return", _):
            let key = (message.fields["destination"] ?? "") + "#" + (message.fields["reply_serial"] ?? "")
            if let index = waiting.removeValue(forKey: key), let id = number(message.arguments.first) {
                notifications[index].id = id
                notifications[index].answeredAt = time
                byId[id] = index
            }
        case ("signal", "NotificationClosed"?):
            if let id = number(message.arguments.first), let index = byId[id], notifications[index].closedAt == nil {
                notifications[index].closedAt = time
                notifications[index].closeReason = number(message.arguments.dropFirst().first)
            }
        default:
            break
        }
    }
    return notifications
}

// MARK: The display's flips

/// When the display state file said what: each entry holds from its instant to the next.
public struct FlipLog {
    public private(set) var entries: [(at: Double, state: String)] = []

    public mutating func append(_ state: String, at time: Double) {
        self.entries.append((time, state))
    }

    /// The foreground stretches, the last one open until `end`.
    public func foregroundStretches(until end: Double) -> [(from: Double, to: Double)] {
        var stretches: [(from: Double, to: Double)] = []
        for (index, entry) in self.entries.enumerated() where entry.state == "foreground" {
            let next = index + 1 < self.entries.count ? self.entries[index + 1].at : end
            stretches.append((entry.at, next))
        }
        return stretches
    }

    /// Rule 1 as the server saw it: every notification of `appName` that was on screen when a
    /// foreground began is closed within `window` seconds of it, and one posted during a
    /// foreground is posted within `window` of its beginning (a fire racing the return) and
    /// closed within `window` of its posting. Returns one line per breach.
    public func breaches(
        of notifications: [ServerNotification], appName: String = "Daysome", window: Double, until end: Double
    ) -> [String] {
        var found: [String] = []
        for notification in notifications where notification.appName == appName {
            let posted = notification.postedAt
            let closed = notification.closedAt ?? .infinity
            for stretch in self.foregroundStretches(until: end) {
                if posted < stretch.from && closed > stretch.from && closed > stretch.from + window {
                    found.append(
                        "\(notification) was still shown \(milliText(min(closed, end) - stretch.from)) after the "
                            + "return at \(clockText(stretch.from))")
                } else if posted >= stretch.from && posted < stretch.to {
                    if posted > stretch.from + window {
                        found.append(
                            "\(notification) was posted \(milliText(posted - stretch.from)) into the foreground "
                                + "that began at \(clockText(stretch.from))")
                    } else if closed > posted + window {
                        found.append(
                            "\(notification) raced the return at \(clockText(stretch.from)) and stayed "
                                + "\(milliText(min(closed, end) - posted))")
                    }
                }
            }
        }
        return found
    }
}

/// `123 ms`.
public func milliText(_ seconds: Double) -> String {
    seconds.isFinite ? "\(Int((seconds * 1_000).rounded())) ms" : "forever"
}

// MARK: The storm

/// A storm's flips, drawn from a seed before it starts: segments of an odd number of flips (so
/// the settled state alternates), each flip after a random 0-50 ms, and where the flips resume
/// after the minute a start is delivered.
public struct StormPlan {
    public let seed: UInt64
    /// The delay before each flip of each segment, in seconds.
    public let segments: [[Double]]
    /// How long after the start's minute the flips resume, in seconds.
    public let resumeAfterMinute: Double

    public init(seed: UInt64, flips: Int, resumeAfterMinute milliseconds: ClosedRange<Int>) {
        var random = SeededRandom(seed: seed)
        var segments: [[Double]] = []
        var left = flips
        while left > 0 {
            let count = min(left, 25 + 2 * draw(0...5, &random))
            segments.append((0..<count).map { _ in Double(draw(0...50, &random)) / 1_000 })
            left -= count
        }
        self.seed = seed
        self.segments = segments
        self.resumeAfterMinute = Double(draw(milliseconds, &random)) / 1_000
    }

    public var flips: Int { self.segments.reduce(0) { $0 + $1.count } }

    /// About how long the storm takes: its delays, and a settle and a check after each segment.
    public func estimatedSeconds(settle: Double = 1.0, check: Double) -> Double {
        self.segments.reduce(0) { $0 + $1.reduce(0, +) + settle + check }
    }

    /// How long before the minute to begin, so that the minute falls in the storm's first half.
    public func lead(check: Double) -> Double {
        min(10, self.estimatedSeconds(check: check) * 0.4)
    }
}

/// What a storm did.
public struct StormReport: CustomStringConvertible {
    public var flips = 0
    public var settledForeground = 0
    public var settledAway = 0
    /// How many segments ran before the minute and after it.
    public var segmentsBeforeMinute = 0
    public var segmentsAfterMinute = 0
    /// When the first flip after the minute was written, relative to the minute.
    public var firstFlipAfterMinute: Double?
    public var seconds = 0.0

    public var description: String {
        "\(self.flips) flips in \(Int(self.seconds.rounded())) s, \(self.settledForeground) settled foregrounds and "
            + "\(self.settledAway) settled aways checked; the flips resumed "
            + "\(self.firstFlipAfterMinute.map(milliText) ?? "never") after the start's minute"
    }
}

/// Writes the display state file as the display does (temporary file and rename) and logs
/// each write with the time it took effect.
public final class StormDriver {
    public let displayState: String
    public private(set) var log = FlipLog()
    public private(set) var state: String

    /// Writes `state` first, unless `write` is false (the file is missing, which means away).
    public init(displayState: String, state: String, write: Bool = true) throws {
        self.displayState = displayState
        self.state = state
        if write {
            // The display's directory, as `daysomectl signal` makes it (0700) when it is missing.
            if let slash = displayState.lastIndex(of: "/") {
                mkdir(String(displayState[..<slash]), 0o700)
            }
            try replaceFile(displayState, state + "\n")
        }
        self.log.append(state, at: wallSeconds())
    }

    /// Writes `state` (a flip when it differs from the current one).
    public func write(_ state: String) throws {
        try replaceFile(self.displayState, state + "\n")
        self.state = state
        self.log.append(state, at: wallSeconds())
    }

    public func flip() throws {
        try self.write(self.state == "away" ? "foreground" : "away")
    }

    /// Runs `plan`: segments of flips, each followed by a pause of at least `settle` seconds
    /// and the check of the state it settled in; before the segment that would reach `minute`,
    /// the display settles away (checked) and the flips resume `plan.resumeAfterMinute` after
    /// it, in the middle of that start's delivery. Ends settled in the foreground, checked.
    public func run(
        _ plan: StormPlan, minute: Int64, settle: Double = 1.0, checkDuration: Double,
        checkForeground: () async throws -> Void, checkAway: () async throws -> Void
    ) async throws -> StormReport {
        var report = StormReport()
        let started = monotonicSeconds()
        var straddled = false
        func settleAndCheck() async throws {
            await pause(settle)
            if self.state == "away" {
                try await checkAway()
                report.settledAway += 1
            } else {
                try await checkForeground()
                report.settledForeground += 1
            }
        }
        // Settles away (checked) before the minute and waits for it: the next flip lands in the
        // middle of that start's delivery.
        func approachTheMinute() async throws {
            guard wallSeconds() < Double(minute) - settle - checkDuration / 2 else {
                throw HarnessError(
                    "the storm reached the start's minute \(clockText(Double(minute))) before it could settle away "
                        + "for it (\(report.segmentsBeforeMinute) segments ran): start it earlier")
            }
            if self.state != "away" {
                try self.flip()
                report.flips += 1
            }
            try await settleAndCheck()
            await pause(untilWall: Double(minute) + plan.resumeAfterMinute - 0.05)
            while wallSeconds() < Double(minute) + plan.resumeAfterMinute {}
            straddled = true
        }
        for segment in plan.segments {
            let length = segment.reduce(0, +) + Double(segment.count) * 0.002 + settle + checkDuration
            if !straddled && wallSeconds() + length + checkDuration + settle >= Double(minute) {
                try await approachTheMinute()
            }
            for (index, delay) in segment.enumerated() {
                if !(straddled && index == 0 && report.firstFlipAfterMinute == nil) {
                    await pause(delay)
                }
                try self.flip()
                report.flips += 1
                if straddled && report.firstFlipAfterMinute == nil {
                    report.firstFlipAfterMinute = wallSeconds() - Double(minute)
                }
            }
            if straddled { report.segmentsAfterMinute += 1 } else { report.segmentsBeforeMinute += 1 }
            try await settleAndCheck()
        }
        if !straddled {
            // A short storm (DAYSOME_STORM_FLIPS) ended early: its last flip is the one at the minute.
            try await approachTheMinute()
            try self.flip()
            report.flips += 1
            report.firstFlipAfterMinute = wallSeconds() - Double(minute)
            try await settleAndCheck()
        }
        if self.state != "foreground" {
            try self.flip()
            report.flips += 1
            try await settleAndCheck()
        }
        report.seconds = monotonicSeconds() - started
        return report
    }
}

// MARK: Faults

/// Removes a file or a directory with everything in it (a wiped runtime directory), without
/// following symlinks out of it.
public func removeTree(_ path: String) {
    var info = stat()
    guard lstat(path, &info) == 0 else { return }
    if (info.st_mode & S_IFMT) == S_IFDIR, let directory = opendir(path) {
        var children: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
            }
            if name != "." && name != ".." {
                children.append(path + "/" + name)
            }
        }
        closedir(directory)
        children.forEach(removeTree)
        rmdir(path)
    } else {
        unlink(path)
    }
}

/// A daily household in UTC with `count` items at distinct minutes, none within `quiet` seconds
/// of `now` either way (so nothing falls due while a test runs): a week of about 7 × `count`
/// starts, for lays that take long enough to be interrupted.
public func bigHouseholdText(count: Int, now: Int64, quiet: Int64, random: inout SeededRandom) -> String {
    let minuteNow = Int((now % 86_400) / 60)
    let quietMinutes = Int(quiet / 60) + 1
    var free = (0..<1_440).filter { minute in
        let distance = abs(minute - minuteNow)
        return min(distance, 1_440 - distance) > quietMinutes
    }
    var minutes: [Int] = []
    while minutes.count < count && !free.isEmpty {
        minutes.append(free.remove(at: Int(random.next() % UInt64(free.count))))
    }
    let kinds = ["meal", "drink", "visitor", "other"]
    let items = minutes.sorted().enumerated().map { index, minute -> String in
        let hour = minute / 60
        let time = (hour < 10 ? "0" : "") + String(hour) + ":" + (minute % 60 < 10 ? "0" : "") + String(minute % 60)
        return "    { \"id\": \"item-\(index)\", \"label\": \"Item \(index)\", \"detail\": \"Detail \(index)\", "
            + "\"kind\": \"\(kinds[index % kinds.count])\", \"time\": \"\(time)\", \"repeat\": \"daily\" }"
    }
    return """
        {
          "version": 1,
          "timeZone": "UTC",
          "clock": "24h",
          "settings": { "notifyInOtherApps": true },
          "items": [
        \(items.joined(separator: ",\n"))
          ]
        }

        """
}
