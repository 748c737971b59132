// A second notification server took the name over while the first still runs: no restart. The
// first server's card stays, stamped with it, and is closed there; only when that server leaves
// the bus did the card go with it.

import DaysomeCore
import Testing

@Suite("A notification server taken over by another")
struct TakeoverTests {
    let morning = instant("2026-06-01T08:00:00Z")
    let lunch = instant("2026-06-01T12:00:00Z")
    let first = "boot bus :1.5"
    let second = "boot bus :1.9"

    /// Lunch shown by the first server, then the second takes the name over from it.
    func lunchShownThenTakenOver(_ household: Household = lunchAndTea()) -> VirtualDaemon {
        var daemon = VirtualDaemon(household, now: self.morning, display: .away)
        daemon.send(.serverIdentified(self.first))
        daemon.run(until: self.lunch.adding(seconds: 1))
        daemon.jump(to: self.lunch.adding(seconds: 20))
        daemon.send(.serverTakenOver(previous: self.first, answering: self.second))
        return daemon
    }

    @Test("A takeover is no restart: the first server's card stays, is not posted again, and is closed there")
    func aTakeoverKeepsTheFirstServersCardAndClosesItThere() {
        var daemon = self.lunchShownThenTakenOver()
        let key = DeliveryKey(lay: 1, at: self.lunch)
        #expect(daemon.posts.count == 1, "posted again on the server that took over")
        #expect(daemon.machine.persisted.delivered.map(\.server) == [self.first], "the id was forgotten")
        #expect(!daemon.history.contains { $0.reason?.contains("restarted") == true }, "\(daemon.history)")
        daemon.send(.display(.foreground))
        #expect(daemon.actions.contains(.close(key, notificationId: 1, server: self.first)))
        #expect(daemon.shown.isEmpty)
        let withdrawn = daemon.events(.withdrawn).first { $0.at == self.lunch }
        #expect(withdrawn?.reason?.contains("another had taken the name over") == true, "\(daemon.history)")
    }

    @Test(
        "The first server leaving after a takeover took its card: posted again once on the second, and history says why"
    )
    func theFirstServerLeavingTakesItsCard() {
        var daemon = self.lunchShownThenTakenOver()
        daemon.send(.serverInstanceGone(self.first))
        #expect(daemon.posts.count == 2)
        #expect(daemon.events(.delivered).count == 1, "one call, one delivered line")
        let again = daemon.events(.reposted).last
        #expect(again?.reason?.contains("exited after another took its name over") == true, "\(daemon.history)")
        #expect(daemon.machine.persisted.delivered.map(\.server) == [self.second])
        // Once means once, whichever server leaves next.
        daemon.send(.serverRestarted(answering: nil))
        #expect(daemon.posts.count == 2)
    }

