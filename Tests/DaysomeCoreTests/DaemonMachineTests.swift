// The daemon's state machine on a virtual clock: the product rules that involve time passing,
// the display coming and going, restarts and clock jumps. No bus, no file, no real timer.

import DaysomeCore
import Testing

/// Lunch at 13:00 and tea at 19:30 in London, notifications on.
func lunchAndTea() -> Household {
    household("Europe/London", [item("lunch", "13:00", end: "13:45"), item("tea", "19:30")])
}

@Suite("Daemon state machine")
struct DaemonMachineTests {
    @Test("replay runs on the same virtual daemon as these tests: its deliveries are the daemon's posts")
    func replayAndTheTestsShareOneVirtualDaemon() {
        let from = instant("2026-06-01T08:00:00Z")
        let to = instant("2026-06-03T20:00:00Z")
        var daemon = VirtualDaemon(lunchAndTea(), now: from, display: .away)
        daemon.run(until: to)
        let replay = Replay(household: lunchAndTea(), from: from, to: to).run()
        #expect(daemon.posts.count == 6)
        #expect(replay.events(.delivered).map(\.at) == daemon.posts.map(\.key.at))
        #expect(replay.events.map(\.kind) == daemon.history.map(\.event))
        #expect(replay.shownAtEnd == daemon.shown.count)
    }

    @Test("The virtual daemon enters the machine where the daemon does: the file's word and its time are kept")
    func theVirtualDaemonEntersTheMachineWhereTheDaemonDoes() {
        let start = instant("2026-06-01T08:00:00Z")
        var daemon = VirtualDaemon(lunchAndTea(), now: start, display: .foreground)
        // `startAfterRestart` keeps the file's word, as the daemon's start does.
        #expect(daemon.machine.screenLock.file == .foreground)
        let left = instant("2026-06-01T09:00:00Z")
        daemon.run(until: left)
        daemon.send(.display(.away))
        // `displayRead` keeps the write it read, so that a restart never takes it for a return.
        #expect(daemon.machine.screenLock.file == .away)
        #expect(daemon.machine.persisted.displaySeenAt == left)
        #expect(daemon.machine.currentLay?.number == 1)
    }

