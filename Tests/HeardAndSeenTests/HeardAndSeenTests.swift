// Heard and seen: the chime recorded from a real sound server, and the day brought back over a
// real session bus. Each test builds its own world (PulseAudio with a null sink recorded by
// parec and measured with sox; a private session bus with dunst or a fake screen saver; a real
// `systemd --user`) around the real daysomed, and waits for a real whole minute. The worlds share
// nothing, so the tests run side by side and the minutes they wait for overlap.

import DaysomeCore
import DaysomeTestSupport
import Glibc
import Testing

/// Quieter than this (RMS, full scale 1) is silence: the null sink's floor is digital zero.
let silentRMS = 0.001
/// Louder than this is the bell (its peak is a third of full scale).
let loudRMS = 0.02

@Suite("The chime is heard and the day comes back", .timeLimit(.minutes(4)))
struct HeardAndSeenTests {
    // MARK: The chime

    /// The bell at a call's minute; then, in the same sound world with dunst, `try` plays it (away:
    /// with a sample call; in front: alone), a paused notification server keeps it silent only where
    /// Do Not Disturb is respected, and a player that reaches no sound server gives way to the next.
    /// A daemon for each.
    @Test func theBellIsHeardAtTheStartsMinuteAndOnTryUnlessAPausedServerIsRespectedAndAFailingPlayerGivesWay()
        async throws
    {
        let world = try await TestWorld.start([.soundServer, .sessionBus, .notificationServer])
        defer { world.stop() }
        // The daemon finds its player itself, on a PATH that holds only paplay (pw-play, its first
        // choice, would talk to a PipeWire this world does not run).
        let paplay = try findExecutable("paplay", package: "pulseaudio-utils")
        let players = "\(world.directory.path)/bin"
        guard symlink(paplay, "\(players)/paplay") == 0 else {
            throw HarnessError("symlink \(players)/paplay failed: \(errnoText(errno))")
        }
        let minute = nextMinute(leaving: 8)
        let daemon = try await world.startDaemon(
            "minute", notifier: "log", householdText: household(callAt: minute), environment: ["PATH": players])
        try await world.expectQueued(daemon, at: minute)
        let chime = try await world.status(daemon).daemon?.chime
        #expect(chime?.player == "\(players)/paplay", "\(String(describing: chime))")
        #expect(chime?.on == true)

        let (recording, bySecond) = try await world.recordAround(minute)
        let before = try await world.loudness(recording, fromWall: Double(minute) - 2, seconds: 2)
        let onset = recording.onset(afterWall: Double(minute) - 2)
        report(
            "bell at the minute: RMS per second from -2 s: \(bySecond.map { fixed($0.rms, 4) }.joined(separator: " ")); "
                + "max \(bySecond.map { fixed($0.maximum, 3) }.joined(separator: " ")); "
                + "heard \(onset.map { signedSeconds($0 - Double(minute)) } ?? "never") after the minute")
        #expect(before.rms < silentRMS, "before the minute: \(before); daysomed said: \(daemon.stderr)")
        #expect(bySecond[2].rms > loudRMS, "the second after the minute: \(bySecond[2]); \(daemon.stderr)")
        #expect(bySecond[2].rms > 20 * max(before.rms, 0.0001), "bell \(bySecond[2]) against silence \(before)")
        // One bell of 1.8 s, dying away: quieter the second after, silent from +3 s on.
        #expect(bySecond[3].rms < bySecond[2].rms && bySecond[5].rms < silentRMS, "one bell, then quiet: \(bySecond)")
        let heard = try #require(onset, "no sound at all; daysomed said: \(daemon.stderr)")
        #expect(heard >= Double(minute) - 0.05 && heard < Double(minute) + 1, "heard at \(heard - Double(minute))")

        let delivered = try await world.history(daemon).filter { $0.event == "delivered" }
        #expect(delivered.map(\.at) == [rfc3339(minute)], "\(delivered)")

        try await self.tryPlaysTheBellAPausedServerSilencesItWhereRespectedAndAFailingPlayerGivesWay(
            world, players: players)
    }