    /// A dunst that exits gives its name up before its connection closes: the bus says the owner
    /// before still runs, and no server owns the name now. It went away; nothing took it over.
    @Test("A server that gives up the name with none taking it went away: the log and history never say takeover")
    func aServerThatGaveUpTheNameWithNoneTakingItWentAway() {
        var daemon = VirtualDaemon(lunchAndTea(), now: self.morning, display: .away)
        daemon.send(.serverIdentified(self.first))
        daemon.run(until: self.lunch.adding(seconds: 1))
        daemon.jump(to: self.lunch.adding(seconds: 20))
        daemon.send(.serverTakenOver(previous: self.first, answering: nil))
        func logged() -> [String] {
            daemon.actions.compactMap { if case .log(_, let text) = $0 { text } else { nil } }
        }
        #expect(
            logged().contains(
                "The notification server went away: it gave up the name, and no other server took it; until its "
                    + "connection closes, its 1 card(s) stay and are closed there"), "\(logged())")
        #expect(!logged().contains { $0.contains("takeover") || $0.contains("took the name over") }, "\(logged())")
        #expect(daemon.posts.count == 1)
        // Its connection closes: the card went with it, said as such.
        daemon.send(.serverInstanceGone(self.first))
        #expect(logged().contains("The notification server that went away has left the bus; forgetting its ids"))
        #expect(!logged().contains { $0.contains("taken the name over") }, "\(logged())")
        #expect(
            !daemon.history.contains { $0.reason?.contains("took its name over") == true }, "\(daemon.history)")
    }

    @Test("A newer call closes the first server's card there instead of replacing an id the second server gave")
    func aNewerCallClosesTheFirstServersCardThere() {
        let household = household(
            "Europe/London", [item("lunch", "13:00", end: "13:45"), item("drink", "13:10", kind: .drink)])
        var daemon = self.lunchShownThenTakenOver(household)
        daemon.run(until: instant("2026-06-01T12:10:00Z"))
        let lunchKey = DeliveryKey(lay: 1, at: self.lunch)
        let drinkKey = DeliveryKey(lay: 1, at: instant("2026-06-01T12:10:00Z"))
        #expect(daemon.actions.contains(.close(lunchKey, notificationId: 1, server: self.first)))
        #expect(daemon.actions.contains { if case .post(drinkKey, _) = $0 { true } else { false } })
        #expect(!daemon.actions.contains { if case .replace = $0 { true } else { false } })
    }

    /// The shell says only what the bus said of the owner before; the machine decides what it was.
    @Test(
        "A change of the server's owner is a takeover only where the bus said the owner before still runs: gone, or untold, it restarted",
        arguments: [true, false, nil] as [Bool?])
    func theBusWordOnTheOwnerBeforeTellsATakeoverFromARestart(previousRuns: Bool?) {
        var daemon = VirtualDaemon(lunchAndTea(), now: self.morning, display: .away)
        daemon.send(.serverIdentified(self.first))
        daemon.run(until: self.lunch.adding(seconds: 1))
        daemon.jump(to: self.lunch.adding(seconds: 20))
        daemon.send(.serverOwnerChanged(previous: self.first, previousRuns: previousRuns, answering: self.second))
        let key = DeliveryKey(lay: 1, at: self.lunch)
        if previousRuns == true {
            // Its card stays on the first server, and is closed there at her return.
            #expect(daemon.posts.count == 1, "posted again on the server that took over")
            daemon.send(.display(.foreground))
            #expect(daemon.actions.contains(.close(key, notificationId: 1, server: self.first)))
        } else {
            // The card went with the server that left: posted again once on the one answering now.
            #expect(daemon.posts.count == 2, "the wiped card was not posted again")
            #expect(daemon.events(.reposted).last?.reason?.contains("restarted") == true, "\(daemon.history)")
            #expect(daemon.machine.persisted.delivered.map(\.server) == [self.second])
        }
    }

    @Test("A late id from the first server after a takeover is stamped with it, and closed there")
    func aLateIdIsStampedWithTheServerThatGaveIt() {
        var daemon = VirtualDaemon(lunchAndTea(), now: self.morning, display: .away)
        daemon.send(.serverIdentified(self.first))
        daemon.holdReplies = true
        daemon.run(until: self.lunch)
        let key = DeliveryKey(lay: 1, at: self.lunch)
        daemon.send(.serverTakenOver(previous: self.first, answering: self.second))
        daemon.send(.posted(key, notificationId: 7, server: self.first))
        #expect(daemon.machine.persisted.delivered.map(\.server) == [self.first])
        daemon.send(.display(.foreground))
        #expect(daemon.actions.contains(.close(key, notificationId: 7, server: self.first)))
    }

    /// Seed 1804800000063, shrunk to 4 steps: the server hung, the tablet slept across tea's
    /// minute, and the server restarted at once (the new one took the name before the daemon read
    /// that the old one went). The post left as the new server owned the name, and its reply came
    /// before the bus's word that the old one was gone.
    @Test(
        "A card the new server gave before the bus said the old one went is on a running server: never posted again, and kept"
    )
    func aCardTheNewServerGaveBeforeTheBusSaidTheOldOneWentIsNotPostedAgain() {
        var daemon = VirtualDaemon(lunchAndTea(), now: self.morning, display: .away)
        daemon.send(.serverIdentified(self.first))
        daemon.holdReplies = true
        daemon.run(until: self.lunch)
        let key = DeliveryKey(lay: 1, at: self.lunch)
        #expect(daemon.heldPosts == [key])
        daemon.send(.posted(key, notificationId: 1, server: self.second))
        daemon.send(.serverOwnerChanged(previous: self.first, previousRuns: false, answering: self.second))
        #expect(daemon.posts.count == 1, "posted again on the server that had just shown it")
        #expect(daemon.machine.persisted.delivered.map(\.server) == [self.second], "the id was forgotten")
        #expect(daemon.events(.delivered).count == 1, "\(daemon.history)")
        #expect(!daemon.history.contains { $0.reason?.contains("restarted") == true }, "\(daemon.history)")
        // Her return closes it there.
        daemon.send(.display(.foreground))
        #expect(daemon.actions.contains(.close(key, notificationId: 1, server: self.second)))
    }
}

