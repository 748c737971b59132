// `daysomectl pending` on the systemd backend with a live daemon: the daemon relays the manager's
// answer over the connection it holds, and pending falls back to asking the manager itself when
// the daemon does not answer. Each test starts its own `systemd --user`.

import DaysomeCore
import DaysomeTestSupport
import Glibc
import Testing

@Suite("pending relayed by a live daemon, against a real systemd --user", .serialized, .timeLimit(.minutes(2)))
struct PendingRelayTests {
    /// The daemon's answer is what the manager holds when asked: a timer stopped behind the
    /// daemon's back is gone from pending at once, while the daemon's own record still holds the
    /// week. daysomectl here cannot reach the manager itself (no runtime directory of the
    /// manager's, no session bus): only the daemon's relay can answer.
    @Test func pendingWithALiveDaemonListsExactlyWhatTheManagerHolds() async throws {
        let session = try await TestWorld.start(.userManager, daemon: .systemdBackend)
        defer { session.stop() }
        let (found, handle) = try await self.layTheSeedWeek(session)

        let relayed = try await self.pendingCutOffFromTheManager(session)
        #expect(relayed.status == 0, "\(relayed)")
        let queue = try #require((try? JSONParser.parse(relayed.stdout))?.objectValue, "\(relayed)")
        #expect(queue["daemonRunning"]?.boolValue == true)
        let listed = (queue["pending"]?.arrayValue ?? []).compactMap { $0.objectValue }
        let soon = Int64(wallSeconds()) + 2
        #expect(
            Set(listed.compactMap { $0["at"]?.stringValue }.filter { (seconds(of: $0) ?? 0) > soon })
                == Set(found.instants.filter { (seconds(of: $0) ?? 0) > soon }))
        #expect(Set(listed.compactMap { $0["handle"]?.stringValue }) == [handle])
        // With the manager in reach, the relay prints the same bytes.
        let reachable = try await session.ctl(["pending", "--json"] + session.daemonPaths)
        #expect(reachable.stdout == relayed.stdout)

        // `systemctl --user stop` behind the daemon's back.
        let stopped = try await session.systemctl(["stop", handle])
        #expect(stopped.status == 0, "\(stopped)")
        // The daemon's own record (queue.json) still holds the week: it heard nothing of the stop.
        let record = try QueueSnapshot(json: JSONParser.parse(readFile(session.runtimeDirectory + "/queue.json")))
        #expect(!record.pending.isEmpty)
        let after = try await self.pendingCutOffFromTheManager(session)
        #expect(after.status == 0, "\(after)")
        let now = try #require((try? JSONParser.parse(after.stdout))?.objectValue, "\(after)")
        #expect(now["daemonRunning"]?.boolValue == true)
        #expect(now["pending"]?.arrayValue?.isEmpty == true, "\(after.stdout)")
    }

    /// A daemon that holds its lock but does not answer (stopped): pending waits its relay
    /// timeout, then asks the manager itself, and prints exactly what the relay printed.
    /// The wall clock is what is under test: a real process that does not answer a real socket.
    @Test func pendingFallsBackToTheManagerWhenTheDaemonDoesNotAnswerAndPrintsTheSameBytes() async throws {
        let session = try await TestWorld.start(.userManager, daemon: .systemdBackend)
        defer { session.stop() }
        try replaceFile(session.household, try fixtureText("seed.json"))
        let daemon = try await session.startDaemon()
        _ = try await session.waitUntilManagerHoldsThePlan(within: 5)
        let relayed = try await session.ctl(["pending", "--json"] + session.daemonPaths)
        #expect(relayed.status == 0, "\(relayed)")

        daemon.process.send(SIGSTOP)
        let asked = monotonicSeconds()
        let direct = try await session.ctl(["pending", "--json"] + session.daemonPaths)
        let took = monotonicSeconds() - asked
        // Without a manager in reach, the fallback finds none: it was the direct read that answered.
        let cutOff = try await self.pendingCutOffFromTheManager(session)
        daemon.process.send(SIGCONT)
        print("[PendingRelayTests] the fallback answered after \(milliseconds(took)) ms")
        #expect(direct.status == 0, "\(direct)")
        #expect(took >= 0.9, "pending answered in \(milliseconds(took)) ms: the stopped daemon cannot have")
        #expect(direct.stdout == relayed.stdout)
        #expect(cutOff.status != 0 && cutOff.stderr.contains("cannot reach the systemd user manager"), "\(cutOff)")
    }

    /// On the manager's private socket the manager announces every change, so the daemon answers
    /// from what it last said while it announced none: with the manager stopped (SIGSTOP), pending
    /// still answers at once, and the same bytes. Once the manager runs again, a timer stopped
    /// behind the daemon's back is announced, and the next pending asks afresh and lists nothing.
    /// The wall clock is what is under test: a real manager process that cannot answer.
    @Test func pendingAnswersFromWhatTheManagerLastSaidUntilItAnnouncesAChange() async throws {
        let session = try await TestWorld.start(.userManager, daemon: .systemdBackend)
        defer { session.stop() }
        let (_, handle) = try await self.layTheSeedWeek(session)
        let manager = try #require(session.manager)
        let first = try await self.pendingCutOffFromTheManager(session)
        #expect(first.status == 0, "\(first)")

        manager.send(SIGSTOP)
        let asked = monotonicSeconds()
        let held = try await self.pendingCutOffFromTheManager(session)
        let took = monotonicSeconds() - asked
        manager.send(SIGCONT)
        #expect(held.status == 0, "\(held)")
        #expect(held.stdout == first.stdout)
        // The relay waits 1 s for the daemon before it gives up: an answer within it came from
        // the daemon, which could not have asked the stopped manager.
        #expect(took < 0.9, "pending took \(milliseconds(took)) ms with the manager stopped")

        let stopped = try await session.systemctl(["stop", handle])
        #expect(stopped.status == 0, "\(stopped)")
        let after = try await self.pendingCutOffFromTheManager(session)
        #expect(after.status == 0, "\(after)")
        let now = try #require((try? JSONParser.parse(after.stdout))?.objectValue, "\(after)")
        #expect(now["pending"]?.arrayValue?.isEmpty == true, "\(after.stdout)")
    }

    /// The daemon started on the seed week, once the manager holds its plan: what it holds, and
    /// the first timer's name.
    private func layTheSeedWeek(_ session: TestWorld) async throws -> (found: Converged, handle: String) {
        try replaceFile(session.household, try fixtureText("seed.json"))
        try await session.startDaemon()
        let (found, _) = try await session.waitUntilManagerHoldsThePlan(within: 5)
        return (found, try #require(found.timers.first?.name))
    }

    /// `daysomectl pending --json` with nothing that leads to the manager: its private socket
    /// lives under XDG_RUNTIME_DIR, and the session bus is named by DBUS_SESSION_BUS_ADDRESS.
    private func pendingCutOffFromTheManager(_ session: TestWorld) async throws -> ToolResult {
        var environment = session.environment
        environment["XDG_RUNTIME_DIR"] = session.directory.path + "/no-manager"
        environment["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=\(session.directory.path)/no-manager/bus"
        return try await session.run(
            session.daysomectl, ["pending", "--json"] + session.daemonPaths, environment: environment)
    }
}