    /// `try` away and in front; a paused server; a failing player (whose PATH, `players`, holds
    /// paplay already). Nothing else in the world is due for half an hour.
    private func tryPlaysTheBellAPausedServerSilencesItWhereRespectedAndAFailingPlayerGivesWay(
        _ world: TestWorld, players: String
    ) async throws {
        // A household whose only call is half an hour away: nothing but `try` makes a sound here.
        let daemon = try await world.startDaemon(householdText: household(callAt: nextMinute(leaving: 1_800)))
        let recording = try await world.startRecording()
        await recording.follow(untilWall: wallSeconds() + 0.5)

        // Away: the bell, and a sample call shown for about ten seconds.
        let asked = wallSeconds()
        let away = try await world.ctl(["try"] + daemon.paths)
        #expect(away.status == 0 && away.stdout.contains("the bell is playing"), "\(away)")
        let shown = try await poll("dunst to show the sample call", timeout: 3, interval: 0.05) { () -> Double? in
            recording.look()
            return try await world.displayedCount() == 1 ? wallSeconds() : nil
        }
        await recording.follow(untilWall: asked + 2.5)
        let heard = try #require(recording.onset(afterWall: asked - 0.5), "no bell; daysomed said: \(daemon.stderr)")
        let before = try await world.loudness(recording, fromWall: asked - 0.5, seconds: 0.5)
        let bell = try await world.loudness(recording, fromWall: heard, seconds: 1)
        let gone = try await poll("the sample call to be withdrawn", timeout: 15, interval: 0.2) { () -> Double? in
            try await world.displayedCount() == 0 ? wallSeconds() : nil
        }
        let closed = try await world.closedSummaries()
        report(
            "try while away: bell heard \(signedSeconds(heard - asked)) after asking (\(bell); before: \(before)), "
                + "call shown \(signedSeconds(shown - asked)), withdrawn \(signedSeconds(gone - asked))")
        #expect(heard - asked < 1, "the bell came \(heard - asked) s after `try`")
        #expect(bell.rms > loudRMS && before.rms < silentRMS, "bell \(bell), before \(before)")
        #expect(gone - asked > 9 && gone - asked < 12, "withdrawn \(gone - asked) s after `try`")
        #expect(closed == ["Daysome"], "dunst's history: \(closed)")

        // In front: the bell only; nothing is shown over the display (rule 1).
        try await world.signal("foreground", to: daemon, awaitSeen: true)
        let history = try await world.historyCount()
        let askedAgain = wallSeconds()
        let inFront = try await world.ctl(["try"] + daemon.paths)
        #expect(inFront.status == 0 && inFront.stdout.contains("nothing shown"), "\(inFront)")
        repeat {
            recording.look()
            let count = try await world.displayedCount()
            #expect(count == 0, "dunst shows \(count) over the display")
            await pause(0.05)
        } while wallSeconds() < askedAgain + 2.5
        recording.stop()
        let heardAgain = recording.onset(afterWall: askedAgain - 0.5)
        let bellAgain = try await world.loudness(recording, fromWall: askedAgain, seconds: 1)
        report(
            "try in front: bell heard \(heardAgain.map { signedSeconds($0 - askedAgain) } ?? "never") after asking "
                + "(\(bellAgain)), nothing shown")
        #expect(heardAgain.map { $0 - askedAgain < 1 } == true, "no bell in front; \(daemon.stderr)")
        #expect(bellAgain.rms > loudRMS, "\(bellAgain)")
        #expect(try await world.historyCount() == history, "dunst got a call while the display was in front")

        // dunst paused: --dnd respect's `try` is silent, --dnd override's (the default) rings.
        let text = household(callAt: nextMinute(leaving: 1_800))
        let respecting = try await world.startDaemon("respect", householdText: text, arguments: ["--dnd", "respect"])
        let overriding = try await world.startDaemon("override", householdText: text, arguments: ["--dnd", "override"])
        let paused = try await world.dunstctl(["set-paused", "true"])
        #expect(paused.status == 0, "\(paused)")
        let pausedRecording = try await world.startRecording()
        await pausedRecording.follow(untilWall: wallSeconds() + 0.5)
        let askedPaused = wallSeconds()
        let quiet = try await world.ctl(["try"] + respecting.paths)
        #expect(quiet.status == 0, "\(quiet)")
        await pausedRecording.follow(untilWall: askedPaused + 2.5)
        let silence = try await world.loudness(pausedRecording, fromWall: askedPaused, seconds: 2)
        let askedOverride = wallSeconds()
        let loud = try await world.ctl(["try"] + overriding.paths)
        #expect(loud.status == 0, "\(loud)")
        await pausedRecording.follow(untilWall: askedOverride + 2.5)
        pausedRecording.stop()
        let overridden = try await world.loudness(pausedRecording, fromWall: askedOverride, seconds: 1)
        report(
            "dunst paused: --dnd respect \(silence) (`try` said: \(quiet.stdout.filter { $0 != "\n" })); "
                + "--dnd override \(overridden)")
        #expect(silence.rms < silentRMS, "respect: \(silence); daysomed said: \(respecting.stderr)")
        #expect(overridden.rms > loudRMS, "override: \(overridden); daysomed said: \(overriding.stderr)")
        #expect(try await world.dunstctl(["set-paused", "false"]).status == 0)

        // pw-play comes first, but this machine's server is PulseAudio: it fails, as the real one
        // does with no PipeWire to reach, and paplay plays.
        let failed = "\(world.directory.path)/pw-play.log"
        try writeInspectingProgram(world, "bin/pw-play", log: failed, status: 1)
        let falling = try await world.startDaemon(
            "players", notifier: "log", householdText: household(callAt: nextMinute(leaving: 1_800)),
            environment: ["PATH": players])
        #expect(try await world.status(falling).daemon?.chime.player == "\(players)/pw-play")
        let playersRecording = try await world.startRecording()
        await playersRecording.follow(untilWall: wallSeconds() + 0.5)
        var heardAfter: [Double] = []
        var answered: [Double] = []
        for _ in 0..<2 {
            let tried = wallSeconds()
            let result = try await world.ctl(["try"] + falling.paths)
            answered.append(wallSeconds() - tried)
            #expect(result.status == 0, "\(result)")
            // Until one bell (1.8 s) has surely died away before the next is asked for.
            await playersRecording.follow(untilWall: tried + 4)
            let onset = playersRecording.onset(afterWall: tried - 0.2)
            heardAfter.append((onset ?? .infinity) - tried)
        }
        playersRecording.stop()
        report(
            "pw-play failing: bell heard \(heardAfter.map(signedSeconds)) after each `try` (answered after "
                + "\(answered.map(signedSeconds)))")
        // Heard at all is the point here (the latency rule is the first phase's): 2 s leaves room
        // for a start-up storm of the other tests' services (once seen: 1.01 s).
        #expect(heardAfter.allSatisfy { $0 < 2 }, "\(heardAfter); daysomed said: \(falling.stderr)")
        // The player that worked plays the next bell: pw-play was tried once.
        #expect(timesLogged(failed).count == 1, "pw-play was tried \(timesLogged(failed).count) times")
        #expect(masksLogged(failed) == ["0000000000000000"], "started with signals blocked: \(masksLogged(failed))")
    }

