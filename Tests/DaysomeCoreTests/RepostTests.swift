// A call no notification server could take (MATE's idle server quitting as the post tried to
// start it) is posted again while rule 2 allows a late call, and the bell waits for a server
// that took it. A call the server refused is not tried again.

import DaysomeCore
import Testing

private let unavailable = "org.freedesktop.DBus.Error.Spawn.ChildExited: Process org.freedesktop.Notifications exited"

private func chimes(_ actions: [MachineAction]) -> Int { actions.filter { $0 == .chime }.count }

/// Whether the machine lets `key`'s Notify leave at `now` (a Bool, so a failure prints no machine).
private func sends(_ daemon: VirtualDaemon, _ key: DeliveryKey, _ now: Instant) -> Bool {
    daemon.machine.maySend(key, now: now)
}

@Suite("Posting again a call no server took")
struct RepostTests {
    let morning = instant("2026-06-01T08:00:00Z")
    let lunch = instant("2026-06-01T12:00:00Z")

    /// Lunch is due with replies held: its post is in flight.
    func lunchInFlight() -> VirtualDaemon {
        var daemon = VirtualDaemon(lunchAndTea(), now: self.morning, display: .away)
        daemon.holdReplies = true
        daemon.run(until: self.lunch)
        return daemon
    }

    mutating func failAll(_ daemon: inout VirtualDaemon, failure: PostFailure) {
        let held = daemon.heldPosts
        daemon.heldPosts = []
        for key in held { daemon.send(.postFailed(key, reason: unavailable, failure: failure)) }
    }

    @Test("A call no server could take is posted again within seconds, and the bell rings only once a server takes it")
    mutating func postedAgainWhenNoServerAnswered() {
        var daemon = self.lunchInFlight()
        #expect(daemon.posts.count == 1)
        #expect(chimes(daemon.actions) == 0)
        self.failAll(&daemon, failure: .serverUnavailable)
        #expect(daemon.machine.awaitsAServer, "status keeps saying why the call waits")
        daemon.run(until: self.lunch.adding(seconds: 1))
        #expect(daemon.posts.count == 2)
        #expect(daemon.posts.last?.at == self.lunch.adding(seconds: 1))
        let key = daemon.heldPosts[0]
        daemon.heldPosts = []
        daemon.reply(key)
        #expect(!daemon.machine.awaitsAServer)
        #expect(chimes(daemon.actions) == 1)
        #expect(daemon.events(.dropped).isEmpty)
        #expect(daemon.machine.persisted.delivered.first?.notificationId != nil)
        // Nothing more is posted once the server took it.
        daemon.run(until: self.lunch.adding(seconds: 120))
        #expect(daemon.posts.count == 2)
    }

    @Test("A call no server takes within the grace window is dropped and recorded, after a few spaced attempts")
    mutating func droppedAfterTheGraceWindow() {
        var daemon = self.lunchInFlight()
        var seen = 0
        while daemon.machine.persisted.delivered.contains(where: { $0.notificationId == nil }) && seen < 100 {
            self.failAll(&daemon, failure: .serverUnavailable)
            guard let next = daemon.machine.wheel.nextDeadline, next <= self.lunch.seconds + 300 else { break }
            daemon.run(until: Instant(seconds: next))
            seen += 1
        }
        let times = daemon.posts.map { $0.at.seconds - self.lunch.seconds }
        // 1, 2, 4, 8 s apart, then every 15 s: never a busy loop, never after the grace window.
        #expect(Array(times.prefix(5)) == [0, 1, 3, 7, 15])
        #expect(times.allSatisfy { $0 <= 300 })
        #expect(zip(times, times.dropFirst()).allSatisfy { $1 - $0 >= 1 })
        let dropped = daemon.events(.dropped)
        #expect(dropped.count == 1)
        #expect(dropped.first?.reason?.contains("no server took it within the grace window") == true)
        #expect(daemon.machine.persisted.delivered.isEmpty)
        #expect(!daemon.machine.awaitsAServer)
        #expect(chimes(daemon.actions) == 0)
    }

    @Test("A call the server refused is dropped at once, not posted again")
    mutating func refusedIsDropped() {
        var daemon = self.lunchInFlight()
        self.failAll(&daemon, failure: .refused)
        daemon.run(until: self.lunch.adding(seconds: 60))
        #expect(daemon.posts.count == 1)
        #expect(daemon.events(.dropped).count == 1)
    }

