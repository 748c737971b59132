// What testers inspect: the live queue and status in the runtime directory (rewritten
// atomically after every change), the lay record and bounded history in the state directory.

import DaysomeCore
import DaysomeFiles
import Glibc

/// Writes the daemon's files.
final class Publisher {
    let paths: Paths
    private var history: HistoryFile

    init(paths: Paths) {
        self.paths = paths
        self.history = HistoryFile(path: paths.historyFile)
    }

    /// Reads the persisted state; a missing or unreadable file is a fresh start, except for the
    /// lay counter: a power cut can leave lay.json empty or torn (it is replaced by rename, not
    /// synced), and the history still names every lay number used, so none is ever used twice.
    static func readPersisted(_ paths: Paths) -> PersistedState {
        var state = PersistedState()
        if let bytes = try? FileIO.read(paths.layFile, limit: 1 << 20, followLinks: false, regularOnly: true),
            let json = try? JSONParser.parse(bytes)
        {
            state = PersistedState(json: json)
        }
        let highest = HistoryFile.read(path: paths.historyFile).map(\.lay).max() ?? 0
        state.layCounter = max(state.layCounter, highest)
        return state
    }

    /// Brings the history up to lay.json after a daemon was killed between writing one and the
    /// other (lay.json is written first, the history lines after): the current lay laid, an
    /// earlier one cleared, and a call kept but never posted (its post comes after its history
    /// line) dropped, and forgotten so that no withdrawal is recorded for it later. Returns the
    /// state to start from and the lines it added.
    func catchUpHistory(_ state: PersistedState, now: Instant) -> (PersistedState, [HistoryRecord]) {
        var laid: Set<UInt64> = []
        var cleared: Set<UInt64> = []
        var told: Set<DeliveryKey> = []
        for record in HistoryFile.read(path: self.paths.historyFile) {
            switch record.event {
            case .laid: laid.insert(record.lay)
            case .cleared: cleared.insert(record.lay)
            case .delivered, .dropped: if let at = record.at { told.insert(DeliveryKey(lay: record.lay, at: at)) }
            default: break
            }
        }
        let note = "written at start-up: the daemon stopped before it wrote this line"
        var added: [HistoryRecord] = []
        for lay in laid.subtracting(cleared).sorted() where lay != state.lay?.number {
            added.append(HistoryRecord(time: now, event: .cleared, lay: lay, reason: note))
        }
        if let lay = state.lay, !laid.contains(lay.number), !cleared.contains(lay.number) {
            added.append(HistoryRecord(time: lay.from, event: .laid, lay: lay.number, reason: note))
        }
        var kept = state
        for call in state.delivered where !told.contains(call.key) {
            added.append(
                HistoryRecord(
                    time: now, event: .dropped, lay: call.key.lay, at: call.key.at, itemIds: call.itemIds,
                    reason: "the daemon stopped before it posted this call"))
            kept.delivered.removeAll { $0.key == call.key }
        }
        if !added.isEmpty {
            do {
                try self.history.append(added)
            } catch {
                return (state, [])
            }
        }
        return (kept, added)
    }

    func persist(_ state: PersistedState) throws(FileError) {
        try FileIO.writeAtomically(self.paths.layFile, state.json.serialized(pretty: true) + "\n")
    }

    func record(_ records: [HistoryRecord]) throws(FileError) {
        try self.history.append(records)
    }