    /// The day comes back three seconds after a call, by the display command (started as a
    /// program should be, and reaped) or by its unit, which the user manager starts over sd-bus;
    /// the screen saver is asked to wake the screen; and her return within those three seconds
    /// cancels bringing it back and takes the call away. Three daemons on one user manager's bus,
    /// one call each at the same minute.
    @Test func theDayComesBackThreeSecondsAfterACallByItsCommandOrItsUnitAndTheScreenSaverIsAskedToWakeTheScreen()
        async throws
    {
        let world = try TestWorld()
        defer { world.stop() }
        // Two displays as units of one user manager: one stays away, one returns a second after
        // the call. Each unit appends the time it ran to its own log.
        let units = try world.directory.makeDirectory("home/.config/systemd")
        try world.directory.makeDirectory("home/.config/systemd/user")
        var logs: [String: String] = [:]
        for unit in ["daysome-display-test.service", "daysome-display-returned.service"] {
            let log = "\(world.directory.path)/\(unit).started"
            logs[unit] = log
            try writeFile(
                "\(units)/user/\(unit)",
                """
                [Unit]
                Description=Stands in for the day display (\(unit))

                [Service]
                Type=oneshot
                ExecStart=/bin/sh -c 'date +%%s.%%N >> \(log)'

                """)
        }
        try await world.startUserManager()
        let python = try findExecutable("python3", package: "python3-dbus")
        let calls = "\(world.directory.path)/simulate-user-activity"
        let script = try world.directory.write("screensaver.py", fakeScreenSaver)
        let saver = try SpawnedProcess(
            python, [script, calls], environment: world.environment,
            stderrPath: "\(world.directory.path)/screensaver.log")
        world.adopt(saver)
        _ = try await poll("the fake screen saver to own its name", timeout: 10) { () -> Bool? in
            if saver.poll() {
                throw HarnessError("the fake screen saver exited: \(world.directory.read("screensaver.log"))")
            }
            return access(calls + ".ready", F_OK) == 0 ? true : nil
        }
        let log = "\(world.directory.path)/brought-back"
        let command = try writeInspectingProgram(world, "bring-back-display", log: log)
        let minute = nextMinute(leaving: 15)
        let text = household(callAt: minute, bringDayBack: true)
        let daemon = try await world.startDaemon(
            notifier: "log", householdText: text, arguments: ["--display-command", command])
        let away = try await world.startDaemon(
            "away", notifier: "log", householdText: text, arguments: ["--display-unit", "daysome-display-test.service"])
        let returned = try await world.startDaemon(
            "returned", notifier: "log", householdText: text,
            arguments: ["--display-unit", "daysome-display-returned.service"])
        for each in [daemon, away, returned] { try await world.expectQueued(each, at: minute) }
        let bringBack = try await world.status(daemon).daemon?.bringDayBack
        #expect(bringBack?.ready == true, "\(String(describing: bringBack))")
        let means = try await world.status(away).daemon?.bringDayBack.means
        #expect(means == "unit daysome-display-test.service")

        await pause(untilWall: Double(minute) + 1)
        try await world.signal("foreground", to: returned, awaitSeen: true)
        await pause(untilWall: Double(minute) + 7)

        // By the command: once, three seconds after the minute, and the screen woken with it.
        let woken = timesLogged(calls, by: daemon.process.pid)
        let times = timesLogged(log)
        let delivered = try await world.history(daemon).filter { $0.event == "delivered" }
        report(
            "SimulateUserActivity \(woken.map { signedSeconds($0 - Double(minute)) }), brought back "
                + "\(times.map { signedSeconds($0 - Double(minute)) }) after the minute of the call")
        #expect(delivered.map(\.at) == [rfc3339(minute)], "\(delivered)")
        #expect(woken.count == 1, "asked \(woken.count) times; daysomed said: \(daemon.stderr); \(readFile(calls))")
        if let time = woken.first {
            #expect(time - Double(minute) >= 2.9 && time - Double(minute) <= 4.0, "after \(time - Double(minute)) s")
        }
        #expect(times.count == 1, "the display command ran \(times.count) times; daysomed said: \(daemon.stderr)")
        if let time = times.first {
            #expect(time - Double(minute) >= 2.9 && time - Double(minute) <= 4.0, "after \(time - Double(minute)) s")
        }
        // It started as a program should (the daemon's loop blocks SIGTERM and SIGINT for itself),
        // and, once it exited, the daemon reaped it rather than keep a zombie for every call.
        #expect(masksLogged(log) == ["0000000000000000"], "started with signals blocked: \(masksLogged(log))")
        let zombies = children(of: daemon.process.pid).filter { $0.state == "Z" }
        #expect(zombies.isEmpty, "daysomed leaves zombies: \(zombies)")

        // By its unit: started once by the user manager, and the screen woken with it.
        let started = timesLogged(logs["daysome-display-test.service"]!)
        let wokenForTheUnit = timesLogged(calls, by: away.process.pid)
        #expect(wokenForTheUnit.count == 1, "asked \(wokenForTheUnit.count) times for the unit: \(readFile(calls))")
        let startedAfterReturn = timesLogged(logs["daysome-display-returned.service"]!)
        report("unit started \(started.map { signedSeconds($0 - Double(minute)) }) after the minute of the call")
        #expect(
            started.count == 1,
            "started \(started.count) times; \(away.stderr); \(world.directory.read("manager-1.log"))"
        )
        // Three seconds, and then the manager forking and running the unit's command: tens of
        // milliseconds on a quiet machine, up to 0.9 s seen with this whole suite on two cores.
        if let time = started.first {
            #expect(time - Double(minute) >= 2.9 && time - Double(minute) <= 5.0, "after \(time - Double(minute)) s")
        }
        // A return within three seconds cancels bringing it back, and takes the call away.
        #expect(startedAfterReturn.isEmpty, "started after a return: \(startedAfterReturn); \(returned.stderr)")
        #expect(timesLogged(calls, by: returned.process.pid).isEmpty, "the returned daemon woke the screen")
        #expect(timesLogged(calls).count == 2, "the screen saver was asked by someone else too: \(readFile(calls))")
        let returnedHistory = try await world.history(returned)
        #expect(returnedHistory.contains { $0.event == "delivered" && $0.at == rfc3339(minute) }, "\(returnedHistory)")
        #expect(returnedHistory.contains { $0.event == "withdrawn" && $0.at == rfc3339(minute) }, "\(returnedHistory)")
    }
}