    @Test("The display's word never enters the machine but through displayRead or startAfterRestart")
    func theDisplaysWordEntersOnlyWhereTheDaemonGivesIt() async {
        await #expect(processExitsWith: .failure) {
            let now = instant("2026-06-01T08:00:00Z")
            var machine = DaemonMachine(config: MachineConfig(), persisted: PersistedState(), now: now)
            _ = machine.handle(.display(.away), now: now)
        }
    }

    @Test("Away lays exactly the plan from that instant")
    func awayLaysThePlan() {
        let start = instant("2026-06-01T08:00:00Z")
        let daemon = VirtualDaemon(lunchAndTea(), now: start, display: .away)
        let plan = Planner.plan(lunchAndTea(), from: start)
        #expect(daemon.machine.pendingStarts.map(\.start) == plan.starts)
        #expect(daemon.machine.currentLay?.number == 1)
    }

    @Test("Never a notification over the display: nothing pending and nothing shown in the foreground")
    func nothingInTheForeground() {
        var daemon = VirtualDaemon(lunchAndTea(), now: instant("2026-06-01T08:00:00Z"), display: .foreground)
        #expect(daemon.machine.pendingStarts.isEmpty)
        daemon.run(until: instant("2026-06-03T00:00:00Z"))
        #expect(daemon.posts.isEmpty)
        daemon.send(.display(.away))
        daemon.run(until: instant("2026-06-03T12:00:30Z"))
        #expect(daemon.posts.count == 1)
        #expect(daemon.shown.count == 1)
        daemon.send(.display(.foreground))
        #expect(daemon.machine.pendingStarts.isEmpty)
        #expect(daemon.shown.isEmpty)
        #expect(daemon.events(.withdrawn).count == 1)
        #expect(daemon.events(.cleared).count == 1)
    }

    @Test("A fire that races a return withdraws what it just delivered")
    func fireRacingReturnIsWithdrawn() {
        var daemon = VirtualDaemon(lunchAndTea(), now: instant("2026-06-01T08:00:00Z"), display: .away)
        daemon.holdReplies = true
        daemon.run(until: instant("2026-06-01T12:00:00Z"))
        #expect(daemon.heldPosts.count == 1)
        daemon.send(.display(.foreground))
        // The server's reply arrives after the return: the call is closed at once.
        daemon.holdReplies = false
        daemon.reply(daemon.heldPosts.removeFirst())
        #expect(daemon.shown.isEmpty)
    }

    @Test("Nothing stale: a delivered call is closed when its card would leave the display")
    func closedAtExpiry() {
        var daemon = VirtualDaemon(lunchAndTea(), now: instant("2026-06-01T08:00:00Z"), display: .away)
        daemon.run(until: instant("2026-06-01T12:44:59Z"))
        #expect(daemon.shown.count == 1)
        daemon.run(until: instant("2026-06-01T12:45:00Z"))
        #expect(daemon.shown.isEmpty)
        #expect(daemon.events(.expired).map(\.at) == [instant("2026-06-01T12:00:00Z")])
    }

    @Test("Nothing stale: a start missed by a suspend is delivered late within the grace window, never after")
    func lateWithinGraceOnly() {
        var daemon = VirtualDaemon(lunchAndTea(), now: instant("2026-06-01T08:00:00Z"), display: .away)
        daemon.jump(to: instant("2026-06-01T12:04:00Z"))
        daemon.send(.timer)
        #expect(daemon.posts.map(\.start.title) == ["Lunch"])
        #expect(daemon.events(.delivered).first?.reason?.contains("grace") == true)

        var beyond = VirtualDaemon(lunchAndTea(), now: instant("2026-06-01T08:00:00Z"), display: .away)
        beyond.jump(to: instant("2026-06-01T12:05:01Z"))
        beyond.send(.timer)
        #expect(beyond.posts.isEmpty)
        #expect(beyond.events(.dropped).first?.reason?.contains("grace") == true)
    }

    @Test("Nothing stale: a late start is dropped once its card has left the display, even within grace")
    func lateAfterExpiryDropped() {
        let home = household("UTC", [item("a", "13:00"), item("b", "13:02")])
        var daemon = VirtualDaemon(
            home, now: instant("2026-06-01T08:00:00Z"), display: .away, config: MachineConfig(grace: 600))
        daemon.jump(to: instant("2026-06-01T13:03:00Z"))
        daemon.send(.timer)
        // a expired at 13:02; b is the latest and still on: only b.
        #expect(daemon.posts.map(\.start.itemIds) == [["b"]])
    }

    @Test("Never a burst: of several starts missed at once, at most the latest is delivered")
    func neverABurst() {
        let home = household("UTC", (0..<5).map { item("i\($0)", "13:0\($0)") })
        var daemon = VirtualDaemon(home, now: instant("2026-06-01T08:00:00Z"), display: .away)
        daemon.jump(to: instant("2026-06-01T13:04:30Z"))
        daemon.send(.timer)
        #expect(daemon.posts.map(\.start.itemIds) == [["i4"]])
        #expect(daemon.events(.dropped).count == 4)
    }

    @Test("No catch-up after a return: a start whose minute passed in the foreground is never delivered")
    func noCatchUpAfterReturn() {
        var daemon = VirtualDaemon(lunchAndTea(), now: instant("2026-06-01T11:59:00Z"), display: .foreground)
        daemon.run(until: instant("2026-06-01T12:01:00Z"))
        daemon.send(.display(.away))
        daemon.run(until: instant("2026-06-01T12:10:00Z"))
        #expect(daemon.posts.isEmpty)
        #expect(daemon.machine.pendingStarts.first?.start.title == "Tea")
    }

    @Test("Lay numbers only grow, and a clear overtakes a lay: nothing from an older lay fires afterwards")
    func layNumbersGrow() {
        var daemon = VirtualDaemon(lunchAndTea(), now: instant("2026-06-01T08:00:00Z"), display: .away)
        for _ in 0..<5 {
            daemon.send(.display(.foreground))
            daemon.send(.display(.away))
        }
        #expect(daemon.machine.currentLay?.number == 6)
        daemon.run(until: instant("2026-06-01T12:00:01Z"))
        #expect(daemon.posts.map(\.key.lay) == [6])
    }

    @Test("While away at least six days stay pending, under the same lay number")
    func topUpKeepsSixDays() {
        var daemon = VirtualDaemon(lunchAndTea(), now: instant("2026-06-01T08:00:00Z"), display: .away)
        for day in 1...20 {
            daemon.run(until: instant("2026-06-01T08:00:00Z").adding(seconds: Int64(day) * 86_400))
            let pending = daemon.machine.pendingStarts
            let horizon = (pending.last?.start.at.seconds ?? 0) - daemon.now.seconds
            #expect(horizon >= 6 * 86_400 - 86_400 / 2, "day \(day)")
            #expect(daemon.machine.currentLay?.number == 1)
        }
        // Every lunch and tea of the 20 days was delivered exactly once.
        #expect(daemon.posts.count == 40)
        #expect(Set(daemon.posts.map(\.start.at)).count == 40)
    }

    @Test("A household change while away makes a new lay; a bad file keeps the last good one")
    func householdChanges() {
        var daemon = VirtualDaemon(lunchAndTea(), now: instant("2026-06-01T08:00:00Z"), display: .away)
        var changed = lunchAndTea()
        changed.items[0].time = time("12:30")
        let loaded = LoadedHousehold(
            load: HouseholdLoad(household: changed, problems: []), digest: 2, loadedAt: daemon.now)
        daemon.send(.household(.success(loaded)))
        #expect(daemon.machine.currentLay?.number == 2)
        #expect(daemon.machine.pendingStarts.first?.start.local.clockTime == time("12:30"))
        daemon.send(.household(.failure(HouseholdFileError(file: "h.json", reason: .notAnObject))))
        #expect(daemon.machine.currentLay?.number == 2)
        #expect(daemon.machine.pendingStarts.first?.start.local.clockTime == time("12:30"))
        #expect(daemon.machine.householdError?.reason == .notAnObject)
    }

    @Test("A bad file never silences lunch: a settings value that cannot be read keeps the last good one")
    func unreadableSettingsKeepTheLastGood() throws {
        var daemon = VirtualDaemon(lunchAndTea(), now: instant("2026-06-01T08:00:00Z"), display: .away)
        let broken = try #require(
            success(
                parse(
                    """
                    { "version": 1, "timeZone": "Europe/London",
                      "settings": { "notifyInOtherApps": "yes", "exactAlarms": false, "chime": 3 },
                      "items": [ { "id": "lunch", "label": "Lunch", "kind": "meal", "time": "12:30", "repeat": "daily" } ] }
                    """)))
        // Read alone, the file says off: the default of a value it could not read.
        #expect(!broken.household.settings.notifyInOtherApps)
        daemon.send(.household(.success(LoadedHousehold(load: broken, digest: 2, loadedAt: daemon.now))))
        #expect(daemon.machine.currentLay?.number == 2)
        #expect(daemon.machine.pendingStarts.first?.start.local.clockTime == time("12:30"))
        let settings = daemon.machine.household?.load.household.settings
        #expect(settings?.notifyInOtherApps == true)
        #expect(settings?.exactAlarms == false, "a value the file did say is taken")
        let problems = daemon.machine.household?.load.problems.map(\.description) ?? []
        #expect(
            problems.contains {
                $0.contains("field 'settings.notifyInOtherApps'")
                    && $0.hasSuffix("keeping the last good household's value, true")
            }, "\(problems)")
        #expect(problems.contains { $0.contains("field 'settings.chime'") && $0.hasSuffix("value, bell") })

        let noSettings = try #require(
            success(
                parse(
                    """
                    { "version": 1, "timeZone": "Europe/London", "settings": [],
                      "items": [ { "id": "lunch", "label": "Lunch", "kind": "meal", "time": "12:45", "repeat": "daily" } ] }
                    """)))
        daemon.send(.household(.success(LoadedHousehold(load: noSettings, digest: 3, loadedAt: daemon.now))))
        #expect(daemon.machine.currentLay?.number == 3)
        #expect(daemon.machine.household?.load.household.settings.notifyInOtherApps == true)
        #expect(daemon.machine.household?.load.household.settings.exactAlarms == false)
    }

    @Test("Without an earlier household a settings value that cannot be read takes its default: off until turned on")
    func unreadableSettingsWithoutAnEarlierHouseholdAreOff() throws {
        let broken = try #require(
            success(
                parse(
                    """
                    { "version": 1, "settings": { "notifyInOtherApps": "yes" },
                      "items": [ { "id": "lunch", "label": "Lunch", "kind": "meal", "time": "13:00", "repeat": "daily" } ] }
                    """)))
        let now = instant("2026-06-01T08:00:00Z")
        var machine = DaemonMachine(config: MachineConfig(), persisted: PersistedState(), now: now)
        _ = machine.startAfterRestart(
            file: .away, fileWrittenAt: nil,
            household: .success(LoadedHousehold(load: broken, digest: 1, loadedAt: now)), lastGood: nil,
            stateProven: true, now: now)
        #expect(machine.currentLay == nil)
        #expect(machine.household?.load.problems.first?.message.hasSuffix("using false") == true)
    }

    @Test("Off until a carer turns it on: nothing is laid while notifyInOtherApps is false")
    func offUntilTurnedOn() {
        let off = household("Europe/London", [item("lunch", "13:00")], notify: false)
        let daemon = VirtualDaemon(off, now: instant("2026-06-01T08:00:00Z"), display: .away)
        #expect(daemon.machine.pendingStarts.isEmpty)
        #expect(daemon.machine.currentLay == nil)
    }

    @Test("After a restart the lay resumes under its number; a start missed while down is delivered once, within grace")
    func restartResumesAndDeliversOnce() {
        var first = VirtualDaemon(lunchAndTea(), now: instant("2026-06-01T08:00:00Z"), display: .away)
        first.run(until: instant("2026-06-01T11:59:50Z"))
        let remembered = first.machine.persisted
        // The daemon was down across 13:00 BST and comes back at 12:02 UTC.
        var second = VirtualDaemon(
            lunchAndTea(), now: instant("2026-06-01T12:02:00Z"), display: .away, persisted: remembered)
        #expect(second.machine.currentLay?.number == 1)
        #expect(second.posts.map(\.start.title) == ["Lunch"])
        // And a second restart does not deliver it again.
        var third = VirtualDaemon(
            lunchAndTea(), now: instant("2026-06-01T12:03:00Z"), display: .away, persisted: second.machine.persisted)
        #expect(third.posts.isEmpty)
        third.run(until: instant("2026-06-01T18:30:00Z"))
        #expect(third.posts.map(\.start.title) == ["Tea"])
        second.run(until: instant("2026-06-01T12:44:00Z"))
        #expect(second.shown.count == 1)
    }

    @Test("A restart beyond the grace window drops the missed start silently and records it")
    func restartBeyondGraceDrops() {
        var first = VirtualDaemon(lunchAndTea(), now: instant("2026-06-01T08:00:00Z"), display: .away)
        first.run(until: instant("2026-06-01T11:00:00Z"))
        let second = VirtualDaemon(
            lunchAndTea(), now: instant("2026-06-01T12:20:00Z"), display: .away, persisted: first.machine.persisted)
        #expect(second.posts.isEmpty)
        #expect(second.events(.dropped).map(\.at) == [instant("2026-06-01T12:00:00Z")])
    }

    @Test(
        "A restart in the foreground withdraws what is shown and lays nothing; lay numbers keep growing across restarts"
    )
    func restartInForeground() {
        var first = VirtualDaemon(lunchAndTea(), now: instant("2026-06-01T08:00:00Z"), display: .away)
        first.run(until: instant("2026-06-01T12:00:10Z"))
        let second = VirtualDaemon(
            lunchAndTea(), now: instant("2026-06-01T12:01:00Z"), display: .foreground,
            persisted: first.machine.persisted)
        #expect(second.machine.pendingStarts.isEmpty)
        #expect(second.actions.contains { if case .close = $0 { return true } else { return false } })
        var third = VirtualDaemon(
            lunchAndTea(), now: instant("2026-06-01T12:02:00Z"), display: .foreground,
            persisted: second.machine.persisted)
        third.send(.display(.away))
        #expect(third.machine.currentLay?.number == 2)
    }

    @Test(
        "A forward clock jump (a resume) delivers at most the latest start within grace; the same instants keep the lay"
    )
    func forwardClockJump() {
        var daemon = VirtualDaemon(lunchAndTea(), now: instant("2026-06-01T08:00:00Z"), display: .away)
        daemon.jump(to: instant("2026-06-01T12:01:00Z"))
        daemon.send(.clockChanged(reason: "the clock jumped"))
        #expect(daemon.posts.map(\.start.title) == ["Lunch"])
        #expect(daemon.machine.currentLay?.number == 1)
        #expect(daemon.machine.pendingStarts.first?.start.title == "Tea")
    }

    @Test("A backward clock jump after a delivery posts nothing twice, and keeps the lay")
    func backwardClockJump() {
        var daemon = VirtualDaemon(lunchAndTea(), now: instant("2026-06-01T08:00:00Z"), display: .away)
        daemon.run(until: instant("2026-06-01T12:30:00Z"))
        daemon.jump(to: instant("2026-06-01T11:00:00Z"))
        daemon.send(.clockChanged(reason: "the clock jumped"))
        let starts = daemon.machine.pendingStarts.map(\.start.at)
        #expect(starts.first == instant("2026-06-01T18:30:00Z"))
        #expect(Set(starts).count == starts.count)
        #expect(daemon.machine.currentLay?.number == 1)
        daemon.run(until: instant("2026-06-01T12:30:00Z"))
        #expect(daemon.posts.map(\.start.title) == ["Lunch"])
    }

    @Test("When the notification server restarts, its old ids are forgotten, never closed")
    func serverRestartForgetsIds() {
        var daemon = VirtualDaemon(lunchAndTea(), now: instant("2026-06-01T08:00:00Z"), display: .away)
        daemon.run(until: instant("2026-06-01T12:00:01Z"))
        // Past the grace window: the wiped card is not posted again.
        daemon.jump(to: instant("2026-06-01T12:05:30Z"))
        daemon.send(.serverRestarted(answering: nil))
        #expect(daemon.machine.persisted.delivered.isEmpty)
        #expect(daemon.posts.count == 1)
        daemon.send(.display(.foreground))
        #expect(!daemon.actions.suffix(6).contains { if case .close = $0 { return true } else { return false } })
    }

    @Test("A card wiped by a server restart, inside its life and rule 2's window while away, is posted again once")
    func aWipedCardIsPostedAgainOnce() {
        var daemon = VirtualDaemon(lunchAndTea(), now: instant("2026-06-01T08:00:00Z"), display: .away)
        daemon.run(until: instant("2026-06-01T12:00:01Z"))
        daemon.jump(to: instant("2026-06-01T12:00:40Z"))
        daemon.send(.serverRestarted(answering: nil))
        #expect(daemon.posts.map(\.start.title) == ["Lunch", "Lunch"])
        let history = daemon.actions.compactMap { action -> HistoryRecord? in
            if case .record(let record) = action { return record } else { return nil }
        }
        // One call, one `delivered` line: the card posted again is history's `reposted`.
        #expect(history.filter { $0.event == .delivered }.count == 1)
        let again = history.filter { $0.event == .reposted }
        #expect(again.count == 1)
        #expect(again.last?.reason?.contains("posted again once") == true, "\(again)")
        // A second restart: once means once.
        daemon.send(.serverRestarted(answering: nil))
        #expect(daemon.posts.count == 2)
        #expect(daemon.machine.persisted.delivered.isEmpty)
        // Rule 1 still holds: the display's return takes away whatever is shown.
        daemon.send(.display(.foreground))
        #expect(daemon.machine.persisted.delivered.isEmpty)
    }

    @Test("One bell per call, ever: a card posted again on a restarted server is silent")
    func aCardPostedAgainOnARestartedServerRingsNoSecondBell() {
        var daemon = VirtualDaemon(lunchAndTea(), now: instant("2026-06-01T08:00:00Z"), display: .away)
        daemon.run(until: instant("2026-06-01T12:00:01Z"))
        let bells = { (daemon: VirtualDaemon) in daemon.actions.filter { $0 == .chime }.count }
        #expect(bells(daemon) == 1, "the call rang \(bells(daemon)) times")
        daemon.jump(to: instant("2026-06-01T12:00:40Z"))
        daemon.send(.serverRestarted(answering: nil))
        #expect(daemon.posts.map(\.start.title) == ["Lunch", "Lunch"])
        #expect(bells(daemon) == 1, "the card posted again rang a second bell")
        // The next call rings as every call does.
        daemon.run(until: instant("2026-06-01T18:30:01Z"))
        #expect(bells(daemon) == 2)
    }

    @Test("A card posted again after its server went away waits for the desktop's server; a new call may start one")
    func aRepostNeverHasTheBusStartAServer() {
        var daemon = VirtualDaemon(lunchAndTea(), now: instant("2026-06-01T08:00:00Z"), display: .away)
        daemon.run(until: instant("2026-06-01T12:00:01Z"))
        let lunch = daemon.posts.first?.key
        #expect(lunch.map { daemon.machine.mayStartAServer(for: $0) } == true, "a new call may start a server")
        daemon.holdReplies = true
        daemon.send(.serverRestarted(answering: nil))
        let again = daemon.heldPosts
        #expect(again.count == 1)
        #expect(again.allSatisfy { !daemon.machine.mayStartAServer(for: $0) }, "the repost may start a server")
    }

    @Test("A call no server took is never recorded delivered: it waits, and is dropped with the reason")
    func aCallNoServerTookIsNeverDelivered() {
        var daemon = VirtualDaemon(lunchAndTea(), now: instant("2026-06-01T08:00:00Z"), display: .away)
        daemon.holdReplies = true
        daemon.run(until: instant("2026-06-01T12:00:01Z"))
        let key = DeliveryKey(lay: 1, at: instant("2026-06-01T12:00:00Z"))
        let reason = "no notification server on the session bus, and the session has no display"
        daemon.send(.postFailed(key, reason: reason, failure: .serverUnavailable))
        // Retries at 1, 2, 4, 8, then every 15 s: about 25 of them fill the 300 s grace window.
        for _ in 0..<60 {
            guard daemon.fireNextTimer(notAfter: instant("2026-06-01T12:10:00Z")) else { break }
            if let last = daemon.posts.last?.key, daemon.heldPosts.contains(last) {
                daemon.heldPosts.removeAll()
                daemon.send(.postFailed(key, reason: reason, failure: .serverUnavailable))
            }
        }
        let history = daemon.actions.compactMap { action -> HistoryRecord? in
            if case .record(let record) = action { return record } else { return nil }
        }
        #expect(!history.contains { $0.event == .delivered }, "\(history)")
        let dropped = history.first { $0.event == .dropped && $0.at == key.at }
        #expect(dropped?.reason?.contains("has no display") == true, "\(history)")
        #expect(!daemon.actions.contains(.chime), "the bell rang for a call nobody saw")
    }

    @Test("The display state line is foreground or away, optionally with a pid; anything else is refused")
    func displayStateLines() {
        #expect(DisplayStateLine(parsing: "away\n") == DisplayStateLine(state: .away))
        #expect(DisplayStateLine(parsing: "foreground pid=42") == DisplayStateLine(state: .foreground, pid: 42))
        for bad in ["", "Away", "foreground pid=", "foreground pid=-1", "away now", "foreground pid=1 x", "\u{0}"] {
            #expect(DisplayStateLine(parsing: bad) == nil, "\(bad)")
        }
    }

    @Test("What the daemon persists reads back the same")
    func persistedRoundTrip() {
        var daemon = VirtualDaemon(lunchAndTea(), now: instant("2026-06-01T08:00:00Z"), display: .away)
        daemon.run(until: instant("2026-06-01T12:00:01Z"))
        let state = daemon.machine.persisted
        #expect(PersistedState(json: state.json) == state)
        #expect(PersistedState(json: .string("garbage")) == PersistedState())
    }
}