@Suite("Signals of two servers that share ids")
struct TakeoverSignalTests {
    @Test("The second server closing its own id 1 leaves the first server's card 1 on screen, to be closed there")
    func anotherServersSignalForTheSameIdIsNotOurs() {
        var daemon = TakeoverTests().lunchShownThenTakenOver()
        let key = DeliveryKey(lay: 1, at: instant("2026-06-01T12:00:00Z"))
        // Another app's card 1 on the second server, dismissed, then clicked.
        daemon.send(.serverClosed(notificationId: 1, reason: 2, server: "boot bus :1.9"))
        daemon.send(.clicked(notificationId: 1, server: "boot bus :1.9"))
        #expect(daemon.machine.persisted.delivered.count == 1, "another server's signal took our card")
        #expect(!daemon.actions.contains { if case .bringDisplayBack = $0 { true } else { false } })
        // The first server's own signal is about our card: she dismissed it there.
        daemon.send(.serverClosed(notificationId: 1, reason: 2, server: "boot bus :1.5"))
        #expect(daemon.machine.persisted.delivered.isEmpty)
        #expect(daemon.events(.withdrawn).first { $0.at == key.at }?.reason == "she dismissed it")
    }

    @Test("After a takeover her return closes the first server's card there, whatever the second server says")
    func herReturnClosesTheFirstServersCardThere() {
        var daemon = TakeoverTests().lunchShownThenTakenOver()
        let key = DeliveryKey(lay: 1, at: instant("2026-06-01T12:00:00Z"))
        daemon.send(.serverClosed(notificationId: 1, reason: 1, server: "boot bus :1.9"))
        daemon.send(.display(.foreground))
        #expect(daemon.actions.contains(.close(key, notificationId: 1, server: "boot bus :1.5")))
    }
}

/// A daemon's start, with lunch's id stamped by a server that no longer answers: the shell said
/// whether it still runs (another took the name over while no daemon ran) or left.
@Suite("What a start finds of the server that showed a kept card")
struct EarlierServerTests {
    let lunch = instant("2026-06-01T12:00:00Z")
    let first = "boot bus :1.5"
    let second = "boot bus :1.9"

    /// A new machine on the state an earlier daemon kept with lunch on the first server, told
    /// `running`/`gone`, identified with the second, then started with `display`.
    func start(running: Set<String>, gone: Set<String>, display: DisplayState) -> [MachineAction] {
        var earlier = VirtualDaemon(lunchAndTea(), now: instant("2026-06-01T08:00:00Z"), display: .away)
        earlier.send(.serverIdentified(self.first))
        earlier.run(until: self.lunch.adding(seconds: 30))
        let now = self.lunch.adding(seconds: 60)
        var machine = DaemonMachine(config: MachineConfig(), persisted: earlier.machine.persisted, now: now)
        var actions = machine.handle(.earlierServers(running: running, gone: gone), now: now)
        actions += machine.handle(.serverIdentified(self.second), now: now)
        actions += machine.startAfterRestart(
            file: display, fileWrittenAt: nil, household: .success(earlier.household), lastGood: nil,
            stateProven: true, now: now)
        return actions
    }

    func records(_ actions: [MachineAction]) -> [HistoryRecord] {
        actions.compactMap { if case .record(let record) = $0 { record } else { nil } }
    }

    @Test("A card whose server another took over while no daemon ran is closed there at her return (rule 1)")
    func aCardOfAServerTakenOverWhileStoppedIsClosedThere() {
        let actions = self.start(running: [self.first], gone: [], display: .foreground)
        #expect(actions.contains(.close(DeliveryKey(lay: 1, at: self.lunch), notificationId: 1, server: self.first)))
        #expect(!actions.contains { if case .post = $0 { true } else { false } })
    }

    @Test("A card whose server left while no daemon ran is not posted again, and history says why")
    func aCardOfAServerGoneWhileStoppedIsToldNotPostedAgain() {
        for display in [DisplayState.away, .foreground] {
            let actions = self.start(running: [], gone: [self.first], display: display)
            #expect(!actions.contains { if case .post = $0 { true } else { false } }, "\(display)")
            #expect(!actions.contains { if case .close = $0 { true } else { false } }, "\(display): closed a dead id")
            #expect(
                self.records(actions).filter { $0.at == self.lunch }.map(\.reason) == [DaemonMachine.leftWhileStopped],
                "\(display): \(self.records(actions))")
        }
    }

    @Test("A card of a server the shell could not tell about is forgotten, never closed")
    func aCardOfAServerNobodyCanTellAboutIsForgotten() {
        let actions = self.start(running: [], gone: [], display: .foreground)
        #expect(!actions.contains { if case .close = $0 { true } else { false } })
        #expect(actions.contains { if case .log(_, let text) = $0 { text.contains("Forgetting 1") } else { false } })
    }
}
