// The edges of a kiosk's life through the real unit in a real user manager: a first boot before
// the display app has written anything, for a user whose manager starts after the install (no
// state directory yet either); then the unit as shipped, verified, started and hardened. State files lost while the manager kept the week is the embedded
// SystemdBackendTests' (the fake manager answers the lay numbers it holds as a real one does).

import DaysomeCore
import DaysomeFiles
import DaysomeTestSupport
import Glibc
import Testing

@Suite("First boot and lost state, through the real unit", .timeLimit(.minutes(4)))
struct FirstBootTests {
    /// A first boot: neither the household's directory nor the state directory exists yet. Then
    /// the unit as shipped, with a household, verified, started, ready and hardened. Then the unit
    /// stopped cleanly before a call's minute: the manager's timer brings it back to make the call.
    /// Debian 12 ships the user manager's systemd-tmpfiles-setup.service disabled: a user whose
    /// manager starts after the install (a kiosk lingered then, a second user's first login) got
    /// no state directory from user-tmpfiles.d, and the unit's read-only home refused it.
    // real-process twin of EmbeddedTests.FirstHouseholdTests.aMissingHouseholdDirectoryIsWatchedAndLaidTheMomentTheAppWritesIt
    @Test func theUnitsFirstBootLaysWithinASecondThenTheShippedUnitRunsHardenedAndTheManagersFireBringsItBackToCall()
        async throws
    {
        let session = try await TestWorld.start(.userManager, daemon: .systemdBackend)
        defer { session.stop() }
        let state = session.home + "/.local/state/daysome"
        _ = try installUnit(session, household: nil, madeByTmpfiles: true)
        #expect(!FileIO.exists(state))
        let enabled = try await session.systemctl(["is-enabled", "systemd-tmpfiles-setup.service"])
        print("[FirstBootTests] this manager's systemd-tmpfiles-setup.service: \(enabled.stdout)")
        #expect(try await session.systemctl(["daemon-reload"]).status == 0)
        let started = try await session.systemctl(["start", "daysomed.service"])
        #expect(started.status == 0, "\(started)")
        let paths = ["--runtime-dir", session.userRuntime + "/daysome", "--state-dir", state]
        let status = try await poll("the unit's daemon to publish its status", timeout: 10, interval: 0.05) {
            () -> DaemonStatus? in
            let status = try? await session.status(at: paths)
            return status?.running == true ? status : nil
        }
        let household = status.household
        let path = household.path
        let directory = String(path[..<path.lastIndex(of: "/")!])
        #expect(path == session.configHome + "/daysome/household.json", "\(household)")
        var info = stat()
        #expect(stat(directory, &info) != 0, "\(directory) exists before the display app ran")
        let errors = household.errors
        #expect(errors.first?.file == path && errors.first?.message.contains("No such file") == true, "\(errors)")

        // A minute later the display app runs for the first time and writes its household.
        #expect(mkdir(directory, 0o700) == 0)
        let written = monotonicSeconds()
        try writeFile(path + ".new", oneItemHousehold(label: "Lunch", detail: "Soup", time: "23:59"))
        #expect(rename(path + ".new", path) == 0)
        // The queue the daemon publishes, read directly: a `daysomectl pending` per poll would also
        // measure the tool's start and its questions to the manager, seconds on a loaded machine.
        let queueFile = session.userRuntime + "/daysome/queue.json"
        let lay = try await poll("a lay after the first household", timeout: 5, interval: 0.01) { () -> UInt64? in
            (try? QueueSnapshot(json: JSONParser.parse(readFile(queueFile))))?.lay
        }
        let seconds = monotonicSeconds() - written
        print("[FirstBootTests] the unit laid lay \(lay) \(seconds) s after the first household was written")
        #expect(seconds < 1)
        // Its state is saved in a private state directory the package's tmpfiles entry made.
        let saveErrors = try await session.status(at: paths).daemon?.stateWriteErrors ?? []
        #expect(saveErrors.isEmpty, "the unit's daemon could not save its state: \(saveErrors)")
        var made = stat()
        #expect(stat(state, &made) == 0 && made.st_mode & 0o777 == 0o700, "no private state directory at \(state)")
        _ = try await poll("lay.json in the state directory", timeout: 5) {
            FileIO.exists(state + "/lay.json") ? true : nil
        }
        let show = try await session.systemctl(["show", "-p", "ActiveState,NRestarts", "daysomed.service"])
        #expect(show.stdout.contains("ActiveState=active") && show.stdout.contains("NRestarts=0"), "\(show)")
        #expect(try await session.systemctl(["stop", "daysomed.service"]).status == 0)

        // The unit as shipped, now with a household: verified, started and ready; and its
        // hardening (RestrictAddressFamilies, SystemCallFilter, ProtectSystem) leaves the system
        // bus reachable: the unit's daemon follows a stand-in logind's lock on a private system bus.
        let lockWorld = try LockWorld(session)
        defer { lockWorld.stop() }
        try await lockWorld.startSystemBus()
        let seed = fixturePath("seed.json")
        let unitDirectory = try installUnit(session, household: seed)
        // Where the system bus is, as an administrator's drop-in would say it.
        try session.directory.makeDirectory("home/.config/systemd/user/daysomed.service.d")
        try writeFile(
            unitDirectory + "/daysomed.service.d/system-bus.conf",
            "[Service]\n" + lockWorld.daemonEnvironment.map { "Environment=\($0.key)=\($0.value)\n" }.joined())

        let verify = try await session.run(
            try findExecutable("systemd-analyze", package: "systemd"),
            // The man pages of Documentation= come with the package, not with a build tree.
            ["--user", "verify", "--man=no", unitDirectory + "/daysomed.service"])
        #expect(verify.status == 0, "\(verify)")
        #expect(try await session.systemctl(["daemon-reload"]).status == 0)
        let restarted = try await session.systemctl(["start", "daysomed.service"])
        #expect(restarted.status == 0, "\(restarted)")
        let ready = try await poll("daysomed.service to be running with a status naming its lay", timeout: 10) {
            () -> [String: String]? in
            let result = try await session.systemctl([
                "show", "-p", "ActiveState,SubState,StatusText,Result", "daysomed.service",
            ])
            var properties: [String: String] = [:]
            for line in result.stdout.split(separator: "\n") {
                guard let equals = line.firstIndex(of: "=") else { continue }
                properties[String(line[..<equals])] = String(line[line.index(after: equals)...])
            }
            if properties["ActiveState"] == "failed" {
                let status = try await session.systemctl(["status", "--no-pager", "-l", "daysomed.service"])
                throw HarnessError("daysomed.service failed: \(properties) \(status.stdout)")
            }
            return properties["ActiveState"] == "active" && properties["StatusText", default: ""].contains("lay")
                ? properties : nil
        }
        print("[FirstBootTests] daysomed.service: \(ready)")
        #expect(ready["SubState"] == "running")

        // Its lay, recorded in its default state directory, is what the manager holds.
        let stateDirectory = state
        let (found, _) = try await session.waitUntilManagerHoldsThePlan(
            within: 5, household: seed, layRecord: { unitLayRecord(session) })
        #expect(ready["StatusText", default: ""].contains("lay \(found.lay)"))
        let pending = try await session.ctlJSON([
            "pending", "--json", "--runtime-dir", session.userRuntime + "/daysome", "--state-dir", stateDirectory,
        ])
        #expect(pending["daemonRunning"]?.boolValue == true, "\(pending)")

        // The hardened unit's daemon follows logind's lock on the system bus.
        let unitPaths = ["--runtime-dir", session.userRuntime + "/daysome", "--state-dir", stateDirectory]
        func unitStatus() async throws -> DaemonStatus { try await session.status(at: unitPaths) }
        do {
            _ = try await poll("the unit's daemon to watch logind's lock", timeout: 15) { () -> Bool? in
                let logind = try? await unitStatus().daemon?.lock.sources[.logind]
                return logind?.watched == true ? true : nil
            }
        } catch {
            let journal = try await session.systemctl(["status", "--no-pager", "-l", "daysomed.service"])
            Issue.record("status: \((try? await unitStatus()).map { "\($0)" } ?? "none"); \(journal.stdout)")
            throw error
        }
        #expect(try await session.ctl(["signal", "foreground"] + unitPaths).status == 0)
        _ = try await poll("the display to be foreground", timeout: 5) { () -> Bool? in
            try await unitStatus().display?.rawValue == "foreground" ? true : nil
        }
        try await lockWorld.setLocked(true)
        _ = try await poll("the locked display to be away", timeout: 1, interval: 0.02) { () -> Bool? in
            try await unitStatus().display?.rawValue == "away" ? true : nil
        }
        #expect(try await session.systemctl(["stop", "daysomed.service"]).status == 0)

        // The manager as the backstop: a start whose daemon is down at its minute is called once
        // the manager's fire brings the unit back. The tablet unlocked, the display away.
        try await lockWorld.setLocked(false)
        #expect(try await session.ctl(["signal", "away"] + unitPaths).status == 0)
        try await self.aStartWhoseDaemonIsDownAtItsMinuteIsCalledOnceTheManagersFireBringsTheUnitBack(session)
    }

