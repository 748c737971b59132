// The edges of the daemon's life on the virtual clock: clock steps and resumes, zone changes,
// restarts with a broken household or a changed one, a notification server that is another
// instance than the one that gave the ids, and state files that cannot be trusted.

import DaysomeCore
import Testing

/// Loads `home` as the daemon would, with a digest of its own.
private func loaded(_ home: Household, digest: UInt64, at now: Instant, kept: Bool = false) -> LoadedHousehold {
    LoadedHousehold(
        load: HouseholdLoad(household: home, problems: []), digest: digest, loadedAt: now, fromKeptCopy: kept)
}

private let brokenFile = HouseholdFileError(file: "/home/her/.config/daysome/household.json", reason: .notAnObject)

@Suite("Edges: clock steps, restarts, servers and state files")
struct EdgeTests {
    let morning = instant("2026-06-01T08:00:00Z")
    let lunch = instant("2026-06-01T12:00:00Z")

    // MARK: One call per item occurrence, whatever the clock does

    @Test("A clock stepped back two seconds after lunch was called posts nothing twice (rules 2 and 5)")
    func backwardStepAfterDelivery() {
        var daemon = VirtualDaemon(lunchAndTea(), now: self.morning, display: .away)
        daemon.run(until: self.lunch)
        #expect(daemon.posts.count == 1)
        daemon.jump(to: self.lunch.adding(seconds: -2))
        daemon.send(.clockChanged(reason: "the clock was stepped back"))
        daemon.run(until: self.lunch.adding(seconds: 120))
        #expect(daemon.posts.map(\.start.title) == ["Lunch"])
    }