    /// The queue, in `pending --json`'s shape.
    func queueJSON(_ machine: DaemonMachine, backend: BackendKind) -> JSONValue {
        let zone = machine.household?.load.household.zone
        // The wheel names its slot; with the systemd backend the manager holds the start, and
        // `daysomectl pending` reads it back from there, joining this record by instant.
        let handles = Dictionary(machine.pendingStarts.map { ($0.start.at, "wheel:\($0.id.rawValue)") }) { first, _ in
            first
        }
        let pending = machine.laidStarts.map { start -> JSONValue in
            .object(
                JSONObject([
                    ("lay", .number(Double(machine.currentLay?.number ?? 0))), ("at", .string(start.at.rfc3339)),
                    ("local", .string(zone?.local(start.at).rfc3339 ?? start.local.rfc3339)),
                    ("itemIds", .array(start.itemIds.map { .string($0) })), ("title", .string(start.title)),
                    ("handle", .string(handles[start.at] ?? "systemd")),
                    ("expiresAt", .string(start.expiresAt.rfc3339)),
                ]))
        }
        return .object(
            JSONObject([
                ("backend", .string(backend.rawValue)), ("display", .string(machine.display.rawValue)),
                ("lay", machine.currentLay.map { .number(Double($0.number)) } ?? .null), ("daemonRunning", .bool(true)),
                ("pid", .number(Double(getpid()))), ("timeZone", zone.map { .string($0.name) } ?? .null),
                ("pending", .array(pending)),
            ]))
    }

    /// The status, in `status --json`'s shape (without `running`, which the tool decides from the lock).
    func statusJSON(
        _ machine: DaemonMachine, options: DaemonOptions, server: ServerInfo,
        extras: [(key: String, value: JSONValue)] = []
    ) -> JSONValue {
        var errors: [JSONValue] = []
        if let error = machine.householdError {
            errors.append(
                .object(
                    JSONObject([
                        ("file", .string(error.file)), ("itemId", .null),
                        ("field", error.field.map { .string($0) } ?? .null),
                        (
                            "message",
                            .string(
                                error.message + (machine.household == nil ? "" : "; keeping the last good household"))
                        ),
                    ])))
            errors += error.problems.map(\.json)
        }
        errors += (machine.household?.load.problems ?? []).map(\.json)
        let next = machine.laidStarts.first
        let household: JSONValue = .object(
            JSONObject([
                ("path", .string(options.paths.household)),
                ("loadedAt", machine.household.map { .string($0.loadedAt.rfc3339) } ?? .null),
                ("items", .number(Double(machine.household?.load.household.items.count ?? 0))),
                ("timeZone", machine.household.map { .string($0.load.household.zone.name) } ?? .null),
                ("errors", .array(errors)),
            ]))
        let canDeliver = machine.notifyInOtherApps && server.present && machine.household != nil
        return .object(
            JSONObject(
                [
                    ("running", .bool(true)), ("pid", .number(Double(getpid()))),
                    ("display", .string(machine.display.rawValue)),
                    ("lay", machine.currentLay.map { .number(Double($0.number)) } ?? .null),
                    ("backend", .string(options.backend.rawValue)), ("notifier", .string(options.notifier.rawValue)),
                    ("notifyInOtherApps", .bool(machine.notifyInOtherApps)),
                    (
                        "notificationServer",
                        .object(
                            JSONObject(
                                [
                                    ("name", server.name.map { .string($0) } ?? .null),
                                    ("present", .bool(server.present)),
                                    ("capabilities", .array(server.capabilities.map { .string($0) })),
                                ] + server.statusFields))
                    ),
                    ("canDeliver", .bool(canDeliver)),
                    ("laidUntil", machine.currentLay.map { .string($0.laidUntil.rfc3339) } ?? .null),
                    (
                        "nextStart",
                        next.map {
                            .object(JSONObject([("at", .string($0.at.rfc3339)), ("title", .string($0.title))]))
                        }
                            ?? .null
                    ),
                    ("pending", .number(Double(machine.laidStarts.count))),
                    ("delivered", .number(Double(machine.persisted.delivered.count))),
                    ("grace", .number(Double(options.grace))),
                    ("household", household),
                    ("displayStatePath", .string(options.paths.displayState)),
                    ("runtimeDirectory", .string(options.paths.runtimeDirectory)),
                    ("stateDirectory", .string(options.paths.stateDirectory)),
                ] + extras))
    }

    func publish(queue: JSONValue, status: JSONValue) throws(FileError) {
        try FileIO.writeAtomically(self.paths.queueFile, queue.serialized(pretty: true) + "\n")
        try FileIO.writeAtomically(self.paths.statusFile, status.serialized(pretty: true) + "\n")
    }
}
