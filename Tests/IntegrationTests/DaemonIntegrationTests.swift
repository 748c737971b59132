// The product rules as a user notices them: each test starts its own private session bus, Xvfb,
// dunst and the real daysomed, drives it through the real daysomectl and the display state file,
// and reads what dunst shows. The tests share nothing, so they run in parallel: those that wait
// for a minute boundary wait for it together.

import DaysomeCore
import DaysomeFiles
import DaysomeTestSupport
import Glibc
import Testing

@Suite("daysomed against a real session bus, Xvfb and dunst", .timeLimit(.minutes(4)))
struct DaemonIntegrationTests {
    // MARK: Laying

    // MARK: Delivering

    /// A call at the next minute is shown by dunst within a second of it, with the family's
    /// words; her return then leaves nothing pending and nothing shown within a second (rule 1),
    /// the card closed by the daemon, not left to time out.
    // real-process twin of EmbeddedTests.CallTests.aCallComesAtItsMinuteAndNotASecondBefore
    // real-process twin of EmbeddedTests.CallTests.herReturnTakesEveryCallAwayAndLeavesNothingPending
    @Test func aStartAtTheNextMinuteIsDeliveredWithinASecondAndHerReturnLeavesNothingPendingAndNothingShown()
        async throws
    {
        let session = try await TestWorld.start([.sessionBus, .notificationServer])
        defer { session.stop() }
        let minute = nextMinute(leaving: 10)
        try replaceFile(session.household, try nextMinutesHousehold(minute))
        try await session.startDaemon()
        try await session.expectQueued(at: minute)
        let planned = try await session.plannedStart(at: minute)

        let latency = try #require(
            try await session.firstShown(after: minute),
            "nothing shown by \(rfc3339(minute)) + 10 s: \(session.daemonStderr)")
        print("[IntegrationTests] \(rfc3339(minute)) first shown by dunst \(Int(latency * 1_000)) ms after its minute")
        #expect(latency >= 0, "shown before its minute")
        #expect(latency < 1, "shown \(latency) s after its minute")