    @Test("A start already called is never posted again by a new lay after a zone change moves it later")
    func zoneChangeNeverCallsTheSameOccurrenceTwice() {
        var daemon = VirtualDaemon(lunchAndTea(), now: self.morning, display: .away)
        daemon.run(until: self.lunch.adding(seconds: 60))
        #expect(daemon.posts.map(\.start.title) == ["Lunch"])
        // The household's zone moves an hour west: 13:00 there is 14:00 in London, still to come.
        let west = household("Atlantic/Azores", [item("lunch", "13:00", end: "13:45"), item("tea", "19:30")])
        daemon.send(.household(.success(loaded(west, digest: 2, at: daemon.now))))
        #expect(daemon.machine.currentLay?.number == 2)
        #expect(
            !daemon.machine.pendingStarts.contains {
                $0.start.itemIds == ["lunch"] && $0.start.at.seconds < self.lunch.seconds + 86_400
            })
        daemon.run(until: instant("2026-06-01T15:00:00Z"))
        #expect(daemon.posts.map(\.start.title) == ["Lunch"])
    }

    @Test("What was called is remembered across a restart: the next daemon calls that occurrence no more")
    func calledOccurrencesSurviveARestart() {
        var first = VirtualDaemon(lunchAndTea(), now: self.morning, display: .away)
        first.run(until: self.lunch.adding(seconds: 30))
        var kept = PersistedState(json: first.machine.persisted.json)
        #expect(kept.called.map(\.itemId) == ["lunch"])
        // The lay ended (a return while stopped, say) and the clock is now behind lunch's minute:
        // the new lay starts before it.
        kept.lay = nil
        var second = VirtualDaemon(lunchAndTea(), now: self.lunch.adding(seconds: -5), display: .away, persisted: kept)
        #expect(second.machine.currentLay?.number == 2)
        second.run(until: self.lunch.adding(seconds: 60))
        #expect(second.posts.isEmpty)
    }

    // MARK: Rule 2 at every change

    @Test("A resume from suspend with the same plan keeps the lay and its number")
    func resumeKeepsTheLay() {
        var daemon = VirtualDaemon(lunchAndTea(), now: self.morning, display: .away)
        daemon.jump(to: instant("2026-06-01T10:00:00Z"))
        daemon.send(.clockChanged(reason: "the clock jumped (resume)"))
        #expect(daemon.machine.currentLay?.number == 1)
        #expect(daemon.events(.laid).count == 1)
        #expect(daemon.events(.cleared).isEmpty)
    }

    @Test("A zone change that moves the plan's instants is a new lay")
    func zoneChangeIsANewLay() {
        var daemon = VirtualDaemon(lunchAndTea(), now: self.morning, display: .away)
        let paris = household("Europe/Paris", [item("lunch", "13:00", end: "13:45"), item("tea", "19:30")])
        daemon.send(.household(.success(loaded(paris, digest: 1, at: daemon.now))))
        daemon.send(.clockChanged(reason: "the system zone changed"))
        #expect(daemon.machine.currentLay?.number == 2)
        #expect(daemon.machine.pendingStarts.first?.start.at == instant("2026-06-01T11:00:00Z"))
    }

    @Test("Without exact alarms, a start that fell due before a clock change is delivered within grace, not lost")
    func managerStartsSettleBeforeAClockChange() {
        var home = lunchAndTea()
        home.settings.exactAlarms = false
        var (machine, _) = managerMachine(home, now: self.morning, display: .away)
        let actions = machine.handle(.clockChanged(reason: "the clock jumped"), now: self.lunch.adding(seconds: 20))
        #expect(posts(actions).map(\.title) == ["Lunch"])
        #expect(machine.currentLay?.number == 1)
        // The manager's late fire for the same lay finds it delivered: one call.
        #expect(posts(machine.handle(.fired(lay: 1), now: self.lunch.adding(seconds: 40))).isEmpty)
    }

    @Test("Without exact alarms, a start too late for grace at a household change is dropped and recorded")
    func managerStartsDroppedAndRecordedAtAHouseholdChange() {
        var home = lunchAndTea()
        home.settings.exactAlarms = false
        var (machine, _) = managerMachine(home, now: self.morning, display: .away)
        let actions = machine.handle(
            .household(.success(loaded(home, digest: 9, at: self.lunch))), now: self.lunch.adding(seconds: 400))
        let dropped = actions.compactMap {
            if case .record(let record) = $0, record.event == .dropped { record } else { nil }
        }
        #expect(dropped.map(\.at) == [self.lunch])
        #expect(posts(actions).isEmpty)
    }

    @Test("A household changed while the daemon was down still settles the start owed at restart")
    func restartWithAChangedHouseholdSettlesWhatWasOwed() {
        var first = VirtualDaemon(lunchAndTea(), now: self.morning, display: .away)
        first.run(until: self.lunch.adding(seconds: -30))
        let changed = household("Europe/London", [item("lunch", "13:00", end: "13:45"), item("tea", "20:00")])
        var machine = DaemonMachine(config: MachineConfig(), persisted: first.machine.persisted, now: self.lunch)
        let actions = machine.startAfterRestart(
            file: .away, fileWrittenAt: nil, household: .success(loaded(changed, digest: 2, at: self.lunch)),
            lastGood: loaded(lunchAndTea(), digest: 1, at: self.morning, kept: true), stateProven: true,
            now: self.lunch.adding(seconds: 30))
        #expect(posts(actions).map(\.title) == ["Lunch"])
        #expect(machine.currentLay?.number == 2)
    }

    @Test("A new lay's number is persisted before the manager holds a timer named after it")
    func layNumberPersistedBeforeTheManagerHoldsIt() {
        let (_, actions) = managerMachine(lunchAndTea(), now: self.morning, display: .away)
        let persist = actions.firstIndex(of: .persist)
        let lay = actions.firstIndex { if case .layTimers = $0 { true } else { false } }
        #expect(persist != nil && lay != nil && persist! < lay!)
    }

    @Test("Bringing the day back, promised after a call, survives a clock step that rebuilds the wheel")
    func bringBackSurvivesAClockStep() {
        var home = lunchAndTea()
        home.settings.bringDayBack = true
        var daemon = VirtualDaemon(home, now: self.morning, display: .away)
        daemon.run(until: self.lunch.adding(seconds: 1))
        daemon.jump(to: self.lunch.adding(seconds: 1))
        daemon.send(.clockChanged(reason: "the clock was stepped"))
        daemon.run(until: self.lunch.adding(seconds: 5))
        #expect(daemon.actions.contains { if case .bringDisplayBack = $0 { true } else { false } })
    }

    // MARK: Rule 9 across restarts

    @Test("A restart with a broken household file lays from the kept copy of the last good one, under the same lay")
    func restartWithABrokenFileKeepsLaying() {
        var first = VirtualDaemon(lunchAndTea(), now: self.morning, display: .away)
        first.run(until: instant("2026-06-01T09:00:00Z"))
        let restart = instant("2026-06-01T10:00:00Z")
        var machine = DaemonMachine(config: MachineConfig(), persisted: first.machine.persisted, now: restart)
        _ = machine.startAfterRestart(
            file: .away, fileWrittenAt: nil, household: .failure(brokenFile),
            lastGood: loaded(lunchAndTea(), digest: 1, at: self.morning, kept: true), stateProven: true, now: restart)
        #expect(machine.currentLay?.number == 1)
        #expect(machine.pendingStarts.first?.start.title == "Lunch")
        #expect(machine.householdError == brokenFile)
        #expect(machine.household?.fromKeptCopy == true)
        #expect(machine.notLaidReason == nil)
    }

    @Test("With a broken file and nothing kept, status's reason names the file, not the carer's switch")
    func nothingKeptNamesTheRealReason() {
        var machine = DaemonMachine(config: MachineConfig(), persisted: PersistedState(), now: self.morning)
        _ = machine.startAfterRestart(
            file: .away, fileWrittenAt: nil, household: .failure(brokenFile), lastGood: nil, stateProven: true,
            now: self.morning)
        #expect(machine.currentLay == nil)
        #expect(machine.notLaidReason?.contains("household file is not a JSON object") == true)
        #expect(machine.notLaidReason?.contains("notifyInOtherApps") == false)
    }

    // MARK: Notification ids and their server

    @Test("Ids another server instance gave (before a reboot) are forgotten at start-up, never closed")
    func idsOfAnotherServerAreNeverClosed() {
        var first = VirtualDaemon(lunchAndTea(), now: self.morning, display: .away)
        first.send(.serverIdentified("boot-1 bus-a :1.7"))
        first.run(until: self.lunch.adding(seconds: 10))
        #expect(first.machine.persisted.delivered.first?.server == "boot-1 bus-a :1.7")
        var second = DaemonMachine(
            config: MachineConfig(), persisted: PersistedState(json: first.machine.persisted.json),
            now: self.lunch.adding(seconds: 20))
        var actions = second.handle(.serverIdentified("boot-2 bus-b :1.3"), now: self.lunch.adding(seconds: 20))
        actions += second.startAfterRestart(
            file: .foreground, fileWrittenAt: nil,
            household: .success(loaded(lunchAndTea(), digest: 1, at: self.lunch)), lastGood: nil, stateProven: true,
            now: self.lunch.adding(seconds: 20))
        #expect(second.persisted.delivered.isEmpty)
        #expect(!actions.contains { if case .close = $0 { true } else { false } })
    }

    @Test("The same server instance after a daemon restart still gets its call closed on return")
    func idsOfTheSameServerAreClosed() {
        var first = VirtualDaemon(lunchAndTea(), now: self.morning, display: .away)
        first.send(.serverIdentified("boot-1 bus-a :1.7"))
        first.run(until: self.lunch.adding(seconds: 10))
        var second = DaemonMachine(
            config: MachineConfig(), persisted: first.machine.persisted, now: self.lunch.adding(seconds: 20))
        var actions = second.handle(.serverIdentified("boot-1 bus-a :1.7"), now: self.lunch.adding(seconds: 20))
        actions += second.startAfterRestart(
            file: .foreground, fileWrittenAt: nil,
            household: .success(loaded(lunchAndTea(), digest: 1, at: self.lunch)), lastGood: nil, stateProven: true,
            now: self.lunch.adding(seconds: 20))
        #expect(actions.contains { if case .close = $0 { true } else { false } })
    }

    @Test("A post in flight when the server starts (first boot: the post activated it) keeps its id and is withdrawn")
    func postInFlightSurvivesTheServerStarting() {
        var daemon = VirtualDaemon(lunchAndTea(), now: self.morning, display: .away)
        daemon.holdReplies = true
        daemon.run(until: self.lunch)
        daemon.send(.serverRestarted(answering: nil))
        daemon.holdReplies = false
        daemon.reply(daemon.heldPosts[0])
        #expect(daemon.shown.count == 1)
        daemon.send(.display(.foreground))
        #expect(daemon.shown.isEmpty)
    }

    @Test("A call posted while no server ran (the post started one) is withdrawn on return, not forgotten")
    func idOfAServerThePostStartedIsKept() {
        var daemon = VirtualDaemon(lunchAndTea(), now: self.morning, display: .away)
        daemon.send(.serverIdentified(nil))
        daemon.holdReplies = true
        daemon.run(until: self.lunch)
        daemon.holdReplies = false
        daemon.reply(daemon.heldPosts[0])
        daemon.send(.serverIdentified("boot-1 bus-a :1.9"))
        #expect(daemon.machine.persisted.delivered.first?.server == "boot-1 bus-a :1.9")
        daemon.send(.display(.foreground))
        #expect(daemon.shown.isEmpty, "the call stayed on screen over the display")
    }

    // MARK: State files that cannot be trusted

    @Test("A lay.json whose numbers are out of range is refused with the field named, never a trap")
    func stateNumbersOutOfRangeAreRefused() throws {
        for (text, field) in [
            (#"{"layCounter": 1e300, "lay": null, "delivered": []}"#, "layCounter"),
            (#"{"layCounter": -1}"#, "layCounter"),
            (#"{"layCounter": 2.5}"#, "layCounter"),
            (
                #"{"layCounter": 3, "lay": {"number": 1e20, "from": "2026-06-01T08:00:00Z", "laidUntil": "2026-06-08T08:00:00Z", "householdDigest": "1", "handledThrough": "2026-06-01T08:00:00Z"}}"#,
                "lay.number"
            ),
            (
                #"{"delivered": [{"lay": 1, "at": "2026-06-01T12:00:00Z", "itemIds": ["lunch"], "expiresAt": "2026-06-01T12:45:00Z", "notificationId": 5000000000}]}"#,
                "delivered[0].notificationId"
            ),
            (#"{"format": 99}"#, "format"),
        ] {
            let json = try JSONParser.parse(text)
            #expect(throws: StateFileProblem.self, "\(text)") { try PersistedState(decoding: json) }
            do {
                _ = try PersistedState(decoding: json)
            } catch {
                #expect(error.field == field, "\(text)")
            }
        }
    }

    @Test("A lay.json of the first format (no format key) still reads: an upgrade never loses the lay counter")
    func firstFormatStillReads() throws {
        let text = #"""
            {"layCounter": 7, "lay": {"number": 7, "from": "2026-06-01T08:00:00Z", "laidUntil": "2026-06-08T08:00:00Z",
             "householdDigest": "ab", "handledThrough": "2026-06-01T08:00:00Z"},
             "delivered": [{"lay": 7, "at": "2026-06-01T12:00:00Z", "itemIds": ["lunch"], "expiresAt": "2026-06-01T12:45:00Z", "notificationId": 4}]}
            """#
        let state = try PersistedState(decoding: try JSONParser.parse(text))
        #expect(state.layCounter == 7)
        #expect(state.lay?.householdDigest == 0xab)
        #expect(state.delivered.first?.notificationId == 4)
        #expect(state.delivered.first?.server == nil)
    }

    @Test("A history line with a lay number out of range is unreadable, never a trap")
    func historyLineOutOfRange() throws {
        let line = try JSONParser.parse(#"{"time": "2026-06-01T12:00:00Z", "event": "delivered", "lay": 1e20}"#)
        #expect((try? HistoryRecord(json: line)) == nil)
        let good = try JSONParser.parse(
            #"{"time": "2026-06-01T12:00:00Z", "event": "laid", "lay": 3, "at": null, "itemIds": [], "reason": null}"#)
        #expect((try? HistoryRecord(json: good))?.lay == 3)
    }
}

@Suite("Rule 9 for settings across a restart")
struct KeptSettingsTests {
    @Test("A setting the file cannot read at start-up keeps the kept copy's value, not the default (off)")
    func unreadableSettingAtStartUpKeepsTheKeptCopys() {
        let now = instant("2026-06-01T08:00:00Z")
        var unreadable = lunchAndTea()
        unreadable.settings.notifyInOtherApps = false
        let problem = HouseholdProblem(
            file: "h.json", itemId: nil, field: "settings.notifyInOtherApps", message: "is not true or false")
        let file = LoadedHousehold(
            load: HouseholdLoad(household: unreadable, problems: [problem]), digest: 2, loadedAt: now)
        let kept = LoadedHousehold(
            load: HouseholdLoad(household: lunchAndTea(), problems: []), digest: 1, loadedAt: now, fromKeptCopy: true)
        var machine = DaemonMachine(config: MachineConfig(), persisted: PersistedState(), now: now)
        _ = machine.startAfterRestart(
            file: .away, fileWrittenAt: nil, household: .success(file), lastGood: kept, stateProven: true, now: now)
        #expect(machine.notifyInOtherApps)
        #expect(machine.currentLay?.number == 1)
        #expect(machine.household?.fromKeptCopy == false)
    }
}
