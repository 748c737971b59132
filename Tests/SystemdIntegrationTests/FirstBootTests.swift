// The edges of a kiosk's life through the real unit in a real user manager: a first boot before
// the display app has written anything, for a user whose manager starts after the install (no
// state directory yet either); then the unit as shipped, verified, started and hardened. State files lost while the manager kept the week is the embedded
// SystemdBackendTests' (the fake manager answers the lay numbers it holds as a real one does).

import DaysomeCore
import DaysomeFiles
import DaysomeTestSupport
import Glibc
import Testing

@Suite("First boot and lost state, through the real unit")
struct FirstBootTests {
    /// A first boot: neither the household's directory nor the state directory exists yet. Then
    /// the unit as shipped, with a household, verified, started, ready and hardened.
    /// Debian 12 ships the user manager's systemd-tmpfiles-setup.service disabled: a user whose
    /// manager starts after the install (a kiosk lingered then, a second user's first login) got
    /// no state directory from user-tmpfiles.d, and the unit's read-only home refused it.
    // real-process twin of EmbeddedTests.FirstHouseholdTests.aMissingHouseholdDirectoryIsWatchedAndLaidTheMomentTheAppWritesIt
    @Test func theUnitsFirstBootLaysWithinASecondOfTheFirstHouseholdThenTheShippedUnitRunsHardened() async throws {
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
    }
}