@Suite("The carer's sample call")
struct SampleCallTests {
    @Test("A sample call leaves the screen after ten seconds, and history never holds it")
    func aSampleLeavesAfterTenSeconds() {
        var daemon = VirtualDaemon(lunchAndTea(), now: instant("2026-06-01T08:00:00Z"), display: .away)
        daemon.send(.trySample)
        #expect(daemon.posts.map(\.start.title) == ["Daysome"])
        #expect(daemon.shown.count == 1)
        daemon.run(until: instant("2026-06-01T08:00:11Z"))
        #expect(daemon.shown.isEmpty)
        #expect(!daemon.actions.contains { if case .record(let record) = $0 { record.lay == 0 } else { false } })
    }

    @Test("A sample is never over the display: taken away on her return, also while its post is out")
    func aSampleIsTakenAwayOnHerReturn() {
        var daemon = VirtualDaemon(lunchAndTea(), now: instant("2026-06-01T08:00:00Z"), display: .away)
        daemon.send(.trySample)
        daemon.send(.display(.foreground))
        #expect(daemon.shown.isEmpty)
        daemon.send(.display(.away))
        daemon.holdReplies = true
        daemon.send(.trySample)
        daemon.send(.display(.foreground))
        let held = daemon.heldPosts
        daemon.holdReplies = false
        for key in held { daemon.reply(key) }
        #expect(daemon.shown.isEmpty, "a sample answered after her return stayed")
        daemon.send(.trySample)
        #expect(daemon.posts.count == 2, "a sample was posted over the display")
    }

    @Test("Two tries in one second leave no card behind: each sample is its own, and her return takes both")
    func twoTriesInOneSecondLeaveNoCardBehind() {
        var daemon = VirtualDaemon(lunchAndTea(), now: instant("2026-06-01T08:00:00Z"), display: .away)
        daemon.holdReplies = true
        daemon.send(.trySample)
        daemon.send(.trySample)
        let held = daemon.heldPosts
        #expect(Set(held).count == 2, "two samples under one key: \(held)")
        daemon.holdReplies = false
        for key in held { daemon.reply(key) }
        #expect(daemon.shown.count == 1, "the first sample's card stayed beside the second")
        daemon.send(.display(.foreground))
        #expect(daemon.shown.isEmpty, "a sample's card stayed over the display")
        #expect(daemon.machine.invariantViolations().isEmpty)
    }
}
