// The display maker's guide, proven: each step of its table (§2) run against the guide's own
// example files (docs/examples, shown verbatim in docs/display-makers.md) under Xvfb with openbox,
// with the real daysomed and daysomectl. The windows are moved as she would move them: another
// app in front, minimise, restore, close, and a display killed outright.

import DaysomeCore
import DaysomeTestSupport
import Glibc
import Testing

/// One world at a time: each holds Xvfb, dunst and more, and a user has only 128 inotify
/// instances, shared with the other suites running meanwhile.
@Suite("The guide's examples, as a display maker runs them", .serialized, .timeLimit(.minutes(4)))
struct DisplayExampleTests {
    /// A session with openbox, a far-away household, and the daemon started with no display file (away).
    func start(
        environment: [String: String] = [:]
    ) async throws -> (
        TestWorld, ExampleWorld, LockWorld
    ) {
        let session = try await TestWorld.start([.sessionBus, .notificationServer])
        let world = try ExampleWorld(session)
        let lockWorld = try LockWorld(session)
        do {
            try await world.startWindowManager()
            try replaceFile(session.household, try farAwayHousehold())
            try await session.startDaemon(environment: environment)
            _ = try await poll("the week to be laid while no display runs", timeout: 5) { () -> Bool? in
                try await session.pending().starts.isEmpty ? nil : true
            }
        } catch {
            world.stop()
            lockWorld.stop()
            session.stop()
            throw error
        }
        return (session, world, lockWorld)
    }

    func stop(_ worlds: (TestWorld, ExampleWorld, LockWorld)) {
        worlds.1.stop()
        worlds.2.stop()
        worlds.0.stop()
    }

    /// Seconds until the display state file starts with `prefix`; fails after `limit`.
    func fileSays(_ prefix: String, _ session: TestWorld, within limit: Double) async throws -> Double {
        let start = monotonicSeconds()
        _ = try await poll("the display state file to say '\(prefix)'", timeout: limit, interval: 0.005) {
            () -> Bool? in
            readFile(session.displayState).hasPrefix(prefix) ? true : nil
        }
        return monotonicSeconds() - start
    }

    /// How long a leave may take to lay the week, as the test reads it (two daysomectl runs a
    /// reading, in the suite's parallel phase). No rule bounds a leave to the second: a call due
    /// meanwhile is still delivered within rule 2's window. A return has its limit, 1 s.
    let leaveLimit = 3.0

    /// Waits until `pending` is non-empty and the display away (laid), or empty and the display
    /// foreground (cleared).
    func pendingIs(laid: Bool, _ session: TestWorld, within limit: Double) async throws {
        _ = try await poll(laid ? "the week to be laid" : "nothing to be pending", timeout: limit, interval: 0.02) {
            () -> Bool? in
            guard try await session.pending().starts.isEmpty != laid else { return nil }
            // The queue is published just before the status: wait for the status to agree too.
            return try await session.status().display?.rawValue == (laid ? "away" : "foreground") ? true : nil
        }
    }

    /// The GTK example on screen and in front, saying foreground: its process and window.
    func dayOnScreen(
        _ session: TestWorld, _ world: ExampleWorld, _ arguments: [String]? = nil
    ) async throws -> (SpawnedProcess, String) {
        let display = try world.startDayDisplay(arguments ?? ["--display-state", session.displayState])
        let window = try await world.window(named: "Today")
        // Read the instant the window is first seen: the app says foreground before its window is
        // first shown (rule 1). Every GTK row starts here, so every one of them asserts it.
        let seen = readFile(session.displayState)
        #expect(seen.hasPrefix("foreground"), "the window was on screen while the file said '\(seen)'")
        try await world.activate(window)
        let withPid = !(arguments ?? []).contains("--no-pid")
        _ = try await self.fileSays("foreground" + (withPid ? " pid=\(display.pid)" : "\n"), session, within: 5)
        try await self.pendingIs(laid: false, session, within: 1)
        return (display, window)
    }

    // MARK: The GTK 4 example (§3.2), the rows of §2's table

    /// Her day on screen, then elsewhere and back, twice: another app in front is away and focus
    /// back is foreground at once; minimised is away and restored is foreground.
    @Test func anotherAppInFrontOrMinimisedIsAwayAndFocusBackOrRestoredIsForegroundAtOnce() async throws {
        let worlds = try await start()
        defer { stop(worlds) }
        let (session, world, _) = worlds
        let (display, window) = try await self.dayOnScreen(session, world)
        _ = try await world.startOtherApp()
        let left = monotonicSeconds()
        try await world.activate(try await world.window(named: "Elsewhere"))
        _ = try await self.fileSays("away pid=\(display.pid)", session, within: 3)
        let away = monotonicSeconds() - left
        try await self.pendingIs(laid: true, session, within: leaveLimit)
        let returned = monotonicSeconds()
        try await world.activate(window)
        _ = try await self.fileSays("foreground pid=\(display.pid)", session, within: 1)
        let back = monotonicSeconds() - returned
        try await self.pendingIs(laid: false, session, within: 1)
        print(
            "[Examples] focus elsewhere: away after \(Int(away * 1_000)) ms; focus back: foreground after \(Int(back * 1_000)) ms"
        )

        try await world.x(world.xdotool, ["windowminimize", window])
        _ = try await self.fileSays("away pid=\(display.pid)", session, within: 3)
        try await self.pendingIs(laid: true, session, within: leaveLimit)
        try await world.activate(window)
        _ = try await self.fileSays("foreground pid=\(display.pid)", session, within: 1)
        try await self.pendingIs(laid: false, session, within: 1)
    }

