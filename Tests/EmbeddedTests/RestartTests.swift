// The daemon killed and started again around her calls, on the embedded daemon: the files stay
// (a SIGKILL keeps the page cache), the server keeps its cards, the lockers keep their word.

import DaysomeCore
import DaysomeDaemon
import DaysomeWorld
import Glibc
import Testing

@Suite("Restarts, on the embedded daemon")
struct RestartTests {
    @Test func aRestartWithinGraceCallsTheMissedStartOnce() throws {
        let tablet = try tablet("grace", at: "2026-06-01T11:58:00Z")
        defer { tablet.remove() }
        tablet.killDaemon()
        tablet.advance(to: at("2026-06-01T12:03:00Z"))
        try tablet.startDaemon()
        tablet.advance(seconds: 1)
        #expect(tablet.shown == ["Lunch"])
        #expect(tablet.events(.delivered).first?.reason?.contains("grace") == true, "\(tablet.history())")
        // Killed and started again at once: the call is on record and is not made again.
        tablet.killDaemon()
        try tablet.startDaemon()
        tablet.advance(seconds: 60)
        #expect(tablet.server.notified.count == 1, "\(tablet.server.notified)")
        #expect(tablet.events(.delivered).count == 1)
    }

    @Test func aRestartBeyondGraceDropsTheMissedStartSilently() throws {
        let tablet = try tablet("beyond", at: "2026-06-01T11:58:00Z")
        defer { tablet.remove() }
        tablet.killDaemon()
        tablet.advance(to: at("2026-06-01T13:00:00Z"))
        try tablet.startDaemon()
        tablet.advance(seconds: 1)
        #expect(tablet.server.notified.isEmpty)
        #expect(tablet.events(.dropped).map(\.itemIds) == [["lunch"]])
        #expect(tablet.events(.dropped).first?.reason?.contains("grace") == true, "\(tablet.history())")
        #expect(tablet.events(.delivered).isEmpty)
    }

    @Test func aRestartAfterSeveralMissedStartsCallsOnlyTheLatest() throws {
        let text = household([
            Item(id: "one", label: "One", time: "12:00"), Item(id: "two", label: "Two", time: "12:02"),
            Item(id: "three", label: "Three", time: "12:04"),
        ])
        let tablet = try tablet("several", at: "2026-06-01T11:58:00Z", household: text)
        defer { tablet.remove() }
        tablet.killDaemon()
        tablet.advance(to: at("2026-06-01T12:05:00Z"))
        try tablet.startDaemon()
        tablet.advance(seconds: 1)
        #expect(tablet.server.notified.map(\.summary) == ["Three"])
        #expect(tablet.events(.delivered).map(\.at) == [at("2026-06-01T12:04:00Z")])
        #expect(tablet.events(.dropped).contains { $0.at == at("2026-06-01T12:00:00Z") }, "\(tablet.history())")
    }

    @Test func aReturnWhileTheDaemonWasDownWithdrawsWhatItShowed() throws {
        let tablet = try tablet("down-return", at: "2026-06-01T11:59:00Z")
        defer { tablet.remove() }
        tablet.advance(to: at("2026-06-01T12:01:00Z"))
        #expect(tablet.shown == ["Lunch"])
        tablet.killDaemon()
        tablet.advance(seconds: 30)
        try tablet.writeDisplay("foreground")
        tablet.advance(seconds: 30)
        try tablet.startDaemon()
        tablet.advance(seconds: 1)
        #expect(tablet.shown.isEmpty, "the card stayed over the day display after the restart")
        #expect(tablet.events(.withdrawn).map(\.itemIds) == [["lunch"]])
    }

    @Test func aReturnWhileTheDaemonWasDownMeansNoCatchUp() throws {
        let tablet = try tablet("no-catch-up", at: "2026-06-01T11:58:00Z")
        defer { tablet.remove() }
        tablet.killDaemon()
        try tablet.writeDisplay("foreground")
        tablet.advance(to: at("2026-06-01T12:02:00Z"))
        try tablet.writeDisplay("away")
        tablet.advance(seconds: 10)
        try tablet.startDaemon()
        tablet.advance(seconds: 60)
        #expect(tablet.server.notified.isEmpty, "a start missed while she was in front was called after")
        #expect(tablet.events(.delivered).isEmpty, "the display already chimed for it")
        let queue = try tablet.queue()
        #expect(queue.display == .away)
        #expect(queue.pending.first?.at == at("2026-06-01T15:00:00Z"), "\(queue.pending)")
    }

