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
        guard ControlRequest(line: line) == .pending else { return answer(self.control(line)) }
        self.relayPending(answer)
    }

    /// `pending` on the systemd backend: the manager's own daysome- timers and their calendars,
    /// asked over the connection this daemon holds and answered as the manager said them, never
    /// from what this daemon laid. Anything else (the wheel, no connection, a failed call) is
    /// answered with an error line, and `daysomectl` then asks the manager itself.
    func relayPending(_ answer: @escaping (String) -> Void) {
        guard let backend = self.systemd else { return answer("error: not the systemd backend") }
        backend.manager.listTimers(matching: ["daysome-*.timer"]) { result in
            switch result {
            case .success(let timers):
                answer(
                    ManagerTimers(
                        units: timers.map { timer in
                            ManagerTimers.Unit(
                                name: timer.unit.name, activeState: timer.unit.activeState,
                                entries: timer.entries.map {
                                    ManagerTimers.Entry(base: $0.base, spec: $0.spec, nextElapse: $0.nextElapse)
                                })
                        }
                    ).line)
            case .failure(let error): answer("error: the manager did not list its timers: \(error)")
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
        case .pending: answer = "error: pending is answered later"
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