    /// Every way the display ends, in turn on one session, each a new display on screen first:
    /// with its path and pid choice as parameters (Flatpak option 2, Snap and `--display-state`
    /// need them without editing the code), SIGTERM, its window closed, a second display that
    /// ends the first (GtkApplication is single-instance: started again, the example would hand
    /// its window to the first and exit at once), killed outright (the file still says
    /// foreground: `status`, not the file, is the truth), and a second launcher taking over.
    @Test func eachWayTheDisplayEndsSaysAwayOrIsAwayByItsPidAndASecondDisplayTakesItsPlace() async throws {
        let worlds = try await start()
        defer { stop(worlds) }
        let (session, world, _) = worlds

        // The state file's path and the pid choice are parameters.
        let (bare, _) = try await self.dayOnScreen(
            session, world, ["--display-state", session.displayState, "--no-pid"])
        #expect(readFile(session.displayState) == "foreground\n")
        bare.send(SIGTERM)
        #expect(await bare.exit(within: 5))
        #expect(readFile(session.displayState) == "away\n")
        try await self.pendingIs(laid: true, session, within: leaveLimit)

        // SIGTERM quits cleanly, saying away.
        let (terminated, _) = try await self.dayOnScreen(session, world)
        terminated.send(SIGTERM)
        #expect(await terminated.exit(within: 5))
        #expect(readFile(session.displayState) == "away pid=\(terminated.pid)\n")
        try await self.pendingIs(laid: true, session, within: leaveLimit)

        // Closing says away only once the window is gone.
        let (closed, closedWindow) = try await self.dayOnScreen(session, world)
        try await world.x(world.wmctrl, ["-i", "-c", closedWindow])
        _ = try await self.fileSays("away pid=\(closed.pid)", session, within: 5)
        let visible = try await world.x(world.xdotool, ["search", "--onlyvisible", "--name", "^Today$"])
        #expect(visible.stdout.isEmpty, "away was said while the window was still shown")
        #expect(await closed.exit(within: 5))
        try await self.pendingIs(laid: true, session, within: leaveLimit)

        // A second display ends the first and takes its place under its own pid.
        let (first, _) = try await self.dayOnScreen(session, world)
        let second = try world.startDayDisplay(["--display-state", session.displayState])
        #expect(await first.exit(within: 10), "the first display did not step aside")
        _ = try await self.fileSays("foreground pid=\(second.pid)", session, within: 10)
        try await world.activate(try await world.window(named: "Today"))
        try await self.pendingIs(laid: false, session, within: 2)
        #expect(second.exitCode == nil, "the second display exited instead of taking over")

        // Killed outright: away by its pidfd within 2 s, though the file says foreground.
        second.send(SIGKILL)
        try await self.pendingIs(laid: true, session, within: 2)
        #expect(try await session.status().display?.rawValue == "away")
        #expect(readFile(session.displayState).hasPrefix("foreground pid=\(second.pid)"))
        #expect(await second.exit(within: 5))

        // A second launcher takes over, and the first launcher, whose display stepped aside for
        // the second one, does not say away over the second one's foreground.
        _ = try world.makeTools()
        let display = ["/usr/bin/python3", "\(world.examples)/day_display.py"]
        let path = "\(world.tools):\(childPath)"
        try await session.signal("away")
        let firstLauncher = try world.startLauncher(display, path: path, log: "launcher-1.log")
        _ = try await world.window(named: "Today")
        _ = try await self.fileSays("foreground pid=", session, within: 5)
        let firstDisplay = readFile(session.displayState)
        let secondLauncher = try world.startLauncher(display, path: path, log: "launcher-2.log")
        #expect(await firstLauncher.exit(within: 15), "the first launcher's display did not step aside")
        _ = try await world.window(named: "Today")
        await pause(1)
        let now = readFile(session.displayState)
        let pid = Int32(now.dropFirst("foreground pid=".count).prefix { $0.isNumber }) ?? 0
        #expect(now.hasPrefix("foreground pid=") && now != firstDisplay, "after the handover the file says '\(now)'")
        #expect(pid > 0 && kill(pid, 0) == 0, "the file names \(pid), which is not running")
        try await self.pendingIs(laid: false, session, within: 2)
        #expect(secondLauncher.exitCode == nil)
        secondLauncher.send(SIGTERM)
        #expect(await secondLauncher.exit(within: 10))
        _ = try await self.fileSays("away", session, within: 2)
    }

