// `daysomectl pending` for the systemd backend: every start read back from the user's manager
// itself (each daysome- timer's TimersCalendar: expressions naming the starts, CalendarSpec, and
// each one's next elapse), joined with the lay record the daemon published. A daysome- timer
// that belongs to no lay is shown, not hidden, and the manager's timers are listed even when
// the daemon is down: their fire brings it back.
//
// A live daemon already holds a connection to the manager: `pending` asks it to relay the
// manager's answer (`pending` on the control socket), which spares this process the manager's
// handshake and a new bus connection, the most of what it cost. The daemon answers with what
// the manager said at the time of asking (`ManagerTimers`), never with what it laid; the join
// below is the same for both paths, so they print the same bytes. With no daemon, no answer
// within `relayTimeout`, an error or a line this version cannot read (an older daemon),
// `pending` asks the manager itself, as before.

import DaysomeCore
import DaysomeFiles
import SystemdKit

/// Reads the queue from the systemd manager.
enum ManagerQueue {
    /// How long `pending` waits for a live daemon's relay, in seconds, before it asks the manager
    /// itself: the relay takes about a millisecond; a stopped or stalled daemon never answers.
    static let relayTimeout = 1

    static func pending(
        _ command: ParsedCommand, _ context: CommandContext, paths: Paths, published: QueueSnapshot, running: Bool
    )
        -> CommandOutput
    {
        let raw = command.has("--raw")
        // --raw prints properties the relay does not carry: always read from the manager here.
        if running, !raw,
            case .success(let line) = request(
                paths.controlSocket, ControlRequest.pending.line, timeout: Self.relayTimeout),
            let timers = ManagerTimers(line: line)
        {
            return self.output(command, context, timers, published: published, running: running)
        }
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
        var rawUnits: [JSONValue] = []
        var timers: [ManagerTimers.Unit] = []
        for unit in units {
            // The path the list gave and one property read: each call to the manager is a round
            // trip, the most of what `pending` costs (the timer's own next elapse only for --raw).
            guard
                let calendar = try? manager.timerCalendar(
                    path: unit.path.isEmpty ? manager.unitPath(unit.name) : unit.path, timerNextElapse: raw)
            else { continue }
            guard raw else {
                timers.append(
                    ManagerTimers.Unit(
                        name: unit.name, activeState: unit.activeState,
                        entries: calendar.entries.map {
                            ManagerTimers.Entry(base: $0.base, spec: $0.spec, nextElapse: $0.nextElapse)
                        }))
                continue
            }
            rawUnits.append(
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
        }
        if raw {
            // Sorted by name, as before the relay: the manager lists in its own order.
            let sorted = rawUnits.sorted {
                ($0.objectValue?["unit"]?.stringValue ?? "") < ($1.objectValue?["unit"]?.stringValue ?? "")
            }
            return CommandOutput(stdout: JSONValue.array(sorted).serialized(pretty: true) + "\n")
        }
        return self.output(command, context, ManagerTimers(units: timers), published: published, running: running)
    }

    /// The manager's timers joined with the lay record the daemon published, printed: one join
    /// for the relayed and the direct path.
    static func output(
        _ command: ParsedCommand, _ context: CommandContext, _ timers: ManagerTimers, published: QueueSnapshot,
        running: Bool
    ) -> CommandOutput {
        let queue = self.queue(timers, published: published, running: running, now: context.now)
        if command.has("--json") { return CommandOutput(stdout: queue.serialized) }
        return CommandOutput(stdout: queueTable(queue, now: context.now))
    }

    /// Every start the manager's timers still hold, with its lay record's items and title.
    static func queue(_ timers: ManagerTimers, published: QueueSnapshot, running: Bool, now: Instant) -> QueueSnapshot {
        var pending: [QueueSnapshot.Entry] = []
        var known = LayRecord(published.pending)
        let currentLay = published.lay
        for unit in timers.units.sorted(by: { $0.name < $1.name }) {
            let lay = layNumber(of: unit.name)
            for entry in unit.entries {
                // 0 or UInt64.max: the entry will not elapse again.
                guard entry.nextElapse != 0, entry.nextElapse != UInt64.max else { continue }
                let next = Instant(seconds: Int64(entry.nextElapse / 1_000_000))
                // An entry is an expression naming several starts (CalendarSpec); the manager's
                // next elapse says which are still ahead. systemd 252 leaves an entry that elapsed
                // for the last time at that instant, so only those after now are pending. A spec
                // this daemon did not write stands for its next elapse.
                let ahead = (CalendarSpec.instants(of: entry.spec) ?? [next]).filter { $0 >= next && $0 > now }
                for at in ahead {
                    // Each start at that instant once: two entries naming it elapse once.
                    let records = lay == currentLay ? known.take(at) : []
                    guard !records.isEmpty else {
                        pending.append(
                            QueueSnapshot.Entry(
                                lay: lay, at: at, local: at.rfc3339, itemIds: [],
                                title: lay == currentLay ? "(not in the lay record)" : "(belongs to no current lay)",
                                handle: unit.name))
                        continue
                    }
                    for record in records {
                        pending.append(
                            QueueSnapshot.Entry(
                                lay: lay, at: at, local: record.local, itemIds: record.itemIds, title: record.title,
                                handle: unit.name))
                    }
                }
            }
        }
        return QueueSnapshot(
            backend: "systemd", display: published.display, lay: published.lay, daemonRunning: running,
            publisher: nil, pending: pending.sorted { $0.at < $1.at })
    }

    /// The lay record's entries by instant, each instant's taken once. Ordered and searched, not
    /// hashed: a dense week joins 10,080 entries, and a hashed table's first use (its type made at
    /// run time) cost `pending` more than the join itself.
    struct LayRecord {
        private let entries: [QueueSnapshot.Entry]
        private var taken: [Bool]

        init(_ published: [QueueSnapshot.Entry]) {
            // Stable: entries at one instant keep the record's order.
            self.entries = published.indices.sorted {
                (published[$0].at, $0) < (published[$1].at, $1)
            }.map { published[$0] }
            self.taken = [Bool](repeating: false, count: published.count)
        }

        /// The entries at `at`, in the record's order; none once taken.
        mutating func take(_ at: Instant) -> ArraySlice<QueueSnapshot.Entry> {
            var low = 0
            var high = self.entries.count
            while low < high {
                let middle = (low + high) / 2
                if self.entries[middle].at < at { low = middle + 1 } else { high = middle }
            }
            var end = low
            while end < self.entries.count && self.entries[end].at == at { end += 1 }
            guard low < end, !self.taken[low] else { return [] }
            self.taken[low] = true
            return self.entries[low..<end]
        }
    }

    /// `daysome-lay12-3.timer` → 12.
    static func layNumber(of unit: String) -> UInt64? {
        guard unit.hasPrefix("daysome-lay") else { return nil }
        let digits = unit.dropFirst("daysome-lay".count).prefix { $0.isNumber }
        return UInt64(digits)
    }
}
