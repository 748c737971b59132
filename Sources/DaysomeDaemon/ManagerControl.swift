// The control socket: `daysomectl fire` from a systemd timer's service, and `daysomectl try`
// from a carer who wants to hear and see a call now.

import DaysomeCore
import DaysomeFiles
import Glibc
import SystemdKit

extension Manager {
    func openControlSocket() throws(DaemonError) {
        do {
            self.control = try ControlSocket(path: self.options.paths.controlSocket, loop: self.loop) {
                [weak self] request in
                self?.control(request) ?? "error: stopping"
            }
        } catch {
            throw .setup("\(error)")
        }
    }

    /// Answers one control request line: `fire <lay>` from a systemd timer's service, `try` from a
    /// carer, `ping` from a test timing the loop.
    func control(_ line: String) -> String {
        switch ControlRequest(line: line) {
        case .tryCall: return self.tryCall()
        case .ping: return "pong"
        case .fire(let lay): return self.fire(lay).line
        case nil: return FireReply.unknownRequest.line
        }
    }

    /// A fire of lay N from the systemd manager: the machine delivers what is due and says what happened.
    func fire(_ lay: UInt64) -> FireReply {
        let (reply, actions) = self.machine.fire(lay: lay, now: self.now())
        self.execute(actions)
        return reply
    }

    /// `daysomectl try`'s bell, which no call's post carries: it plays unless a respected Do Not
    /// Disturb holds calls back now, or no player exists. Returns what happened, in words for
    /// `try` to pass on.
    @discardableResult
    func playChime() -> String {
        if self.notifier?.holdsTheBell() == true {
            self.logger.log(.info, "The notification server is paused (Do Not Disturb): the bell stays silent")
            return "the bell stays silent: the notification server is paused (Do Not Disturb, respected)"
        }
        return self.ringBell()
    }

    /// Plays the bell the machine asked for (`.chime`: it already held it for a respected Do Not
    /// Disturb), where a player exists.
    @discardableResult
    func ringBell() -> String {
        guard let player = self.chimePlayer, player.player != nil else {
            return "no sound player was found (pw-play, paplay, aplay): the bell is silent"
        }
        player.play()
        return "the bell is playing"
    }

    /// `daysomectl try`: one sample call now, withdrawn after ten seconds, so a carer hears what
    /// she will hear. Over the display only the bell plays (rule 1: nothing shown over it).
    func tryCall() -> String {
        let chimeOn = self.machine.household?.load.household.settings.chime != .off
        let sound: String
        if !chimeOn {
            sound = "the bell is off (settings.chime)"
        } else if let notifier = self.notifier, notifier.readsDoNotDisturb {
            // The bell waits for the server's word on its Do Not Disturb, never the loop.
            notifier.readDoNotDisturbForTheBell { [weak self] in self?.playChime() }
            sound =
                self.respectsDoNotDisturb
                ? "the bell plays unless the server's Do Not Disturb is on (respected)" : "the bell is playing"
        } else {
            sound = self.playChime()
        }
        guard self.machine.display == .away else {
            return "\(sound); nothing shown, because the day display is in front (rule 1)"
        }
        guard self.notifier != nil else { return "\(sound); no notifier" }
        // The machine posts the sample and takes it away: after ten seconds, or on her return.
        self.handle(.trySample)
        return "\(sound); a sample call is shown for ten seconds"
    }
}
