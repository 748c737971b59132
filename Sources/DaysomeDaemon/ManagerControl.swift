// The control socket: `daysomectl fire` from a systemd timer's service, and `daysomectl try`
// from a carer who wants to hear and see a call now.

import DaysomeCore
import DaysomeFiles
import Glibc
import SystemdKit

extension Manager {
    func openControlSocket() throws(DaemonError) {
        do {
            self.control = try ControlSocket(
                path: self.options.paths.controlSocket, loop: self.loop,
                limitChanged: { [weak self] in self?.controlSocketLimitChanged() },
                handler: { [weak self] request, answer in
                    guard let self else { return answer("error: stopping") }
                    self.control(request, answer: answer)
                })
        } catch {
            throw .setup("\(error)")
        }
    }

    /// The control socket reached its descriptor limit, or is below it again: said in the journal
    /// and the status.
    func controlSocketLimitChanged() {
        if self.control?.atDescriptorLimit == true {
            self.logger.log(
                .warning,
                "The control socket '\(self.options.paths.controlSocket)' is at the descriptor limit: "
                    + "clients wait until one closes")
        } else {
            self.logger.log(.notice, "The control socket accepts clients again")
        }
        self.publish()
    }

    /// Answers one control request line, at once or, for `pending`, when the manager's replies
    /// came (the loop goes on meanwhile).
    package func control(_ line: String, answer: @escaping (String) -> Void) {
        switch ControlRequest(line: line) {
        case .pending:
            self.relayPending { heard in
                switch heard {
                case .success(let timers): answer(timers.line)
                case .failure(let refused): answer("error: \(refused)")
                }
            }
        case .pendingPrinted:
            self.relayPending { [weak self] heard in
                switch heard {
                case .success(let timers): answer(self?.printedQueue(timers) ?? timers.line)
                case .failure(let refused): answer("error: \(refused)")
                }
            }
        default: answer(self.control(line))
        }
    }

    /// What `daysomectl pending --json` prints: `timers` joined with this daemon's own lay record,
    /// as daysomectl would join them; the timers' line when the text is too long for one answer.
    /// The answer is kept while the manager's word and the record it was made of hold, and until
    /// its first start's minute: pending asked again and again (a tester's loop) is joined once.
    func printedQueue(_ timers: ManagerTimers) -> String {
        let now = self.now()
        let key = PrintedAnswer.Key(queue: QueueKey(self.machine), timers: timers)
        if let kept = self.printedAnswer, kept.key == key, now < kept.until { return kept.text }
        let record = self.publisher.queue(self.machine, backend: self.options.backend)
        let queue = timers.queue(joinedWith: record, running: true, now: now)
        let text = queue.serialized
        let answer = text.utf8.count <= PrintedQueue.limit ? PrintedQueue.answer(text) : timers.line
        // Only what the manager said and has announced no change to since stands for a later question.
        self.printedAnswer =
            self.systemd?.timersHeard == timers
            ? PrintedAnswer(key: key, until: queue.pending.first?.at ?? Instant(seconds: .max), text: answer) : nil
        return answer
    }

    /// `pending` on the systemd backend: the manager's own daysome- timers and their calendars,
    /// asked over the connection this daemon holds and answered as the manager said them, never
    /// from what this daemon laid. What it said stands until it announces a change (on its private
    /// socket it announces every one, and what it already sent is heard before the answer): then
    /// the answer needs no question. Anything else (the wheel, no connection, a failed call) is
    /// answered with an error line, and `daysomectl` then asks the manager itself.
    func relayPending(_ answer: @escaping (Result<ManagerTimers, RelayRefused>) -> Void) {
        guard let backend = self.systemd else { return answer(.failure(RelayRefused("not the systemd backend"))) }
        backend.manager.catchUp()
        if let heard = backend.timersHeard { return answer(.success(heard)) }
        let asked = backend.changesHeard
        backend.manager.listTimers(matching: ["daysome-*.timer"]) { [weak backend] result in
            switch result {
            case .success(let listed):
                let timers = ManagerTimers(
                    units: listed.map { timer in
                        ManagerTimers.Unit(
                            name: timer.unit.name, activeState: timer.unit.activeState,
                            entries: timer.entries.map {
                                ManagerTimers.Entry(base: $0.base, spec: $0.spec, nextElapse: $0.nextElapse)
                            })
                    })
                backend?.heard(timers, askedAt: asked)
                answer(.success(timers))
            case .failure(let error): answer(.failure(RelayRefused("the manager did not list its timers: \(error)")))
            }
        }
    }

    /// Answers one control request line at once: `fire <lay>` from a systemd timer's service, `try` from a
    /// carer, `ping` from a test timing the loop.
    package func control(_ line: String) -> String {
        let answer: String
        switch ControlRequest(line: line) {
        case .tryCall: answer = self.tryCall()
        case .ping: answer = "pong"
        case .fire(let lay): answer = self.fire(lay).line
        // Only `control(_:answer:)` relays it: a caller that needs the answer now gets none.
        case .pending, .pendingPrinted: answer = "error: pending is answered later"
        case nil: answer = FireReply.unknownRequest.line
        }
        // An answer means the files say so too (a test's `ping` waits for the loop to catch up).
        self.publishNow()
        return answer
    }

    /// A fire of lay N from the systemd manager: the machine delivers what is due and says what happened.
    func fire(_ lay: UInt64) -> FireReply {
        let (reply, actions) = self.machine.fire(lay: lay, now: self.now())
        self.execute(actions)
        return reply
    }

    /// Plays the bell the machine asked for (`.chime`: it already held it for a respected Do Not
    /// Disturb), where a player exists.
    func ringBell() {
        self.chimePlayer?.play()
    }

    /// Whether a sound player was found.
    var hasPlayer: Bool { self.chimePlayer?.player != nil }

    /// `daysomectl try`: the machine decides the bell and the sample call (`tryCall`), from what
    /// the shell can tell; the sample leaves after ten seconds, or on her return.
    func tryCall() -> String {
        let facts = TryFacts(
            notifier: self.notifier != nil, readsDoNotDisturb: self.notifier?.readsDoNotDisturb == true,
            bellHeld: self.notifier?.holdsTheBell() == true, respectsDoNotDisturb: self.respectsDoNotDisturb,
            player: self.hasPlayer)
        let (reply, actions) = self.machine.tryCall(facts, now: self.now())
        self.execute(actions)
        return reply
    }

    /// The server's word on its Do Not Disturb, read afresh for a try's bell: the bell waits for
    /// it, never the loop.
    func readDoNotDisturbForTheBell() {
        guard let notifier = self.notifier else { return }
        notifier.readDoNotDisturbForTheBell { [weak self] in
            guard let self else { return }
            // The notifier answering now: a reconnect meanwhile replaced the one asked.
            let held = self.notifier?.holdsTheBell() == true
            self.execute(DaemonMachine.tryBell(held: held, player: self.hasPlayer).actions)
        }
    }
}

/// Why the daemon did not relay the manager's timers: said on the control socket after `error:`.
struct RelayRefused: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}

/// An answer to `pending --json`, and what it stands on: the record (`QueueKey`), the manager's
/// timers as it last said them, and the time before the first start it lists leaves the queue.
struct PrintedAnswer {
    struct Key: Equatable {
        let queue: QueueKey
        let timers: ManagerTimers
    }

    let key: Key
    let until: Instant
    let text: String
}