    @Test func theDaemonsRestartAloneNeverWithdrawsACallShownWhileSheIsAway() throws {
        let tablet = try tablet("restart-away", at: "2026-06-01T11:59:00Z")
        defer { tablet.remove() }
        tablet.advance(to: at("2026-06-01T12:00:10Z"))
        let id = try #require(tablet.server.cards.first?.id)
        tablet.killDaemon()
        tablet.advance(seconds: 5)
        try tablet.startDaemon()
        tablet.advance(seconds: 60)
        #expect(tablet.server.cards.map(\.id) == [id])
        #expect(tablet.events(.withdrawn).isEmpty)
        // And her return after the restart still takes it away: the id was kept.
        try tablet.writeDisplay("foreground")
        tablet.advance(seconds: 1)
        #expect(tablet.shown.isEmpty)
    }

    // MARK: The combinations of issue 25, on the real Manager

    @Test func anUnlockWhileTheDaemonWasStoppedLetsTheFileDecideAfterTheRestart() throws {
        let tablet = try tablet("unlock-down", at: "2026-06-01T11:50:00Z", display: "foreground")
        defer { tablet.remove() }
        tablet.lock(.logind, true)
        #expect(try tablet.status().display == .away)
        tablet.killDaemon()
        tablet.lock(.logind, false)
        tablet.advance(seconds: 30)
        try tablet.startDaemon()
        tablet.advance(to: at("2026-06-01T12:01:00Z"))
        #expect(try tablet.status().display == .foreground)
        #expect(tablet.server.notified.isEmpty, "lunch went over the day display after an unlock")
    }

    @Test func aRestartWhileLockedWithACallOnScreenKeepsTheCall() throws {
        let tablet = try tablet("locked-restart", at: "2026-06-01T11:50:00Z", display: "foreground")
        defer { tablet.remove() }
        tablet.lock(.gnomeScreenSaver, true)
        tablet.advance(to: at("2026-06-01T12:00:00Z"))
        #expect(tablet.shown == ["Lunch"])
        tablet.killDaemon()
        tablet.advance(seconds: 5)
        try tablet.startDaemon()
        tablet.advance(seconds: 30)
        #expect(tablet.shown == ["Lunch"], "the call was withdrawn after a restart while locked")
        #expect(tablet.events(.withdrawn).isEmpty)
        // Her PIN: unlocked, the file says foreground, and every call goes.
        tablet.lock(.gnomeScreenSaver, false)
        tablet.advance(seconds: 1)
        #expect(tablet.shown.isEmpty)
    }

    @Test func aServerHungPastTheBusTimeoutShowsOneCardAndItIsTheOneClosed() throws {
        let tablet = try tablet("hung", at: "2026-06-01T11:59:00Z")
        defer { tablet.remove() }
        tablet.server.hang()
        tablet.advance(to: at("2026-06-01T12:01:00Z"))
        #expect(tablet.server.notified.isEmpty)
        tablet.server.wake()
        tablet.advance(seconds: 1)
        #expect(tablet.server.notified.count == 1, "posted again while the server hung: \(tablet.server.notified)")
        try tablet.writeDisplay("foreground")
        tablet.advance(seconds: 1)
        #expect(tablet.shown.isEmpty, "a card stayed: \(tablet.server.cards)")
    }

    // The simulator's seed 1796500000058, as a rule: the corpus keeps its trace.
    @Test func aCallPostedAgainAfterTheClockSteppedBackWaitsForItsMinute() throws {
        // Lunch goes out at 12:00 by a clock 30 minutes fast.
        let tablet = try lunchUnansweredPastTheBusTimeout("repost-clock-back")
        defer { tablet.remove() }
        // The clock is set right, and the hung server is restarted: the post went with it unseen.
        tablet.jumpClock(to: at("2026-06-01T11:30:30Z"))
        tablet.server.restart()
        tablet.advance(to: at("2026-06-01T11:59:59Z"))
        #expect(tablet.server.notified.isEmpty, "sent before its minute: \(tablet.server.notified)")
        tablet.advance(seconds: 1)
        #expect(tablet.shown == ["Lunch"])
        #expect(tablet.server.notified.map(\.sentAt) == [at("2026-06-01T12:00:00Z")])
    }

