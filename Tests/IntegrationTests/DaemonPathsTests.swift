// How the two programs find a daemon's files, with the real daysomed and daysomectl: the runtime
// directory alone names a daemon (its state directory is read from what it published there),
// and `$XDG_RUNTIME_DIR` unset or missing is a clear error, never a guessed or created directory.

import DaysomeCore
import DaysomeFiles
import DaysomeTestSupport
import Glibc
import Testing

@Suite("How daysomed and daysomectl find a daemon's files")
struct DaemonPathsTests {
    @Test func theRuntimeDirectoryAloneNamesADaemonHistoryReadsTheStateDirectoryItPublished() async throws {
        let session = try await TestWorld.start([.sessionBus, .notificationServer])
        defer { session.stop() }
        // The world's daemon runs with --state-dir <run>/state, not under $XDG_STATE_HOME.
        try replaceFile(session.household, try farAwayHousehold())
        try await session.startDaemon()
        let lay = try #require(try await session.pending().lay)
        let runtime = ["--runtime-dir", session.runtimeDirectory]
        let text = try await session.ctl(["history"] + runtime)
        #expect(text.status == 0, "\(text)")
        #expect(!text.stdout.contains("No history yet"), "\(text)")
        #expect(text.stdout.contains("laid"), "\(text)")
        let json = try await session.ctlJSON(["history", "--json"] + runtime)
        let events = json["history"]?.arrayValue ?? []
        #expect(
            events.contains {
                $0.objectValue?["event"]?.stringValue == "laid" && $0.objectValue?["lay"]?.int == lay
            }, "\(json)")
        // status and history agree on the daemon they name.
        let status = try await session.ctl(["status"] + runtime)
        #expect(status.stdout.contains("Lay: \(lay),"), "\(status)")
        // An explicit --state-dir still wins.
        let elsewhere = try session.directory.makeDirectory("elsewhere")
        let explicit = try await session.ctl(["history", "--state-dir", elsewhere] + runtime)
        #expect(
            explicit.stdout == "No history yet.\nState directory: \(elsewhere) (given by --state-dir)\n", "\(explicit)")
    }

    @Test func withXdgRuntimeDirUnsetDaysomedExits2WithOneClearLineAndGuessesNoDirectory() async throws {
        let session = try await TestWorld.start([])
        defer { session.stop() }
        var environment = session.environment
        environment["XDG_RUNTIME_DIR"] = nil
        let guessed = "/run/user/\(getuid())/daysome"
        let existed = FileIO.exists(guessed)
        let result = try await session.run(
            session.daysomed, ["--household", session.household, "--state-dir", session.stateDirectory],
            environment: environment, timeout: 10)
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr.hasPrefix("daysomed: XDG_RUNTIME_DIR is not set: "), "\(result)")
        #expect(result.stderr.filter { $0 == "\n" }.count == 1, "\(result)")
        #expect(FileIO.exists(guessed) == existed, "daysomed created \(guessed)")
        let ctl = try await session.run(session.daysomectl, ["status"], environment: environment)
        #expect(ctl.status == 2, "\(ctl)")
        #expect(ctl.stderr.hasPrefix("daysomectl: XDG_RUNTIME_DIR is not set: "), "\(ctl)")
    }

    @Test func withXdgRuntimeDirUnsetEveryCommandWhosePathOptionsSufficeRuns() async throws {
        let session = try await TestWorld.start([])
        defer { session.stop() }
        try replaceFile(session.household, try farAwayHousehold())
        try await session.startDaemon(notifier: "log")
        var environment = session.environment
        environment["XDG_RUNTIME_DIR"] = nil
        let runtime = ["--runtime-dir", session.runtimeDirectory]
        func ctl(_ arguments: [String]) async throws -> ToolResult {
            try await session.run(session.daysomectl, arguments, environment: environment)
        }
        // The runtime directory names the daemon, and the daemon published its display file there.
        let signal = try await ctl(["signal", "foreground"] + runtime)
        #expect(signal.status == 0, "\(signal)")
        #expect(readFile(session.displayState) == "foreground\n", "signal wrote elsewhere: \(signal)")
        let signalFile = try await ctl(["signal", "away", "--display-state", session.displayState])
        #expect(signalFile.status == 0, "\(signalFile)")
        #expect(readFile(session.displayState) == "away\n")
        for arguments in [["status"] + runtime, ["pending"] + runtime, ["history"] + runtime] {
            let result = try await ctl(arguments)
            #expect(result.status == 0, "\(result)")
            #expect(!result.stderr.contains("XDG_RUNTIME_DIR"), "\(result)")
        }
        // A state directory is all history reads.
        let history = try await ctl(["history", "--state-dir", session.stateDirectory])
        #expect(history.status == 0, "\(history)")
        #expect(history.stdout.contains("laid"), "\(history)")
        // Where the options do not suffice, the missing default is still named: no daemon published a
        // display file under this runtime directory, and none can be guessed.
        let nobody = try session.directory.makeDirectory("nobody")
        let guessed = try await ctl(["signal", "away", "--runtime-dir", nobody])
        #expect(guessed.status == 2, "\(guessed)")
        #expect(guessed.stderr.hasPrefix("daysomectl: XDG_RUNTIME_DIR is not set: "), "\(guessed)")
        #expect(try await ctl(["pending"]).status == 2)
    }

    @Test func relativePathOptionsArePublishedAbsoluteResolvedAgainstTheDirectoryEachProgramStartedIn()
        async throws
    {
        let session = try await TestWorld.start([])
        defer { session.stop() }
        try replaceFile(session.household, try farAwayHousehold())
        let root = session.directory.path
        // `env -C` starts daysomed in the world's directory with every path option relative to it.
        let daemon = try SpawnedProcess(
            "/usr/bin/env",
            [
                "-C", root, session.daysomed, "--household", "./household/household.json", "--display-state",
                "display/state", "--runtime-dir", "run", "--state-dir", "./state", "--notifier", "log",
            ],
            environment: session.environment, stderrPath: root + "/relative.log")
        session.adopt(daemon)
        _ = try await poll("daysomed to publish its status", timeout: 15) { () -> Bool? in
            if daemon.poll() { throw HarnessError("daysomed exited: \(readFile(root + "/relative.log"))") }
            return FileIO.exists(session.runtimeDirectory + "/status.json") ? true : nil
        }
        let status = try StatusSnapshot(json: try JSONParser.parse(readFile(session.runtimeDirectory + "/status.json")))
        #expect(status.household.path == session.household, "\(status)")
        #expect(status.daemon?.displayStatePath == session.displayState, "\(status)")
        #expect(status.daemon?.runtimeDirectory == session.runtimeDirectory, "\(status)")
        #expect(status.daemon?.stateDirectory == session.stateDirectory, "\(status)")
        // daysomectl started elsewhere with a relative runtime directory finds the same daemon, and
        // writes the display file the daemon watches.
        let elsewhere = try session.directory.makeDirectory("elsewhere")
        let signal = try await session.run(
            "/usr/bin/env", ["-C", elsewhere, session.daysomectl, "signal", "foreground", "--runtime-dir", "../run"])
        #expect(signal.status == 0, "\(signal)")
        #expect(readFile(session.displayState) == "foreground\n", "\(signal)")
        let history = try await session.run(
            "/usr/bin/env", ["-C", root, session.daysomectl, "history", "--json", "--state-dir", "state"])
        #expect(history.stdout.contains("\"laid\""), "\(history)")
    }

    @Test func withXdgRuntimeDirMissingDaysomedExits1AndNeverCreatesIt() async throws {
        let session = try await TestWorld.start([])
        defer { session.stop() }
        var environment = session.environment
        let missing = session.directory.path + "/no-session/runtime"
        environment["XDG_RUNTIME_DIR"] = missing
        let result = try await session.run(
            session.daysomed, ["--household", session.household, "--state-dir", session.stateDirectory],
            environment: environment, timeout: 10)
        #expect(result.status == 1, "\(result)")
        let line = "daysomed: XDG_RUNTIME_DIR '\(missing)' cannot be used (No such file or directory)"
        #expect(result.stderr.hasPrefix(line), "\(result)")
        #expect(!FileIO.exists(session.directory.path + "/no-session"), "daysomed created the session's directory")
        let signal = try await session.run(session.daysomectl, ["signal", "away"], environment: environment)
        #expect(signal.status == 1, "\(signal)")
        #expect(!FileIO.exists(session.directory.path + "/no-session"), "signal created the session's directory")
        // An explicit runtime directory whose parents are missing is made private all the way down.
        let run = session.directory.path + "/explicit/a/run"
        let display = session.directory.path + "/explicit/display/state"
        let daemon = try SpawnedProcess(
            session.daysomed,
            [
                "--household", session.household, "--state-dir", session.stateDirectory, "--runtime-dir", run,
                "--display-state", display, "--notifier", "log",
            ],
            environment: environment, stderrPath: session.directory.path + "/explicit.log")
        session.adopt(daemon)
        _ = try await poll("daysomed to publish under its explicit runtime directory", timeout: 15) { () -> Bool? in
            if daemon.poll() {
                throw HarnessError("daysomed exited: \(readFile(session.directory.path + "/explicit.log"))")
            }
            return FileIO.exists(run + "/status.json") ? true : nil
        }
        for directory in [session.directory.path + "/explicit/a", run, session.directory.path + "/explicit/display"] {
            var info = stat()
            #expect(stat(directory, &info) == 0 && info.st_mode & 0o777 == 0o700, "\(directory) is not 0700")
        }
    }
}