        // Her return: nothing pending and nothing shown within a second.
        let lay = try await session.pending().lay
        let signalled = monotonicSeconds()
        try await session.signal("foreground")
        let settled = try await session.settledEmpty(within: 1, since: signalled)
        print("[IntegrationTests] return settled (nothing pending, nothing shown) in \(Int(settled * 1_000)) ms")
        let afterReturn = try await session.history()
        #expect(
            afterReturn.contains { $0.event == "withdrawn" && $0.at == rfc3339(minute) && $0.itemIds == ["first"] },
            "\(afterReturn)")
        #expect(afterReturn.contains { $0.event == "cleared" && $0.lay == lay && lay != nil }, "\(afterReturn)")

        // Read back what dunst showed: closed by the daemon (CloseNotification), not left to time
        // out, it is in dunst's history.
        let shown = try await poll("dunst's history to hold the call", timeout: 3) {
            try await session.shownHistory().first { $0.summary == planned.title }
        }
        #expect(shown.appName == "Daysome")
        #expect(shown.summary == "Soup time")
        #expect(shown.body == planned.heading + "\n" + planned.body)
        #expect(planned.body == "Soup and a roll")
        #expect(shown.visibleText == "Soup time\n" + planned.heading + "\nSoup and a roll")

        let history = try await session.history()
        #expect(
            history.filter { $0.event == "delivered" && $0.at == rfc3339(minute) && $0.itemIds == ["first"] }.count
                == 1, "\(history)")
    }

    // MARK: Rule 1: never over the display

    /// Two minutes of her day on one daemon: in front across the first call's minute, no catch-up
    /// when she leaves (rule 3); then the daemon killed before the second call and started again
    /// after it, within the grace window: the missed call comes once (rule 2).
    // real-process twin of EmbeddedTests.ReturnTests.noCatchUpAfterAReturn
    // real-process twin of EmbeddedTests.RestartTests.aRestartWithinGraceCallsTheMissedStartOnce
    @Test func noCatchUpAfterAReturnAndARestartWithinGraceDeliversTheMissedStartOnce() async throws {
        let session = try await TestWorld.start([.sessionBus, .notificationServer])
        defer { session.stop() }
        let minute = nextMinute(leaving: 10)
        try replaceFile(session.household, try nextMinutesHousehold(minute))
        let first = try await session.startDaemon(grace: 300).process
        try await session.expectQueued(at: minute)

        // In the foreground across the minute: the display chimed for it.
        try await session.signal("foreground")
        _ = try await session.settledEmpty(within: 1, since: monotonicSeconds())
        await pause(untilWall: Double(minute) + 1.5)
        try await session.signal("away")
        let queue = try await poll("a lay after the away", timeout: 3) { () -> Queue? in
            let queue = try await session.pending()
            return queue.display == "away" && !queue.starts.isEmpty ? queue : nil
        }
        #expect(queue.starts.allSatisfy { (instant($0.at) ?? 0) > minute }, "\(queue.starts)")
        #expect(queue.starts.first?.at == rfc3339(minute + 60), "\(queue.starts)")

        try await session.expectNothingShown(for: 2)
        let history = try await session.history()
        #expect(!history.contains { $0.event == "delivered" }, "\(history)")

        // The drink at the next minute: the daemon killed 10 s before it, back 5 s after.
        let drink = minute + 60
        let planned = try await session.plannedStart(at: drink)
        await pause(untilWall: Double(drink) - 10)
        first.send(SIGKILL)
        #expect(await first.exit(within: 5))
        #expect(try await session.displayedCount() == 0)
        await pause(untilWall: Double(drink) + 5)
        try await session.startDaemon(grace: 300)
        _ = try await poll("the missed call to be shown", timeout: 3) {
            try await session.displayedCount() > 0 ? true : nil
        }
        await pause(2)
        #expect(try await session.displayedCount() == 1)
        let afterRestart = try await session.history()
        let delivered = afterRestart.filter { $0.event == "delivered" && $0.at == rfc3339(drink) }
        #expect(delivered.count == 1, "\(afterRestart)")
        #expect(delivered.first?.reason?.contains("grace") == true, "\(afterRestart)")
        try await session.signal("foreground")
        _ = try await session.settledEmpty(within: 1, since: monotonicSeconds())
        let shown = try await session.shownHistory().filter { $0.summary == planned.title }
        #expect(shown.count == 1, "dunst showed the missed call \(shown.count) times")
    }

    // MARK: Wakeups

    /// The daemon's wakeups (context switches) over `seconds` of idling, and what `drain` collected
    /// meanwhile, in a window no clock step fell into: another test steps the real clock as root
    /// (ClockJumpWatchTests), and every daemon on the machine rightly wakes for that. Up to three windows.
    private func quietWindow(
        _ session: TestWorld, _ daemon: SpawnedProcess, seconds: Double, drain: () -> [String] = { [] }
    ) async throws -> (wakeups: Int, messages: [String]) {
        func steps() -> Int {
            session.daemonStderr.split(separator: "\n").filter { $0.contains("the clock jumped") }.count
        }
        for _ in 0..<3 {
            _ = drain()
            let stepsBefore = steps()
            let before = try contextSwitches(of: daemon.pid)
            await pause(seconds)
            let after = try contextSwitches(of: daemon.pid)
            let messages = drain()
            if steps() == stepsBefore { return (after - before, messages) }
            print("[IntegrationTests] a clock step fell into the idle window; measuring again")
        }
        throw HarnessError("a clock step fell into each of three idle windows")
    }

    /// Waits until the daemon's start-up questions are answered (the notification server named
    /// in its status): on a loaded machine their replies would otherwise fall into the idle window.
    private func startUpAnswered(_ session: TestWorld) async throws {
        _ = try await poll("the daemon to name its notification server", timeout: 10) { () -> Bool? in
            try await session.status().notificationServer.name != nil ? true : nil
        }
        await pause(0.5)
    }

    /// A household with a week to lay and no start in the next few minutes: the seed, unless one
    /// of its starts is close, then one whose items are hours away.
    private func quietHousehold(_ session: TestWorld) async throws -> String {
        let seed = try fixtureText("seed.json")
        let path = try session.directory.write("seed.json", seed)
        let next = try await session.plan(from: rfc3339(Int64(wallSeconds())), household: path).first.flatMap {
            instant($0.at)
        }
        if let next, Double(next) - wallSeconds() > 180 {
            return seed
        }
        unlink(path)
        return try farAwayHousehold()
    }

    /// An idle daemon sleeps until its next deadline: no wakeup at all between starts; with a
    /// service manager's watchdog, only its pings. One world, a daemon for each. Then what the
    /// daemon's peers may leave behind cannot hold the second up, take it down or clear its lay:
    /// a control client that hangs up before its answer, one that says nothing, and a display
    /// whose pid is a zombie (after the idle windows, which they would wake).
    @Test
    func idleDaemonMakesNoWakeupsBetweenStartsWithAWatchdogWakesOnlyForItsPingsAndNoPeerHoldsItUpOrClearsItsLay()
        async throws
    {
        let session = try await TestWorld.start([.sessionBus, .notificationServer])
        defer { session.stop() }
        try replaceFile(session.household, try await self.quietHousehold(session))
        let idle = try await session.startDaemon().process
        #expect(try await session.pending().starts.count > 5)
        try await self.startUpAnswered(session)
        let (idleWakeups, _) = try await quietWindow(session, idle, seconds: 10)
        print("[IntegrationTests] idle daemon without a watchdog: \(idleWakeups) wakeups in 10 s")
        #expect(idleWakeups == 0, "the idle daemon woke \(idleWakeups) times in 10 s")
        #expect(!idle.poll(), "daysomed exited: \(session.daemonStderr)")

        // The same household, the daemon started again under a service manager's watchdog.
        try await session.killDaemon()
        let manager = try NotifySocket(path: session.directory.path + "/notify")
        let daemon = try await session.startDaemon(environment: [
            "NOTIFY_SOCKET": manager.path, "WATCHDOG_USEC": "2000000",
        ]).process
        let startup = try await poll("READY=1 on the notify socket", timeout: 3) { () -> [String]? in
            let messages = manager.drain()
            return messages.contains { holds($0, "READY=1") } ? messages : nil
        }
        #expect(startup.contains { $0.split(separator: "\n").contains { $0.hasPrefix("STATUS=") } }, "\(startup)")
        try await self.startUpAnswered(session)
        _ = manager.drain()

        let (wakeups, messages) = try await quietWindow(session, daemon, seconds: 10) { manager.drain() }
        let pings = messages.filter { holds($0, "WATCHDOG=1") }.count
        print("[IntegrationTests] idle daemon with WATCHDOG_USEC=2 s: \(wakeups) wakeups, \(pings) pings in 10 s")
        // sd-event pings between half and three quarters of the interval: 6 to 10 in 10 s.
        #expect((6...11).contains(pings), "\(pings) WATCHDOG=1 in 10 s: \(messages)")
        #expect(messages.allSatisfy { $0 == "WATCHDOG=1" }, "other notifications while idle: \(messages)")
        #expect(wakeups >= pings - 1 && wakeups <= pings + 2, "\(wakeups) wakeups for \(pings) pings")
        #expect(!daemon.poll(), "daysomed exited: \(session.daemonStderr)")

        // What its peers leave behind, on the same daemon once its idle windows are measured.
        let path = session.runtimeDirectory + "/control"
        for _ in 0..<20 {
            // Says its line and hangs up before the answer: the daemon's reply meets a closed peer.
            let client = try connectControl(path)
            _ = "fire 1\n".withCString { write(client, $0, strlen($0)) }
            close(client)
        }
        await pause(0.5)
        #expect(!daemon.poll(), "daysomed exited (\(daemon.waitStatus ?? -1)) after clients hung up")
        #expect(try await session.status().running == true)

        // Ten clients connect and say nothing: read in turn on the loop, each would hold it up.
        let silent = try (0..<10).map { _ in try connectControl(path) }
        defer { for client in silent { close(client) } }
        let asked = monotonicSeconds()
        let client = try connectControl(path)
        defer { close(client) }
        _ = "hello\n".withCString { write(client, $0, strlen($0)) }
        let answer = readLine(client, timeoutSeconds: 5)
        let waited = monotonicSeconds() - asked
        #expect(answer == "error: unknown request\n", "answer \(answer ?? "none")")
        #expect(waited < 1, "the answer took \(waited) s behind silent clients")
        // A client that never finishes its line is closed unanswered at its own deadline.
        #expect(readLine(silent[0], timeoutSeconds: 5) == "", "a silent client was answered or kept open")
        #expect(!daemon.poll(), "daysomed exited (\(daemon.waitStatus ?? -1))")

        // A display that has exited but is not reaped yet: its pid still opens a pidfd, and it is
        // away without a flip that would clear the lay.
        let lay = try #require(try await session.pending().lay)
        let zombie = try SpawnedProcess("/bin/true", [], environment: [:])
        defer { zombie.stop() }
        await pause(0.3)
        try writeFile(session.displayState + ".new", "foreground pid=\(zombie.pid)\n")
        #expect(rename(session.displayState + ".new", session.displayState) == 0)
        await pause(1)
        #expect(try await session.pending().lay == lay, "the zombie's line flipped the display and replaced the lay")
        #expect(!(try await session.history()).contains { $0.event == "cleared" && $0.lay == lay })
        #expect(session.daemonStderr.contains("has exited; the display is away"), "\(session.daemonStderr)")
    }

    // MARK: Rule 10: the PIN and the note

    // real-process twin of EmbeddedTests.BadInputTests.secretsNeverReachALogAFileOrAnErrorWhenTheFileIsBad
    @Test(arguments: ["log", "freedesktop"])
    func pinAndNoteNeverReachALogOrANotification(notifier: String) async throws {
        let session = try await TestWorld.start([.sessionBus, .notificationServer])
        defer { session.stop() }
        let minute = nextMinute(leaving: 10)
        let zone = "Europe/London"
        let call = """
            "items": [
                { "id": "call-now", "label": "Knitting club", "detail": "Bring the blue wool", "kind": "other",
                  "time": "\(try clockTime(minute, zone: zone))", "repeat": "daily" },
            """
        let seed = try fixtureText("seed.json")
        #expect(seed.contains("4071") && seed.contains("SECRET-NOTE-7731"))
        try replaceFile(session.household, try replacingOnce(seed, "\"items\": [", with: call))
        try await session.startDaemon(notifier: notifier)
        try await session.expectQueued(at: minute)
        let planned = try await session.plannedStart(at: minute)

        await pause(untilWall: Double(minute))
        if notifier == "log" {
            _ = try await poll("the call in daysomed's log", timeout: 10) {
                session.daemonStderr.contains("Call 1: \(planned.title) | \(planned.heading)") ? true : nil
            }
        } else {
            _ = try await poll("the call to be shown", timeout: 10) {
                try await session.displayedCount() > 0 ? true : nil
            }
        }
        try await session.signal("foreground")
        _ = try await session.settledEmpty(within: 2, since: monotonicSeconds())

        let shown = try await session.shownHistory()
        if notifier == "freedesktop" {
            #expect(shown.contains { $0.summary == planned.title }, "\(shown)")
        } else {
            #expect(shown.isEmpty, "\(shown)")
        }
        var seen: [(String, String)] = [("daysomed's stderr", session.daemonStderr)]
        seen += shown.map { ("a notification", [$0.appName, $0.summary, $0.body, $0.message].joined(separator: "\n")) }
        for verb in ["pending", "history", "status"] {
            let json = try await session.ctlJSON([verb, "--json"] + session.daemonPaths)
            seen.append(("\(verb) --json", JSONValue.object(json).allStrings.joined(separator: "\n")))
            seen.append(("\(verb)", try await session.ctl([verb] + session.daemonPaths).stdout))
        }
        for (place, text) in seen {
            #expect(!text.contains("4071"), "the supervisor PIN reached \(place): \(text)")
            #expect(!text.contains("SECRET-NOTE-7731"), "today's note reached \(place): \(text)")
        }
    }

    // MARK: The wheel dies with its daemon

    // MARK: Rule 2: a restart within grace

    /// Starts a daemon, SIGKILLs it ten seconds before `minute` and starts it again `downtime`
    /// seconds after, both with `grace`. Returns the minute and the start planned at it.
}

/// A connected stream socket to the daemon's control socket.
private func connectControl(_ path: String) throws -> Int32 {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    let connected = try UnixSocketAddress(path: path).connect(fd)
    guard connected == 0 else {
        close(fd)
        throw HarnessError("connect \(path): \(errnoText(errno))")
    }
    return fd
}

/// What `fd` sends until its first newline or end of file: "" when it closes without a word, nil
/// when nothing ends within `timeoutSeconds`.
private func readLine(_ fd: Int32, timeoutSeconds: Int) -> String? {
    var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var line: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 512)
    while !line.contains(0x0A) {
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count < 0 { return nil }
        if count == 0 { break }
        line += buffer[0..<count]
    }
    return String(decoding: line, as: UTF8.self)
}