    /// The unit stopped cleanly keeps its week in the manager; at the minute the manager's timer
    /// starts daysomed.service again, and the call is made once.
    private func aStartWhoseDaemonIsDownAtItsMinuteIsCalledOnceTheManagersFireBringsTheUnitBack(
        _ session: TestWorld
    ) async throws {
        // A minute after the one the latency phase's other tests call at (each takes the next with
        // a few seconds to spare as it starts): the unit's start at this minute is a daemon's whole
        // start-up, lay and fsyncs, which must not share their one-second bounds.
        let minute = nextMinute(leaving: 8) + 60
        let household = session.directory.path + "/unit-household.json"
        try writeFile(
            household, oneItemHousehold(label: "Soup time", detail: "Soup and a roll", time: utcClockTime(minute)))
        _ = try installUnit(session, household: household)
        #expect(try await session.systemctl(["daemon-reload"]).status == 0)
        #expect(try await session.systemctl(["start", "daysomed.service"]).status == 0)
        let (found, _) = try await session.waitUntilManagerHoldsThePlan(
            within: 10, household: household, layRecord: { unitLayRecord(session) })
        #expect(found.instants.contains(rfc3339(minute)))
        // A clean stop keeps the week in the manager: nothing is left to call at the minute but its timer.
        #expect(try await session.systemctl(["stop", "daysomed.service"]).status == 0)
        #expect(try await session.daysomeUnits("daysome-*.timer").count == 1)
        guard wallSeconds() < Double(minute) - 1 else {
            throw HarnessError("the daemon was stopped only \(wallSeconds() - Double(minute)) s before the minute")
        }

        let history = session.home + "/.local/state/daysome/history.jsonl"
        let delivered: JSONObject
        do {
            delivered = try await poll(
                "the call for \(rfc3339(minute)) in the history", timeout: Double(minute) - wallSeconds() + 20
            ) {
                () -> JSONObject? in
                readFile(history).split(separator: "\n").compactMap {
                    (try? JSONParser.parse(String($0)))?.objectValue
                }.first { $0["event"]?.stringValue == "delivered" && $0["at"]?.stringValue == rfc3339(minute) }
            }
        } catch {
            throw HarnessError(
                "\(error); history: \(readFile(history)); manager log: "
                    + String(session.directory.read("manager-1.log").suffix(4_000)))
        }
        let calledAt = try #require(
            delivered["time"]?.stringValue.flatMap { TimeParsing.instant($0, zone: Zone(name: "UTC", rules: .utc)) })
        print(
            "[FirstBootTests] daemon down at \(rfc3339(minute)): called at \(calledAt.rfc3339) "
                + "(\(delivered["reason"]?.stringValue ?? "no reason"))")
        #expect(calledAt.seconds >= minute && calledAt.seconds <= minute + 10, "\(delivered)")
        let active = try await session.systemctl(["is-active", "daysomed.service"])
        #expect(active.stdout.hasPrefix("active"), "the fire did not bring daysomed.service back: \(active)")
        await pause(1)
        let calls = readFile(history).split(separator: "\n").filter {
            $0.contains(#""event":"delivered""#) && $0.contains(rfc3339(minute))
        }
        #expect(calls.count == 1, "\(calls)")
        #expect(try await session.systemctl(["stop", "daysomed.service"]).status == 0)
    }
}
