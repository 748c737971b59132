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

    /// Reads the persisted state; a missing or unreadable file is a fresh start.
    static func readPersisted(_ paths: Paths) -> PersistedState {
        guard let bytes = try? FileIO.read(paths.layFile, limit: 1 << 20, followLinks: false),
            let json = try? JSONParser.parse(bytes)
        else { return PersistedState() }
        return PersistedState(json: json)
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
                            JSONObject([
                                ("name", server.name.map { .string($0) } ?? .null), ("present", .bool(server.present)),
                                ("capabilities", .array(server.capabilities.map { .string($0) })),
                            ]))
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