    // MARK: The shell launcher (§3.3), for kiosks

    /// A display that records what the file said at its very first instruction, then runs.
    func recordingDisplay(_ session: TestWorld, seconds: String = "30") -> [String] {
        let directory = session.directory.path
        return [
            "/bin/sh", "-c",
            "cat '\(session.displayState)' >'\(directory)/seen' 2>/dev/null; echo ran >'\(directory)/ran'; exec sleep \(seconds)",
        ]
    }

    func launcherWorld() async throws -> (TestWorld, ExampleWorld, LockWorld) {
        let session = try await TestWorld.start([.sessionBus, .notificationServer])
        let world = try ExampleWorld(session)
        let lockWorld = try LockWorld(session)
        do {
            try replaceFile(session.household, try farAwayHousehold())
            try await session.startDaemon()
            _ = try world.makeTools()
        } catch {
            session.stop()
            throw error
        }
        return (session, world, lockWorld)
    }

    /// The launcher's life, a launcher after another on one session: it says foreground before
    /// the display starts, and away once it is stopped (the display stopped first); it finds
    /// daysomectl named by DAYSOMECTL off PATH; and it says away once the display has ended.
    @Test func theLauncherSaysForegroundBeforeTheDisplayStartsAndAwayOnceTheDisplayHasEndedOrItIsStopped()
        async throws
    {
        let worlds = try await launcherWorld()
        defer { stop(worlds) }
        let (session, world, _) = worlds
        // Foreground before the display's first instruction; stopped, away.
        let launcher = try world.startLauncher(self.recordingDisplay(session), path: "\(world.tools):\(childPath)")
        _ = try await poll("the display to start", timeout: 5) { () -> Bool? in
            access("\(session.directory.path)/ran", F_OK) == 0 ? true : nil
        }
        let seen = readFile("\(session.directory.path)/seen")
        #expect(seen.hasPrefix("foreground pid="), "the display started while the file said '\(seen)'")
        try await self.pendingIs(laid: false, session, within: 1)
        launcher.send(SIGTERM)
        #expect(await launcher.exit(within: 5))
        _ = try await self.fileSays("away", session, within: 2)

        // Stopping the launcher stops the display, then says away.
        let stopped = try world.startLauncher(self.recordingDisplay(session), path: "\(world.tools):\(childPath)")
        _ = try await self.fileSays("foreground pid=", session, within: 5)
        let line = readFile(session.displayState)
        let pid = try #require(Int32(line.dropFirst("foreground pid=".count).prefix { $0.isNumber }))
        stopped.send(SIGTERM)
        #expect(await stopped.exit(within: 5))
        #expect(readFile(session.displayState).hasPrefix("away"))
        #expect(kill(pid, 0) != 0, "the display \(pid) outlived its launcher")

        // DAYSOMECTL names daysomectl off PATH.
        let named = try world.startLauncher(
            self.recordingDisplay(session), path: childPath, extra: ["DAYSOMECTL": "\(world.tools)/daysomectl"])
        _ = try await self.fileSays("foreground pid=", session, within: 5)
        try await self.pendingIs(laid: false, session, within: 1)
        named.send(SIGTERM)
        #expect(await named.exit(within: 5))
        _ = try await self.fileSays("away", session, within: 2)

        // The display ends on its own: the launcher says away and exits 0.
        let ending = try world.startLauncher(
            self.recordingDisplay(session, seconds: "1"), path: "\(world.tools):\(childPath)")
        _ = try await self.fileSays("foreground pid=", session, within: 5)
        #expect(await ending.exit(within: 10))
        #expect(ending.exitCode == 0)
        #expect(readFile(session.displayState).hasPrefix("away"))
        try await self.pendingIs(laid: true, session, within: leaveLimit)
    }

    /// The launcher fails closed: without daysomectl on PATH, or where foreground cannot be said,
    /// the display is never started while the file says away.
    @Test func withoutDaysomectlOrWhenForegroundCannotBeSaidTheLauncherFailsClosedAndTheDisplayIsNotStarted()
        async throws
    {
        let worlds = try await launcherWorld()
        defer { stop(worlds) }
        let (session, world, _) = worlds
        let missing = try world.startLauncher(self.recordingDisplay(session), path: childPath)
        #expect(await missing.exit(within: 10))
        #expect(missing.exitCode != 0)
        await pause(0.5)
        #expect(access("\(session.directory.path)/ran", F_OK) != 0, "the display ran while the file said away")
        #expect(try await session.status().display?.rawValue == "away")
        #expect(readFile("\(session.directory.path)/launcher.log").contains("daysomectl"))

        let refused = try world.startLauncher(
            self.recordingDisplay(session), path: "\(world.tools):\(childPath)", extra: ["DAYSOMECTL": "/bin/false"],
            log: "launcher-false.log")
        #expect(await refused.exit(within: 10))
        #expect(refused.exitCode == 1)
        await pause(0.5)
        #expect(access("\(session.directory.path)/ran", F_OK) != 0, "the display ran while the file said away")
    }
}