    // The simulator's seed 1796400000008, as a rule: the corpus keeps its trace.
    @Test func aClickOnACallWhoseAnswerTheBusGaveUpOnBringsTheDayBackAndAServerRestartNeverShowsItAgain() throws {
        let tablet = try lunchUnansweredPastTheBusTimeout("click-unanswered")
        defer { tablet.remove() }
        // The server wakes and shows lunch all the same; its answer reaches nobody.
        tablet.server.wake()
        tablet.advance(seconds: 1)
        #expect(tablet.shown == ["Lunch"])
        let card = try #require(tablet.server.cards.first)
        tablet.server.click(card.id)
        tablet.advance(seconds: 1)
        #expect(tablet.returns == [OnEveryDesktop.clickedReason], "her click on lunch did not bring the day back")
        #expect(tablet.events(.withdrawn).map(\.reason) == [OnEveryDesktop.clickedReason])
        #expect(tablet.shown.isEmpty, "the clicked card stayed: \(tablet.server.cards)")
        // The server restarts before the display has said she is back.
        tablet.server.restart()
        tablet.advance(seconds: 20)
        #expect(tablet.server.notified.count == 1, "lunch shown again: \(tablet.server.notified)")
        #expect(tablet.shown.isEmpty)
        #expect(tablet.events(.delivered).count == 1)
    }
}

/// Lunch posted at 12:00 to a hung server, and the bus's answer at 12:00:25 that it gave up
/// (NoReply): at 12:00:30 nothing is shown and nothing was notified.
private func lunchUnansweredPastTheBusTimeout(_ name: String) throws -> EmbeddedTablet {
    let tablet = try tablet(name, at: "2026-06-01T11:59:00Z")
    tablet.server.busTimesOut = true
    tablet.server.hang()
    tablet.advance(to: at("2026-06-01T12:00:30Z"))
    #expect(tablet.server.notified.isEmpty)
    return tablet
}

@Suite("The systemd backend, on the embedded daemon")
struct SystemdBackendTests {
    @Test func aCallLaidAsAManagersTimerComesAtItsMinuteThroughItsFire() throws {
        let tablet = try tablet("systemd-fire", at: "2026-06-01T11:58:00Z", arguments: ["--backend", "systemd"])
        defer { tablet.remove() }
        let lay = try #require(try tablet.status().lay)
        #expect(tablet.systemd.timers.contains { $0.lay == lay && $0.at == at("2026-06-01T12:00:00Z") })
        tablet.advance(to: at("2026-06-01T12:00:00Z"))
        #expect(tablet.shown == ["Lunch"])
        #expect(tablet.systemd.fires.map(\.lay) == [lay])
    }

    @Test func aManagerThatLostItsTimersHasTheWeekLaidAgain() throws {
        let tablet = try tablet("systemd-lost", at: "2026-06-01T10:00:00Z", arguments: ["--backend", "systemd"])
        defer { tablet.remove() }
        let before = try #require(try tablet.status().lay)
        tablet.systemd.restart()
        #expect(tablet.systemd.timers.isEmpty)
        // The daemon reconnects a second later and lays the week again in the new manager.
        tablet.advance(seconds: 2)
        let after = try #require(try tablet.status().lay)
        #expect(after >= before)
        #expect(tablet.systemd.timers.contains { $0.lay == after && $0.at == at("2026-06-01T12:00:00Z") })
        #expect(tablet.systemd.timers.count == (try tablet.queue()).pending.count)
        tablet.advance(to: at("2026-06-01T12:00:00Z"))
        #expect(tablet.shown == ["Lunch"])
    }

    // The backend asks the manager which names a lay may take and starts its timer from the reply;
    // a return before that reply came clears the lay, and its timer must never start after it.
    @Test func aReturnWhileTheManagerHasNotAnsweredALayLeavesNoTimerBehind() throws {
        let tablet = try tablet("systemd-overtaken", at: "2026-06-01T10:00:00Z", arguments: ["--backend", "systemd"])
        defer { tablet.remove() }
        #expect(!tablet.systemd.timers.isEmpty)
        tablet.systemd.holdsReplies = true
        try tablet.writeDisplay("foreground")
        try tablet.writeDisplay("away")
        try tablet.writeDisplay("foreground")
        tablet.systemd.answer()
        tablet.advance(seconds: 1)
        #expect(tablet.systemd.unitNames.isEmpty, "a timer was started after the return that cleared its lay")
        // Away again, the next lay is laid once, under its own number.
        try tablet.writeDisplay("away")
        tablet.advance(seconds: 1)
        let lay = try #require(try tablet.status().lay)
        #expect(tablet.systemd.unitNames == ["daysome-lay\(lay).timer"])
        tablet.advance(to: at("2026-06-01T12:00:00Z"))
        #expect(tablet.shown == ["Lunch"])
    }

