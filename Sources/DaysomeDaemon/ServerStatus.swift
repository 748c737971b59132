// What `daysomectl status` says of the notification server beyond its name: what the daemon
// does for it ("On every desktop": the urgency chosen and why, its Do Not Disturb where it
// tells it, and whether the household lets a Do Not Disturb hold calls back).

import DaysomeCore

extension ServerInfo {
    /// The status file's `notificationServer`: who answers, the urgency chosen and why, and its
    /// Do Not Disturb.
    func status(lastRefusal: StatusSnapshot.Refusal?, respectDoNotDisturb: Bool) -> StatusSnapshot.NotificationServer {
        let published = OnEveryDesktop.publishedDoNotDisturb(self.doNotDisturb, knowledge: self.doNotDisturbSource)
        return StatusSnapshot.NotificationServer(
            name: self.name, present: self.present, capabilities: self.capabilities,
            urgency: self.choice?.urgency.name, urgencyReason: self.choice?.reason, doNotDisturb: published,
            waiting: self.waiting, lastRefusal: lastRefusal,
            doNotDisturbSource: self.present ? self.doNotDisturbSource : nil,
            doNotDisturbLastRead: self.doNotDisturbSource == .readBeforeCalls ? self.doNotDisturb : nil,
            doNotDisturbNote: self.present
                ? OnEveryDesktop.doNotDisturbNote(
                    serverName: self.name, vendor: self.vendor, published: published,
                    knowledge: self.doNotDisturbSource, respectDoNotDisturb: respectDoNotDisturb) : nil)
    }
}

extension Manager {
    /// Whether a Do Not Disturb holds calls back: `settings.respectDoNotDisturb` where the
    /// household says, else the daemon's `--dnd` (default override: seen through a forgotten one).
    var respectsDoNotDisturb: Bool {
        self.machine.household?.load.household.settings.respectDoNotDisturb ?? (self.options.doNotDisturb == .respect)
    }
}
