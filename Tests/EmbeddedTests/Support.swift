// The embedded tests' one way in: a tablet (EmbeddedTablet) in a scratch directory under
// .testrun/, at a virtual time, with a small UTC household the test names. Nothing here waits on
// the wall clock: time moves when a test says so.

import DaysomeCLI
import DaysomeCore
import DaysomeDaemon
import DaysomeFiles
import DaysomeWorld
import Glibc
import Testing

private let repositoryRoot = "/" + #filePath.split(separator: "/").dropLast(3).joined(separator: "/")

/// An instant from its RFC 3339 text (UTC), which a test writes as it reads.
func at(_ text: String) -> Instant {
    parseUTC(text)!
}

/// One item of a test household: daily, at `time` (UTC).
struct Item {
    var id: String
    var label: String
    var time: String
    var end: String? = nil
    var kind = "meal"
}

/// A UTC household of `items`, calls in other apps on, with `settings` added to its settings.
func household(_ items: [Item], settings: String = "") -> String {
    let lines = items.map { item in
        var fields = [
            "\"id\": \"\(item.id)\"", "\"label\": \"\(item.label)\"", "\"kind\": \"\(item.kind)\"",
            "\"time\": \"\(item.time)\"", "\"repeat\": \"daily\"",
        ]
        if let end = item.end { fields.append("\"end\": \"\(end)\"") }
        return "{ " + fields.joined(separator: ", ") + " }"
    }
    return """
        { "version": 1, "timeZone": "UTC", "clock": "24h",
          "settings": { "notifyInOtherApps": true\(settings.isEmpty ? "" : ", " + settings) },
          "items": [ \(lines.joined(separator: ",\n")) ] }
        """
}

/// The bytes of a file under Fixtures/ (`bad/not-json.json`).
func fixture(_ name: String) throws -> [UInt8] {
    try FileIO.read(repositoryRoot + "/Fixtures/" + name, limit: 1 << 20)
}

/// Lunch at 12:00 until 12:45, and a drink at 15:00, every day.
let lunchAndTea = household([
    Item(id: "lunch", label: "Lunch", time: "12:00", end: "12:45"),
    Item(id: "tea", label: "Tea", time: "15:00", kind: "drink"),
])

/// A tablet in its own scratch directory, removed when the test ends (`remove`).
func tablet(
    _ name: String, at now: String, household text: String? = lunchAndTea, display: String? = "away",
    arguments: [String] = [], start: Bool = true
) throws -> EmbeddedTablet {
    let root = repositoryRoot + "/.testrun/embedded-\(name)-\(getpid())"
    _ = system("rm -rf '\(root)'")
    let tablet = try EmbeddedTablet(root: root, at: at(now), household: text, display: display, arguments: arguments)
    if start { try tablet.startDaemon() }
    return tablet
}

extension EmbeddedTablet {
    /// Removes the tablet's files.
    func remove() {
        self.killDaemon()
        _ = system("rm -rf '\(self.root)'")
    }

    /// The history lines of one event, as `event at lay` for a short expectation.
    func events(_ event: HistoryRecord.Event) -> [HistoryRecord] {
        self.history().filter { $0.event == event }
    }

    /// The summaries of the cards on screen now: a server another took the name over from
    /// still shows its own.
    var shown: [String] { ((self.server.replaced?.cards ?? []) + self.server.cards).map(\.summary) }

    /// The text of one of the tablet's files, empty when it cannot be read.
    func text(_ path: String) -> String {
        (try? FileIO.read(path, limit: 1 << 20)).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    /// daysomectl run in-process on the tablet's files (`status`, `history --json`), at the
    /// tablet's time: its own code, its text and its exit status, without the control socket.
    /// `withPaths` adds the daemon's paths, as a tester passes them to the verbs that read them.
    func ctl(_ arguments: [String], withPaths: Bool = true) -> CommandOutput {
        let paths =
            withPaths
            ? [
                "--runtime-dir", self.paths.runtimeDirectory, "--state-dir", self.paths.stateDirectory,
                "--display-state", self.paths.displayState,
            ] : []
        return DaysomeCtl.run(
            arguments + paths, context: CommandContext(environment: ["HOME": self.root], now: self.now))
    }

    /// `daysomectl status` as text.
    func statusText() throws -> String {
        let output = self.ctl(["status"])
        guard output.status == .success else { throw EmbeddedTestError("daysomectl status failed: \(output)") }
        return output.stdout
    }

    /// The messages of the log lines that contain `fragment`.
    func logged(_ fragment: String) -> [String] {
        self.log.map(\.message).filter { $0.contains(fragment) }
    }
}

/// What a test could not set up or read.
struct EmbeddedTestError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
