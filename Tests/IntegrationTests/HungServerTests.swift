// A notification server hung for longer than sd-bus's 25 s default method timeout, across a call's
// minute, while she comes back. A server frozen for 43 s once showed the call whose Notify had
// timed out and then the one posted again, and only the second was closed at her return. The
// stand-in here stacks no duplicates: every Notify it gets is a card she sees.

import DaysomeTestSupport
import Glibc
import Testing

@Suite("A notification server hung past the bus's timeout", .timeLimit(.minutes(3)))
struct HungServerTests {
    // real-process twin of EmbeddedTests.RestartTests.aServerHungPastTheBusTimeoutShowsOneCardAndItIsTheOneClosed
    /// This test waits on the wall clock: what it shows is the real daemon's Notify on sd-bus's real
    /// timers against a frozen process, held past the library's 25 s default; no virtual clock
    /// drives sd-bus (the machine's side is `UnknownOutcomeTests`, on the virtual clock).
    @Test func aServerHungFortySecondsAcrossTheMinuteGetsOneCardAndNoneIsLeftAfterHerReturn() async throws {
        let world = try await TestWorld.start(.sessionBus)
        defer { world.stop() }
        let (log, server) = try await world.startStandInServer(delay: 0)
        let minute = nextMinute(leaving: 8)
        try replaceFile(world.household, try nextMinutesHousehold(minute))
        try await world.startDaemon()
        try await world.expectQueued(at: minute)

        // Frozen 40 s, from 2 s before the minute: the Notify waits past sd-bus's 25 s default, and
        // she comes back at +30 s, while the server still holds it.
        await pause(untilWall: Double(minute) - 2)
        server.send(SIGSTOP)
        var frozen = true
        defer { if frozen { server.send(SIGCONT) } }
        await pause(untilWall: Double(minute) + 30)
        try await world.signal("foreground", awaitSeen: true)
        await pause(untilWall: Double(minute) + 38)
        server.send(SIGCONT)
        frozen = false
        let woke = wallSeconds()

        // The server shows the call it held, answers with its id, and the daemon closes it at once.
        do {
            _ = try await poll("the late card to be closed", timeout: 5, interval: 0.02) { () -> Bool? in
                readFile(log).contains("close 1") ? true : nil
            }
        } catch {
            throw HarnessError("\(error); the server saw: \(readFile(log)); daysomed: \(world.daemonStderr)")
        }
        let closedAfter = wallSeconds() - woke
        print("[IntegrationTests] server hung 40 s: its late card closed \(Int(closedAfter * 1_000)) ms after it woke")
        // Anything else the daemon sent while the server hung has reached it by now.
        await pause(1)
        let lines = readFile(log).split(separator: "\n")
        let notified = lines.filter { $0.hasPrefix("notify ") && $0.hasSuffix(" Soup time") }
        #expect(notified.count == 1, "one start, more than one card: \(lines)")
        let shown = Set(
            lines.filter { $0.hasPrefix("notify ") }.compactMap { $0.split(separator: " ").dropFirst().first }
        )
        .subtracting(lines.filter { $0.hasPrefix("close ") }.compactMap { $0.split(separator: " ").last })
        #expect(shown.isEmpty, "left over the day display: \(shown); the server saw: \(lines)")
        #expect(closedAfter < 1, "closed \(closedAfter) s after the server woke")

        let at = rfc3339(minute)
        let history = try await poll("history to say what the server did", timeout: 3) { () -> [HistoryEvent]? in
            let events = try await world.history()
            return events.contains { $0.event == "withdrawn" && $0.at == at } ? events : nil
        }
        #expect(history.filter { $0.event == "delivered" && $0.at == at }.count == 1, "\(history)")
        #expect(!history.contains { $0.event == "dropped" && $0.at == at }, "\(history)")
        #expect(world.daemon?.poll() == false, "daysomed exited: \(world.daemonStderr.suffix(800))")
    }
}
