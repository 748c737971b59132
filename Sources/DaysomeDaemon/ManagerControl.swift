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

    /// A fire of lay N from the systemd manager: deliver what is due, and say what happened.
    func fire(_ lay: UInt64) -> FireReply {
        let before = Set(self.machine.persisted.delivered.map(\.key))
        self.handle(.fired(lay: lay))
        let shown = self.machine.persisted.delivered
        if shown.contains(where: { !before.contains($0.key) }) { return .delivered }
        // With exact alarms the daemon called at the minute on its own deadline, before this fire.
        let now = self.now()
        if self.machine.currentLay?.number == lay, self.machine.display == .away,
            let call = shown.last(where: { $0.key.lay == lay && $0.key.at <= now })
        {
            return .alreadyDelivered(at: call.key.at)
        }
        return .nothingDue(lay: lay)
    }

    /// Plays the bell, unless a respected Do Not Disturb holds calls back or no player exists.
    /// Returns what happened, in words for `try` to pass on.
    @discardableResult
    func playChime() -> String {
        if (self.notifier as? FreedesktopNotifier)?.holdsTheBell() == true {
            self.logger.log(.info, "The notification server is paused (Do Not Disturb): the bell stays silent")
            return "the bell stays silent: the notification server is paused (Do Not Disturb, respected)"
        }
        guard let player = self.chimePlayer, player.player != nil else {
            return "no sound player was found (pw-play, paplay, aplay): the bell is silent"
        }
        player.play()
        return "the bell is playing"
    }

    /// `daysomectl try`: one sample call now, withdrawn after ten seconds, so a carer hears what
    /// she will hear. Over the display only the bell plays (rule 1: nothing shown over it).
    func tryCall() -> String {
        let now = self.now()
        let chimeOn = self.machine.household?.load.household.settings.chime != .off
        let sound: String
        if !chimeOn {
            sound = "the bell is off (settings.chime)"
        } else if let notifier = self.notifier as? FreedesktopNotifier {
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
        guard let notifier = self.notifier else { return "\(sound); no notifier" }
        let zone = self.machine.household?.load.household.zone ?? Zone(name: "UTC", rules: .utc)
        let local = zone.local(now)
        let parts = self.machine.household?.load.household.dayParts ?? DayParts()
        let words = self.machine.household?.load.household.words ?? .english
        let sample = Start(
            at: now, local: local, itemIds: [],
            heading: Content.heading(date: local.date, time: local.clockTime, dayParts: parts, words: words),
            title: "Daysome", body: "This is how a call looks and sounds", expiresAt: now.adding(seconds: 10), dst: nil)
        self.sample?.close?.cancel()
        if let id = self.sample?.id { self.notifier?.close(id) }
        self.sampleGeneration += 1
        let generation = self.sampleGeneration
        self.sample = (nil, nil, generation)
        notifier.post(sample, now: now) { [weak self] result in
            guard let self, case .success(let id) = result else { return }
            // The display came back (or another sample replaced this one) before the server's id
            // arrived: take it away at once (rule 1), never leave it for ten seconds.
            guard self.sample?.generation == generation, self.machine.display == .away else {
                self.notifier?.close(id)
                return
            }
            let close = try? self.loop.addTimer(clock: CLOCK_MONOTONIC, after: 10_000_000, description: "try") {
                [weak self] _ in
                self?.notifier?.close(id)
                self?.sample = nil
            }
            self.sample = (id, close, generation)
        }
        return "\(sound); a sample call is shown for ten seconds"
    }
}