    // Moved from the real-process suite (SystemdIntegrationTests), every assertion kept: it waited
    // for a real minute. Its real twins are the systemd storm and the real start at the next minute.
    @Test func aFireOfAnOlderLayOrDuringTheForegroundDeliversNothing() throws {
        // Without exact alarms only the manager's timer calls (with them, the daemon also calls at
        // the minute itself), so stopping that timer below leaves the start owed to the fires.
        let soup = household(
            [Item(id: "soup", label: "Soup time", time: "12:00")], settings: "\"exactAlarms\": false")
        let tablet = try tablet(
            "systemd-older-fire", at: "2026-06-01T11:58:00Z", household: soup, arguments: ["--backend", "systemd"])
        defer { tablet.remove() }
        let older = try #require(try tablet.status().lay)
        try tablet.writeDisplay("foreground")
        try tablet.writeDisplay("away")
        let current = try #require(try tablet.status().lay)
        #expect(current > older)
        // Keep the manager from firing the current lay, so that its start is due, undelivered,
        // when the hand-made fires arrive.
        tablet.systemd.stop(lay: current)
        tablet.advance(to: at("2026-06-01T12:00:00Z"))
        #expect(tablet.shown.isEmpty)

        #expect(tablet.control("fire \(older)").contains("nothing due for lay \(older)"))
        #expect(tablet.server.notified.isEmpty && tablet.shown.isEmpty)
        // The current lay's start is still owed: the older lay's fire did not take it.
        let status = try tablet.status()
        #expect(status.lay == current)
        #expect(status.nextStart?.at == at("2026-06-01T12:00:00Z"), "\(status)")

        try tablet.writeDisplay("foreground")
        #expect(tablet.control("fire \(current)").contains("nothing due for lay \(current)"))
        #expect(tablet.server.notified.isEmpty && tablet.shown.isEmpty)
        #expect(tablet.events(.delivered).isEmpty, "\(tablet.history())")
    }

    /// Moved from the real-process suite (FirstBootTests): the lay number comes from the manager's
    /// answer, which the fake manager gives as a real one does, its timers kept across the kill.
    @Test func aLayNumberTheManagerStillHoldsIsNeverUsedAgainAfterTheStateFilesAreLost() throws {
        let tablet = try tablet("systemd-lost-state", at: "2026-06-01T10:00:00Z", arguments: ["--backend", "systemd"])
        defer { tablet.remove() }
        let first = try #require(try tablet.status().lay)
        #expect(tablet.systemd.unitNames == ["daysome-lay\(first).timer"])
        // The daemon stops with the week in the manager; then a power cut takes both state files.
        tablet.killDaemon()
        unlink(tablet.paths.stateDirectory + "/lay.json")
        unlink(tablet.paths.stateDirectory + "/history.jsonl")
        try tablet.startDaemon()
        tablet.advance(seconds: 1)
        let second = try #require(try tablet.status().lay)
        #expect(second > first, "lay \(second) after the manager held daysome-lay\(first)")
        #expect(tablet.systemd.unitNames == ["daysome-lay\(second).timer"])
    }

