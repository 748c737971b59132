// `daysomectl pending` for the systemd backend: every start read back from the user's manager
// itself (each daysome- timer's TimersCalendar and NextElapseUSecRealtime), joined with the lay
// record the daemon published. A daysome- timer that belongs to no lay is shown, not hidden,
// and the manager's timers are listed even when the daemon is down: their fire brings it back.

import DaysomeCore
import DaysomeFiles
import SystemdKit

/// Reads the queue from the systemd manager.
enum ManagerQueue {
    static func pending(
        _ command: ParsedCommand, _ context: CommandContext, published: QueueSnapshot, running: Bool
    )
        -> CommandOutput
    {
        let manager: SystemdManager
        do {
            manager = try SystemdManager.connectUser(runtimeDirectory: context.environment["XDG_RUNTIME_DIR"])
        } catch {
            return .failure(.failure, "cannot reach the systemd user manager: \(error)")
        }
        let units: [ListedUnit]
        do {
            units = try manager.listUnits(matching: ["daysome-*.timer"])
        } catch {
            return .failure(.failure, "cannot list the manager's daysome- timers: \(error)")
        }
        var raw: [JSONValue] = []
        var pending: [QueueSnapshot.Entry] = []
        // The lay record by instant: a dense week joins 10,080 entries, so no linear search per entry.
        var known: [Instant: QueueSnapshot.Entry] = [:]
        for record in published.pending where known[record.at] == nil { known[record.at] = record }
        let currentLay = published.lay
        for unit in units.sorted(by: { $0.name < $1.name }) {
            guard let calendar = try? manager.timerCalendar(unit.name) else { continue }
            raw.append(
                .object(
                    JSONObject([
                        ("unit", .string(unit.name)), ("activeState", .string(unit.activeState)),
                        ("nextElapseUSecRealtime", .number(Double(calendar.nextElapse))),
                        (
                            "timersCalendar",
                            .array(
                                calendar.entries.map { entry in
                                    .object(
                                        JSONObject([
                                            ("base", .string(entry.base)), ("spec", .string(entry.spec)),
                                            ("nextElapseUSec", .number(Double(entry.nextElapse))),
                                        ]))
                                })
                        ),
                    ])))
            let lay = layNumber(of: unit.name)
            // The manager keeps an entry that has elapsed with its last elapse (systemd 252 leaves
            // a one-off spec's next elapse at the instant it fired): only those ahead are pending.
            let now = UInt64(max(0, context.now.seconds)) * 1_000_000
            for entry in calendar.entries where entry.nextElapse > now && entry.nextElapse != UInt64.max {
                let at = Instant(seconds: Int64(entry.nextElapse / 1_000_000))
                let record = lay == currentLay ? known[at] : nil
                pending.append(
                    QueueSnapshot.Entry(
                        lay: lay, at: at, local: record?.local ?? at.rfc3339, itemIds: record?.itemIds ?? [],
                        title: record?.title
                            ?? (lay == currentLay ? "(not in the lay record)" : "(belongs to no current lay)"),
                        handle: unit.name))
            }
        }
        if command.has("--raw") {
            return CommandOutput(stdout: JSONValue.array(raw).serialized(pretty: true) + "\n")
        }
        let queue = QueueSnapshot(
            backend: "systemd", display: published.display, lay: published.lay, daemonRunning: running,
            publisher: nil, pending: pending.sorted { $0.at < $1.at })
        if command.has("--json") {
            return CommandOutput(stdout: queue.json.serialized(pretty: true) + "\n")
        }
        return CommandOutput(stdout: queueTable(queue, now: context.now))
    }

    /// `daysome-lay12-3.timer` → 12.
    static func layNumber(of unit: String) -> UInt64? {
        guard unit.hasPrefix("daysome-lay") else { return nil }
        let digits = unit.dropFirst("daysome-lay".count).prefix { $0.isNumber }
        return UInt64(digits)
    }
}
