// `daysomectl try`: one sample call now, so a carer sees what she will see. It is a call like
// the others for rule 1 (never over the display: taken back on her return, also while its post
// is out) and leaves by itself after a short while; it belongs to no lay, so history and the
// state file never hold it.

/// The carer's sample call on screen (or on its way there).
struct SampleCall: Sendable {
    let key: DeliveryKey
    var notificationId: UInt32?
    /// The server instance that gave the id.
    var server: String?
    var timer: TimerID?
}

extension DaemonMachine {
    /// Seconds a sample call stays on screen.
    static let sampleSeconds: Int64 = 10

    /// A sample call now, in the household's words, unless the display is in front (rule 1).
    mutating func trySample(now: Instant) -> [MachineAction] {
        guard self.display == .away else { return [] }
        var actions = self.takeSampleAway()
        let zone = self.household?.load.household.zone ?? Zone(name: "UTC", rules: .utc)
        let local = zone.local(now)
        let household = self.household?.load.household
        let start = Start(
            at: now, local: local, itemIds: [],
            heading: Content.heading(
                date: local.date, time: local.clockTime, dayParts: household?.dayParts ?? DayParts(),
                words: household?.words ?? .english),
            title: "Daysome", body: "This is how a call looks and sounds",
            expiresAt: now.adding(seconds: Self.sampleSeconds), dst: nil)
        // Its own key, also for a second try in the same second: the first one's answer, if it
        // is still out, must find the first (taken back, and closed), not this one.
        let keyAt = max(now, self.lastSampleAt.map { $0.adding(seconds: 1) } ?? now)
        self.lastSampleAt = keyAt
        let key = DeliveryKey.sample(at: keyAt)
        var sample = SampleCall(key: key)
        if case .scheduled(let id) = self.wheel.insert(.sampleEnd, at: start.expiresAt.seconds) { sample.timer = id }
        self.sample = sample
        self.inHand.posting(key, to: self.serverIdentity, at: now, repost: nil)
        actions.append(.post(key, start))
        return actions
    }

    /// The sample leaves: closed where the server gave its id, taken back where its post is out.
    mutating func takeSampleAway() -> [MachineAction] {
        guard let sample = self.sample else { return [] }
        self.sample = nil
        if let timer = sample.timer { self.wheel.cancel(timer) }
        if let id = sample.notificationId { return [.close(sample.key, notificationId: id, server: sample.server)] }
        _ = self.inHand.takeBack(sample.key, saying: nil)
        return []
    }

    /// The server answered the sample's post: keep its id, or close it at once if it was taken back.
    mutating func samplePosted(_ key: DeliveryKey, id: UInt32, server: String?, takenBack: Bool) -> [MachineAction] {
        guard !takenBack, self.sample?.key == key else { return [.close(key, notificationId: id, server: server)] }
        self.sample?.notificationId = id
        self.sample?.server = server
        return []
    }
}
