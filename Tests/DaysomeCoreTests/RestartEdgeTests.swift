// Edges the seeded simulator found (Tests/SimulationTests/Corpus), each pinned here on the
// machine alone: a display write the daemon read is no return after a restart, a card from
// before the daemon's restart is never brought back by a server's leaving, and a server's slow
// answer is not told as a call made after its minute, and a retry due before the tablet slept
// never goes out after its window when it wakes.

import DaysomeCore
import Testing

@Suite("Restart edges the simulator found")
struct RestartEdgeTests {
    let morning = instant("2026-06-01T08:00:00Z")
    let lunch = instant("2026-06-01T12:00:00Z")

    /// Lunch delivered and on screen, the display having said away again at 12:01 (read).
    func lunchOnScreen() -> VirtualDaemon {
        var daemon = VirtualDaemon(lunchAndTea(), now: self.morning, display: .away)
        daemon.run(until: self.lunch.adding(seconds: 60))
        _ = daemon.machine.displayWritten(at: self.lunch.adding(seconds: 60))
        return daemon
    }

    func restart(
        _ daemon: VirtualDaemon, fileWrittenAt: Instant, at now: Instant
    ) -> (
        DaemonMachine, [MachineAction]
    ) {
        var machine = DaemonMachine(config: MachineConfig(), persisted: daemon.machine.persisted, now: now)
        let actions = machine.startAfterRestart(
            file: .away, fileWrittenAt: fileWrittenAt,
            household: .success(daemon.household), lastGood: nil, stateProven: true, now: now)
        return (machine, actions)
    }

    func withdrawn(_ actions: [MachineAction]) -> [HistoryRecord] {
        actions.compactMap {
            if case .record(let record) = $0, record.event == .withdrawn { return record }
            return nil
        }
    }

    @Test("A display saying away again while the daemon ran is no return after a restart: lunch stays")
    func aDisplaySayingAwayAgainWhileTheDaemonRanIsNoReturnAfterARestart() {
        let daemon = self.lunchOnScreen()
        let (_, kept) = self.restart(
            daemon, fileWrittenAt: self.lunch.adding(seconds: 60), at: self.lunch.adding(seconds: 90))
        #expect(self.withdrawn(kept).isEmpty)
        // A write no daemon read (she came back and left while none ran) is still a return.
        let (_, replayed) = self.restart(
            daemon, fileWrittenAt: self.lunch.adding(seconds: 70), at: self.lunch.adding(seconds: 90))
        #expect(self.withdrawn(replayed).map(\.at) == [self.lunch])
    }

    @Test("A call on screen from before the daemon's restart is never brought back by a server restart")
    func aCardFromBeforeTheDaemonsRestartIsNotPostedAgainAfterAServerRestart() {
        var daemon = self.lunchOnScreen()
        var (machine, _) = self.restart(
            daemon, fileWrittenAt: self.lunch.adding(seconds: 60), at: self.lunch.adding(seconds: 90))
        let afterRestart = machine.handle(.serverRestarted(answering: nil), now: self.lunch.adding(seconds: 100))
        #expect(!afterRestart.contains { if case .post = $0 { true } else { false } })
        #expect(self.withdrawn(afterRestart).map(\.at) == [self.lunch])
        // The daemon that posted it (and would have heard her dismiss it) posts it again once.
        let posts = daemon.posts.count
        daemon.send(.serverRestarted(answering: nil))
        #expect(daemon.posts.count == posts + 1)
    }

    @Test("A card wiped after the clock stepped back before its minute waits for its minute when a server appears")
    func aCallWaitingForItsMinuteIsNotPostedAtOnceWhenAServerAppears() {
        var daemon = VirtualDaemon(lunchAndTea(), now: self.morning, display: .away)
        daemon.send(.serverIdentified("boot bus :1.5"))
        daemon.run(until: self.lunch.adding(seconds: 30))
        daemon.jump(to: self.lunch.adding(seconds: -600))
        daemon.send(.clockChanged(reason: "the clock was set back"))
        let posts = daemon.posts.count
        daemon.send(.serverRestarted(answering: "boot bus :1.9"))
        #expect(daemon.posts.count == posts, "posted before its minute")
        let waits = daemon.actions.filter {
            if case .log(_, let text) = $0 { text.contains("posted again at its minute") } else { false }
        }
        #expect(waits.count == 1, "\(waits)")
        daemon.run(until: self.lunch.adding(seconds: 1))
        #expect(daemon.posts.count == posts + 1)
        #expect(daemon.posts.last?.at == self.lunch)
    }

    @Test(
        "A server that answers half an hour after a post made at its minute is told as a slow answer, not a call after its minute"
    )
    func aSlowAnswerIsToldApartFromACallAfterItsMinute() {
        var daemon = VirtualDaemon(lunchAndTea(), now: self.morning, display: .away)
        daemon.holdReplies = true
        daemon.run(until: self.lunch)
        daemon.jump(to: self.lunch.adding(seconds: 1_800))
        daemon.reply(daemon.heldPosts.removeFirst())
        #expect(
            daemon.events(.delivered).map(\.reason) == ["the notification server answered 1800 s after it was posted"])
    }

    @Test("A call whose retry fell due while the tablet slept is never posted after its window when it wakes")
    func aRetryDueWhileTheTabletSleptIsNotPostedAfterItsWindow() {
        var daemon = VirtualDaemon(lunchAndTea(), now: self.morning, display: .away)
        daemon.holdReplies = true
        daemon.run(until: self.lunch)
        let key = daemon.heldPosts.removeFirst()
        daemon.send(.postFailed(key, reason: "no server", failure: .serverUnavailable))
        // Asleep for two hours: the retry (due a second later) and the card's end both passed.
        daemon.jump(to: self.lunch.adding(seconds: 7_200))
        daemon.send(.timer)
        #expect(daemon.posts.count == 1)
        #expect(daemon.events(.dropped).map(\.at) == [self.lunch])
        #expect(daemon.events(.dropped).first?.reason?.hasPrefix("its window closed") == true)
    }
}
