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

    /// What a live daemon's relay said: the text `pending --json` prints, joined by the daemon,
    /// or the manager's timers, for this process to join.
    enum Relayed {
        case printed(String)
        case timers(ManagerTimers)
    }

    /// Asks the daemon at `paths` to relay the manager's timers (`printed`: and to join them, for
    /// `--json`); nil when it does not answer within `relayTimeout`, refuses, or answers with what
    /// this version cannot read.
    static func relay(_ paths: Paths, printed: Bool) -> Relayed? {
        let asked = printed ? ControlRequest.pendingPrinted : .pending
        // The printed answer is whole once its count of bytes is there: not waiting for the
        // daemon's close spares the round trip its closing takes.
        guard
            case .answered(let reply) = exchange(
                paths.controlSocket, asked.line, timeout: Self.relayTimeout,
                until: printed ? PrintedQueue.isWhole : { $0.contains(0x0A) })
        else { return nil }
        if printed, let text = PrintedQueue.text(of: reply), QueueSnapshot.hasShape(text, backend: "systemd") {
            return .printed(String(decoding: text, as: UTF8.self))
        }
        return ManagerTimers(line: String(decoding: reply.prefix { $0 != 0x0A }, as: UTF8.self)).map { .timers($0) }
    }

    /// `pending` for the systemd backend. `relayed` is what the daemon's relay said when the
    /// caller already asked it (`.some(nil)`: it did not answer, and is not asked again); left
    /// out, it is asked here.
    static func pending(
        _ command: ParsedCommand, _ context: CommandContext, paths: Paths, published: QueueSnapshot, running: Bool,
        relayed: Relayed?? = .none
    )
        -> CommandOutput
    {
        let raw = command.has("--raw")
        // --raw prints properties the relay does not carry: always read from the manager here.
        if running, !raw {
            switch relayed ?? self.relay(paths, printed: command.has("--json")) {
            case .printed(let text)?: return CommandOutput(stdout: text)
            case .timers(let timers)?:
                return self.output(command, context, timers, published: published, running: running)
            case nil: break
            }
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
        timers.queue(joinedWith: published, running: running, now: now)
    }
}