    @Test("A call the bus refused to send is named as Daysome's own message in history, not blamed on the server")
    mutating func anUnsentCallIsNamedAsOurs() {
        var daemon = self.lunchInFlight()
        let held = daemon.heldPosts
        daemon.heldPosts = []
        for key in held {
            daemon.send(
                .postFailed(key, reason: "org.freedesktop.DBus.Error.InvalidArgs: Invalid argument", failure: .unsent))
        }
        daemon.run(until: self.lunch.adding(seconds: 60))
        #expect(daemon.posts.count == 1, "the same message would be refused again")
        let dropped = daemon.events(.dropped)
        #expect(dropped.count == 1)
        #expect(
            dropped.first?.reason
                == "Daysome's message could not be sent: org.freedesktop.DBus.Error.InvalidArgs: Invalid argument")
        #expect(dropped.first?.reason?.contains("notification server") == false)
    }

    @Test("A call waiting to be posted again is not posted after she returned")
    mutating func returnCancelsTheRepost() {
        var daemon = self.lunchInFlight()
        self.failAll(&daemon, failure: .serverUnavailable)
        daemon.send(.display(.foreground))
        #expect(!daemon.machine.awaitsAServer)
        daemon.run(until: self.lunch.adding(seconds: 60))
        #expect(daemon.posts.count == 1)
        #expect(daemon.machine.wheel.nextDeadline == nil)
    }

    @Test("Bus errors where no server answered are told from a server's refusal")
    func classification() {
        #expect(PostFailure(busErrorName: "org.freedesktop.DBus.Error.Spawn.ChildExited") == .serverUnavailable)
        #expect(PostFailure(busErrorName: "org.freedesktop.DBus.Error.ServiceUnknown") == .serverUnavailable)
        // NoReply is no proof that nobody answered: a hung server may show the call yet (UnknownOutcomeTests).
        #expect(PostFailure(busErrorName: "org.freedesktop.DBus.Error.NoReply") == .outcomeUnknown)
        #expect(PostFailure(busErrorName: "org.freedesktop.DBus.Error.NameHasNoOwner") == .serverUnavailable)
        #expect(PostFailure(busErrorName: "System.Error.ENOTCONN") == .serverUnavailable)
        #expect(PostFailure(busErrorName: "org.freedesktop.DBus.Error.InvalidArgs") == .refused)
        #expect(PostFailure(busErrorName: "org.freedesktop.Notifications.Error") == .refused)
    }

    @Test("An error sd-bus raised on our own message before it left is ours, unless the connection was lost")
    func unsentClassification() {
        #expect(PostFailure(busErrorName: "org.freedesktop.DBus.Error.InvalidArgs", unsent: true) == .unsent)
        #expect(PostFailure(busErrorName: "System.Error.E2BIG", unsent: true) == .unsent)
        #expect(PostFailure(busErrorName: "System.Error.ENOTCONN", unsent: true) == .serverUnavailable)
        #expect(PostFailure.unsent.reason("x") == "Daysome's message could not be sent: x")
        #expect(PostFailure.refused.reason("x") == "notification server: x")
    }

    @Test("Each step writes the state file at most once, before any post, and not at all when nothing changed")
    func onePersistPerStep() {
        var machine = DaemonMachine(config: MachineConfig(), persisted: PersistedState(), now: self.morning)
        let loaded = LoadedHousehold(
            load: HouseholdLoad(household: lunchAndTea(), problems: []), digest: 1, loadedAt: self.morning)
        var steps = [
            machine.startAfterRestart(
                file: .away, fileWrittenAt: nil, household: .success(loaded), lastGood: nil, stateProven: true,
                now: self.morning)
        ]
        steps.append(machine.handle(.timer, now: self.lunch))
        for step in steps {
            let persists = step.indices.filter { step[$0] == .persist }
            #expect(persists.count == 1)
            let firstPost = step.firstIndex { if case .post = $0 { true } else { false } }
            if let firstPost, let persist = persists.first { #expect(persist < firstPost) }
        }
        // A wake-up with nothing due changes nothing: no write.
        let idle = machine.handle(.timer, now: self.lunch.adding(seconds: 30))
        #expect(!idle.contains(.persist))
    }

    @Test("A post leaves only inside its window by the clock as it leaves: from its minute to the grace window's end")
    func aPostLeavesOnlyInsideItsWindow() {
        let daemon = self.lunchInFlight()
        let key = daemon.heldPosts[0]
        let grace = MachineConfig().grace
        #expect(!sends(daemon, key, self.lunch.adding(seconds: -1)))
        #expect(sends(daemon, key, self.lunch))
        #expect(sends(daemon, key, self.lunch.adding(seconds: grace)))
        #expect(!sends(daemon, key, self.lunch.adding(seconds: grace + 1)))
    }

    @Test("A post held back because the clock stepped past its window is dropped unseen, and history says so")
    func aPostHeldBackPastItsWindowIsDropped() {
        var daemon = self.lunchInFlight()
        let key = daemon.heldPosts.removeFirst()
        // Half an hour on: past the grace window, inside lunch (a step past its end expires it).
        daemon.jump(to: self.lunch.adding(seconds: 1800))
        daemon.send(.clockChanged(reason: "the clock jumped"))
        daemon.send(.postFailed(key, reason: "held back before it was posted", failure: .withheld))
        let dropped = daemon.events(.dropped)
        #expect(dropped.map(\.at) == [self.lunch])
        #expect(dropped.first?.reason?.contains("the clock moved to 2026-06-01T12:30:00Z before it was posted") == true)
        #expect(daemon.machine.persisted.delivered.isEmpty)
        #expect(!daemon.machine.awaitsAServer)
        #expect(daemon.machine.invariantViolations().isEmpty)
        daemon.run(until: self.lunch.adding(seconds: 6000))
        #expect(daemon.posts.count == 1, "posted again after it was dropped")
    }

    @Test("A post held back because the clock stepped back before its minute goes out at its minute, not before")
    func aPostHeldBackBeforeItsMinuteLeavesAtItsMinute() {
        var daemon = self.lunchInFlight()
        daemon.holdReplies = false
        let key = daemon.heldPosts.removeFirst()
        daemon.jump(to: self.lunch.adding(seconds: -120))
        daemon.send(.clockChanged(reason: "the clock jumped"))
        daemon.send(.postFailed(key, reason: "held back before it was posted", failure: .withheld))
        #expect(daemon.events(.dropped).isEmpty)
        daemon.run(until: self.lunch.adding(seconds: -1))
        #expect(daemon.posts.count == 1)
        daemon.run(until: self.lunch)
        #expect(daemon.posts.map(\.at) == [self.lunch, self.lunch])
        #expect(daemon.events(.delivered).map(\.at) == [self.lunch])
        #expect(daemon.machine.invariantViolations().isEmpty)
    }

    @Test("A post decided at its window's last moment leaves after its own wait, not once the clock moved on")
    func aPostDecidedAtTheLastMomentLeavesAfterItsOwnWait() {
        var daemon = VirtualDaemon(lunchAndTea(), now: self.morning, display: .away)
        daemon.holdReplies = true
        // Resumed exactly at the grace window's end: lunch is decided then, and its post waits.
        let last = self.lunch.adding(seconds: MachineConfig().grace)
        daemon.jump(to: last)
        daemon.send(.timer)
        let key = daemon.heldPosts[0]
        #expect(sends(daemon, key, last.adding(seconds: 1)))
        #expect(sends(daemon, key, last.adding(seconds: 46)))
        #expect(!sends(daemon, key, last.adding(seconds: 47)))
        // Never at or after its card's end, whatever the wait.
        let lunchEnds = self.lunch.adding(seconds: 45 * 60)
        #expect(!sends(daemon, key, lunchEnds))
    }

    @Test("A post held back by a clock stepped back goes out at its minute though the clock's jump is heard after it")
    func aPostHeldBackBeforeTheJumpIsHeardStillLeavesAtItsMinute() {
        var daemon = self.lunchInFlight()
        daemon.holdReplies = false
        let key = daemon.heldPosts.removeFirst()
        daemon.jump(to: self.lunch.adding(seconds: -120))
        // The post's failure first, the clock-jump watch after: the wheel still stands at lunch.
        daemon.send(.postFailed(key, reason: "held back before it was posted", failure: .withheld))
        #expect(daemon.events(.dropped).isEmpty, "\(daemon.history)")
        daemon.send(.clockChanged(reason: "the clock jumped"))
        daemon.run(until: self.lunch.adding(seconds: -1))
        #expect(daemon.posts.count == 1)
        daemon.run(until: self.lunch.adding(seconds: 1))
        #expect(daemon.posts.count == 2)
        #expect(daemon.posts.last.map { $0.at >= self.lunch } == true)
        #expect(daemon.events(.delivered).map(\.at) == [self.lunch])
        #expect(daemon.machine.invariantViolations().isEmpty)
    }

    @Test("A post that was to replace a card in place and that no server took closes that card: one card at a time")
    func aReplacementNoServerTookClosesTheCardItWasToReplace() {
        let breakfastAndLunch = household(
            "Europe/London", [item("breakfast", "12:30", end: "14:00"), item("lunch", "13:00", end: "13:45")])
        var daemon = VirtualDaemon(breakfastAndLunch, now: self.morning, display: .away)
        daemon.run(until: self.lunch.adding(seconds: -1))
        let breakfastId = daemon.machine.persisted.delivered.first?.notificationId
        #expect(breakfastId != nil)
        daemon.holdReplies = true
        daemon.run(until: self.lunch)
        let key = daemon.heldPosts.removeFirst()
        #expect(daemon.actions.contains { if case .replace = $0 { return true } else { return false } })
        let before = daemon.actions.count
        daemon.send(.postFailed(key, reason: "org.freedesktop.DBus.Error.InvalidArgs: no", failure: .refused))
        let closes = daemon.actions[before...].filter {
            if case .close(_, let id, _) = $0 { return id == breakfastId }
            return false
        }
        #expect(closes.count == 1, "\(daemon.actions[before...])")
    }
}
