// Security of the systemd backend: a household whose labels and details are full of shell
// metacharacters, command substitutions, backticks, specifiers and unit-name-hostile text lays,
// re-lays, restarts and fires; every daysome- unit the manager holds is then read back over its
// D-Bus API: its name, its ExecStart (program and argv) and its Environment hold only what the
// daemon builds from numbers and paths, and no unit shows any of the household's text.

import DaysomeCore
import DaysomeTestSupport
import Glibc
import Testing

/// Text that would do harm on a command line, in a unit name or in a unit file; each holds
/// HOSTILE so that any copy of one is found.
private let hostileTexts = [
    "HOSTILE $(touch @MARK@/dollar)", "HOSTILE `touch @MARK@/backtick`", "HOSTILE; touch @MARK@/semicolon #",
    "HOSTILE' \" \\\\ | & > @MARK@/redirect", "HOSTILE daysome-lay1.timer ../../evil.service %h %n ${HOME} $PATH",
    "HOSTILE\\nExecStart=/bin/sh -c 'touch @MARK@/newline'",
]

@Suite(
    "SecurityTests: no household text in a unit name, an ExecStart or an environment (systemd)", .timeLimit(.minutes(4))
)
struct SecurityTests {
    @Test func hostileLabelsNeverReachAUnitNameAnExecStartOrACommandLine() async throws {
        let session = try await TestWorld.start(.userManager, daemon: .systemdBackend)
        defer { session.stop() }
        let marks = try session.directory.makeDirectory("marks")
        let now = Int64(wallSeconds())
        let items = hostileTexts.enumerated().map { index, text -> String in
            let quoted = text.replacing("@MARK@", with: marks).replacing("\"", with: "\\\"")
            let time = utcClockTime(now + Int64(3_600 * (index + 1)))
            return #"{ "id": "hostile-\#(index)", "label": "\#(quoted)", "detail": "\#(quoted)", "kind": "meal", "#
                + #""time": "\#(time)", "repeat": "daily" }"#
        }
        let household = """
            {
              "version": 1,
              "timeZone": "UTC",
              "settings": { "notifyInOtherApps": true },
              "items": [
                \(items.joined(separator: ",\n    "))
              ]
            }

            """
        try replaceFile(session.household, household)
        let plan = try await session.ctl(["plan", "--household", session.household, "--json"])
        #expect(plan.status == 0 && plan.stderr.isEmpty, "the hostile household must be valid: \(plan)")

        // Lays and re-lays of every kind: at start-up, after a return, after an edit, after a
        // restart (a second part of the same lay); then each timer's service run as its fire runs.
        let driver = try StormDriver(displayState: session.displayState, state: "away")
        try await session.startDaemon()
        _ = try await session.waitUntilManagerHoldsThePlan(within: 5)
        try driver.write("foreground")
        _ = try await session.waitUntilManagerHoldsNothing(within: 2)
        try driver.write("away")
        _ = try await session.waitUntilManagerHoldsThePlan(within: 5)
        try replaceFile(session.household, household.replacing("HOSTILE; touch", with: "HOSTILE;; touch"))
        await pause(0.5)
        try await session.killDaemon()
        try await session.startDaemon()
        let held = try await session.waitUntilManagerHoldsThePlan(within: 5).found
        for timer in held.timers {
            let service = String(timer.name.dropLast(".timer".count)) + ".service"
            let fired = try await session.systemctl(["start", service])
            #expect(fired.status == 0, "\(fired)")
            // The fire ran to its end and exited 0 (nothing was due).
            let ended = try await poll("\(service) to run and exit", timeout: 10) { () -> String? in
                let shown = try await session.systemctl([
                    "show", "-p", "ActiveState,ExecMainCode,ExecMainStatus", service,
                ]).stdout
                return shown.contains("ActiveState=inactive") && shown.contains("ExecMainCode=1") ? shown : nil
            }
            #expect(ended.contains("ExecMainStatus=0"), "\(service): \(ended)")
        }

        let units = try await self.unitsAndObjects(session)
        let names = units.map(\.name)
        print("[SecurityTests] daysome- units in the manager: \(names)")
        #expect(names.contains { $0.hasSuffix(".timer") } && names.contains { $0.hasSuffix(".service") }, "\(names)")
        let namePattern = #/^daysome-lay[0-9]+(-[0-9]+)?\.(timer|service)$/#
        for unit in units {
            #expect(unit.name.wholeMatch(of: namePattern) != nil, "unit name \(unit.name)")
            let shown = try await session.systemctl(["show", "--no-pager", unit.name])
            #expect(shown.status == 0, "\(shown)")
            #expect(!shown.stdout.contains("HOSTILE"), "\(unit.name) shows household text: \(shown.stdout)")
            guard unit.name.hasSuffix(".service") else { continue }
            let lay = String(unit.name.dropFirst("daysome-lay".count).prefix { $0.isNumber })
            let exec = try await self.property(session, unit.path, "ExecStart")
            let commands = exec?.arrayValue ?? []
            #expect(commands.count == 1, "\(unit.name): ExecStart \(String(describing: exec))")
            let command = commands.first?.arrayValue ?? []
            #expect(command.first?.stringValue == session.daysomectl, "\(unit.name): program \(command)")
            let argv = command.count > 1 ? command[1].strings : []
            #expect(
                argv == [session.daysomectl, "fire", "--lay", lay, "--runtime-dir", session.runtimeDirectory],
                "\(unit.name): argv \(argv)")
            let environment = try await self.property(session, unit.path, "Environment")?.strings ?? []
            let allowed = ["XDG_RUNTIME_DIR", "DBUS_SESSION_BUS_ADDRESS", "HOME", "XDG_STATE_HOME"]
            for entry in environment {
                let key = String(entry.prefix { $0 != "=" })
                #expect(allowed.contains(key), "\(unit.name): Environment \(entry)")
                #expect(entry == "\(key)=\(session.environment[key] ?? "")", "\(unit.name): Environment \(entry)")
            }
        }
        let leftovers = directoryEntries(marks).map(\.name)
        #expect(leftovers.isEmpty, "household text ran as a command: \(leftovers)")
    }

    /// Every daysome- unit the manager has loaded, with its object path.
    private func unitsAndObjects(_ session: TestWorld) async throws -> [(name: String, path: String)] {
        let result = try await session.busctl([
            "call", "org.freedesktop.systemd1", "/org/freedesktop/systemd1", "org.freedesktop.systemd1.Manager",
            "ListUnitsByPatterns", "asas", "0", "1", "daysome-*",
        ])
        guard result.status == 0,
            let rows = (try? JSONParser.parse(result.stdout))?.objectValue?["data"]?.arrayValue?.first?.arrayValue
        else {
            throw HarnessError("ListUnitsByPatterns failed: \(result)")
        }
        return rows.compactMap { row in
            guard let fields = row.arrayValue, fields.count >= 7, let name = fields[0].stringValue,
                let path = fields[6].stringValue
            else { return nil }
            return (name, path)
        }
    }

    /// One property of a service unit, as busctl's JSON `data`.
    private func property(_ session: TestWorld, _ path: String, _ name: String) async throws -> JSONValue? {
        let result = try await session.busctl([
            "get-property", "org.freedesktop.systemd1", path, "org.freedesktop.systemd1.Service", name,
        ])
        guard result.status == 0 else { throw HarnessError("get-property \(name) failed: \(result)") }
        return (try? JSONParser.parse(result.stdout))?.objectValue?["data"]
    }
}

extension JSONValue {
    fileprivate var strings: [String] { (self.arrayValue ?? []).compactMap(\.stringValue) }
}