    /// Moved from the real-process suite (SystemdIntegrationTests.restartInTheForegroundConvergesToNothing):
    /// she returns while the daemon is down, or just before it dies (with the manager's answers
    /// still on their way): the restart leaves the manager holding nothing, none reappears, and
    /// the queue says foreground and empty. The real kills at random points of a clear stay in
    /// CrashAndPowerCutTests.
    @Test(arguments: [false, true])
    func aReturnWhileTheDaemonWasDownLeavesNoTimerAfterTheRestart(killedAfterTheReturn: Bool) throws {
        let tablet = try tablet(
            "systemd-down-return-\(killedAfterTheReturn)", at: "2026-06-01T10:00:00Z",
            arguments: ["--backend", "systemd"])
        defer { tablet.remove() }
        #expect(!tablet.systemd.unitNames.isEmpty)
        if killedAfterTheReturn {
            tablet.systemd.holdsReplies = true
            try tablet.writeDisplay("foreground")
            tablet.killDaemon()
            tablet.systemd.holdsReplies = false
            tablet.systemd.answer()
        } else {
            tablet.killDaemon()
            try tablet.writeDisplay("foreground")
        }
        try tablet.startDaemon()
        tablet.advance(seconds: 1)
        #expect(tablet.systemd.unitNames.isEmpty, "\(tablet.systemd.unitNames)")
        tablet.advance(seconds: 30)
        #expect(tablet.systemd.unitNames.isEmpty, "a timer came back: \(tablet.systemd.unitNames)")
        let queue = try tablet.queue()
        #expect(queue.display == .foreground)
        #expect(queue.pending.isEmpty, "\(queue.pending)")
    }

    @Test func aTimerDueWhileTheDaemonWasStoppedIsCalledOnceByTheRestartWithinGrace() throws {
        let tablet = try tablet("systemd-down", at: "2026-06-01T11:58:00Z", arguments: ["--backend", "systemd"])
        defer { tablet.remove() }
        tablet.killDaemon()
        tablet.advance(to: at("2026-06-01T12:02:00Z"))
        try tablet.startDaemon()
        tablet.advance(seconds: 60)
        #expect(tablet.server.notified.map(\.summary) == ["Lunch"])
        #expect(tablet.events(.delivered).count == 1)
    }
}

@Suite("pending relayed by the daemon, on the embedded daemon")
struct PendingRelayTests {
    // `daysomectl pending` asks a live daemon, which asks the manager over its own connection: the
    // answer is what the manager holds when asked, never what the daemon laid, and it waits for
    // the manager's replies without holding up the loop.
    @Test func pendingRelaysWhatTheManagerHoldsNotWhatTheDaemonLaidAndNeverHoldsUpTheLoop() throws {
        let tablet = try tablet(
            "systemd-pending-relay", at: "2026-06-01T10:00:00Z", arguments: ["--backend", "systemd"])
        defer { tablet.remove() }
        let lay = try #require(try tablet.status().lay)
        let asked = tablet.control(deferred: "pending")
        let held = try #require(asked.line.flatMap(ManagerTimers.init(line:)), "\(String(describing: asked.line))")
        #expect(held.units.map(\.name) == tablet.systemd.unitNames)
        #expect(held.units.map(\.name) == ["daysome-lay\(lay).timer"])
        let named = Set(held.units.flatMap(\.entries).flatMap { CalendarSpec.instants(of: $0.spec) ?? [] })
        #expect(named.isSuperset(of: tablet.systemd.timers.map(\.at)))
        #expect(held.units.flatMap(\.entries).allSatisfy { $0.nextElapse > 0 })

        // `systemctl --user stop` behind the daemon's back: its own record still holds the week,
        // the relay lists nothing.
        tablet.systemd.stop(lay: lay)
        #expect(!(try tablet.queue()).pending.isEmpty)
        let after = tablet.control(deferred: "pending")
        #expect(
            after.line.flatMap(ManagerTimers.init(line:)) == ManagerTimers(units: []),
            "\(String(describing: after.line))")

        // A slow manager: the answer waits for its reply, and the loop answers others meanwhile.
        tablet.systemd.holdsReplies = true
        let slow = tablet.control(deferred: "pending")
        #expect(slow.line == nil)
        #expect(tablet.control("ping") == "pong")
        tablet.systemd.answer()
        #expect(slow.line.flatMap(ManagerTimers.init(line:)) == ManagerTimers(units: []))
    }

    // The wheel has no manager to ask: the daemon says so in an error line, and daysomectl reads
    // no timers from it (it then answers from the published queue, as the wheel always did).
    @Test func pendingOnTheWheelIsAnsweredWithAnErrorLine() throws {
        let tablet = try tablet("wheel-pending-relay", at: "2026-06-01T10:00:00Z")
        defer { tablet.remove() }
        let asked = tablet.control(deferred: "pending")
        #expect(asked.line?.hasPrefix("error: ") == true, "\(String(describing: asked.line))")
        #expect(asked.line.flatMap(ManagerTimers.init(line:)) == nil)
    }
}
