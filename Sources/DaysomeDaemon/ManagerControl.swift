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
                handler: { [weak self] request in self?.control(request) ?? "error: stopping" })
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

    /// Answers one control request line: `fire <lay>` from a systemd timer's service, `try` from a
    /// carer, `ping` from a test timing the loop.
    package func control(_ line: String) -> String {
        let answer: String
        switch ControlRequest(line: line) {
        case .tryCall: answer = self.tryCall()
        case .ping: answer = "pong"
        case .fire(let lay): answer = self.fire(lay).line
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
