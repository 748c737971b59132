// Two notification servers that replace each other: a second takes the name over (replacement)
// while the first still runs and still shows her card. That is no restart: history must not say
// one, the card must not be posted again on the second, and her return must close it on the
// first, by its unique name (ids are per server instance).

import DaysomeTestSupport
import Glibc
import Testing

@Suite("A notification server taken over by another", .timeLimit(.minutes(3)))
struct ServerTakeoverTests {
    /// The call is laid at the next minute and waited for on the wall clock, as every call at the
    /// process boundary is: the takeover is a real bus's NameOwnerChanged between two real servers.
    @Test func aTakeoverIsNoRestartAndHerReturnClosesTheFirstServersCardThere() async throws {
        let world = try await TestWorld.start(.sessionBus)
        defer { world.stop() }
        let first = try await world.startStandInServer(delay: 0, name: "first", arguments: ["--allow-replacement"])
        let minute = nextMinute(leaving: 6)
        try replaceFile(world.household, try nextMinutesHousehold(minute))
        try await world.startDaemon()
        try await world.expectQueued(at: minute)
        do {
            _ = try await poll("the call on the first server", timeout: Double(minute) - wallSeconds() + 10) {
                () -> Bool? in readFile(first.log).contains("notify 1 Soup time") ? true : nil
            }
        } catch {
            throw HarnessError("\(error); first: \(readFile(first.log)); daysomed: \(world.daemonStderr)")
        }

        // A second server takes the name over; the first runs on, her card still on its screen.
        let second = try await world.startStandInServer(delay: 0, name: "second", arguments: ["--replace"])
        await pause(1)
        #expect(first.process.poll() == false, "the first server exited: the test proves nothing")
        let returned = wallSeconds()
        try await world.signal("foreground", awaitSeen: true)
        do {
            _ = try await poll("the first server's card closed there", timeout: 3, interval: 0.02) { () -> Bool? in
                readFile(first.log).contains("close 1") ? true : nil
            }
        } catch {
            throw HarnessError(
                "\(error); first: \(readFile(first.log)); second: \(readFile(second.log)); "
                    + "daysomed: \(world.daemonStderr)")
        }
        print(
            "[IntegrationTests] after a takeover: the first server's card closed \(Int((wallSeconds() - returned) * 1_000)) ms after her return"
        )
        await pause(0.5)
        #expect(
            !readFile(second.log).contains("Soup time"),
            "posted again on the server that took over: \(readFile(second.log))")
        #expect(
            !readFile(second.log).contains("close"),
            "an id of the first server was closed on the second: \(readFile(second.log))")

        let at = rfc3339(minute)
        let history = try await world.history()
        #expect(
            !history.contains { $0.reason?.contains("restarted") == true }, "a takeover told as a restart: \(history)")
        #expect(history.filter { $0.event == "delivered" && $0.at == at }.count == 1, "\(history)")
        let withdrawn = history.first { $0.event == "withdrawn" && $0.at == at }
        #expect(withdrawn?.reason?.contains("another had taken the name over") == true, "\(history)")
        #expect(world.daemonStderr.contains("a takeover, not a restart"), "\(world.daemonStderr)")
    }

    /// A server that exits as dunst does on SIGTERM gives its name up before its connection
    /// closes, so the bus still says it runs when the daemon asks: no server took the name, and
    /// the journal says the server went away, never a takeover. The stand-in makes dunst's order
    /// certain (its connection closes 2 s after the name goes; dunst's own gap is a race with the
    /// daemon's question). Waits on the wall clock only for the daemon to hear the bus.
    @Test func aServerThatGivesUpItsNameOnItsWayOutIsLoggedAsGoneAwayNeverAsATakeover() async throws {
        let world = try await TestWorld.start(.sessionBus)
        defer { world.stop() }
        let (_, server) = try await world.startStandInServer(delay: 0, name: "going", arguments: ["--linger=2"])
        try replaceFile(world.household, try farAwayHousehold())
        try await world.startDaemon()
        _ = try await poll("the daemon to learn the server", timeout: 10) { () -> Bool? in
            try await world.status().notificationServer.present ? true : nil
        }
        server.send(SIGTERM)
        let said: String
        do {
            said = try await poll("the daemon to say the server went away", timeout: 10) { () -> String? in
                let log = world.daemonStderr
                return log.contains(
                    "The notification server went away: it gave up the name, and no other server took it") ? log : nil
            }
        } catch {
            throw HarnessError("\(error); daysomed said: \(world.daemonStderr)")
        }
        #expect(!said.contains("takeover") && !said.contains("took the name over"), "\(said)")
        #expect(await server.exit(within: 5), "the stand-in did not exit")
    }
}
