// How the two programs find a daemon's files, with the real daysomed and daysomectl (the log
// notifier, no bus): the runtime directory alone names a daemon (its state directory is read from
// what it published there), with or without `$XDG_RUNTIME_DIR`, relative or absolute, while the
// daemon runs and once it is gone; and where daysomed cannot run safely (`$XDG_RUNTIME_DIR` unset
// or missing, a runtime directory others could write, a state directory another daemon holds) it
// says so in one clear line and exits, never guessing, creating or repairing a directory.

import DaysomeCore
import DaysomeFiles
import DaysomeTestSupport
import Glibc
import Testing

@Suite("How daysomed and daysomectl find a daemon's files")
struct DaemonPathsTests {
    /// Each phase is one thing a carer or a tester does with the daemon's files, in turn on one
    /// daemon: read its history by its runtime directory alone, without `$XDG_RUNTIME_DIR`, once it
    /// is gone (and never another daemon's), then a daemon started with relative paths.
    @Test
    func theRuntimeDirectoryAloneNamesADaemonWithoutXdgRuntimeDirOrOnceItIsGoneAndRelativePathsArePublishedAbsolute()
        async throws
    {
        let session = try await TestWorld.start([])
        defer { session.stop() }
        // Another daemon's history in the default state directory: never to be passed off as this one's.
        let other = session.home + "/.local/state/daysome"
        try FileIO.makeDirectories(other, mode: 0o700)
        let foreign = HistoryRecord(time: Instant(seconds: 1_700_000_000), event: .laid, lay: 999)
        try writeFile(other + "/history.jsonl", foreign.json.serialized() + "\n")
        // The world's daemon runs with --state-dir <run>/state, not under $XDG_STATE_HOME.
        try replaceFile(session.household, try farAwayHousehold())
        try await session.startDaemon(notifier: "log")
        let lay = try #require(try await session.pending().lay)
        let runtime = ["--runtime-dir", session.runtimeDirectory]
        let state = session.stateDirectory

        // The runtime directory alone names the daemon: history reads the state directory it published.
        let text = try await session.ctl(["history"] + runtime)
        #expect(text.status == 0, "\(text)")
        #expect(!text.stdout.contains("No history yet"), "\(text)")
        #expect(text.stdout.contains("laid"), "\(text)")
        let running = "State directory: \(state) (of the daemon running for '\(session.runtimeDirectory)')\n"
        #expect(text.stdout.hasSuffix(running), "\(text)")
        let json = try await session.ctlJSON(["history", "--json"] + runtime)
        let events = json["history"]?.arrayValue ?? []
        #expect(
            events.contains {
                $0.objectValue?["event"]?.stringValue == "laid" && $0.objectValue?["lay"]?.int == lay
            }, "\(json)")
        let live = try await session.ctl(["history", "--json"] + runtime)
        #expect(live.status == 0 && live.stderr.isEmpty, "\(live)")
        let liveJSON = try HistorySnapshot(json: JSONParser.parse(live.stdout))
        #expect(liveJSON.stateDirectory == state && !liveJSON.fellBack, "\(live)")
        // status and history agree on the daemon they name.
        let status = try await session.ctl(["status"] + runtime)
        #expect(status.stdout.contains("Lay: \(lay),"), "\(status)")
        // An explicit --state-dir still wins.
        let elsewhere = try session.directory.makeDirectory("elsewhere")
        let explicit = try await session.ctl(["history", "--state-dir", elsewhere] + runtime)
        #expect(
            explicit.stdout == "No history yet.\nState directory: \(elsewhere) (given by --state-dir)\n", "\(explicit)")

        // Without $XDG_RUNTIME_DIR every command whose path options suffice runs.
        var unset = session.environment
        unset["XDG_RUNTIME_DIR"] = nil
        func ctl(_ arguments: [String]) async throws -> ToolResult {
            try await session.run(session.daysomectl, arguments, environment: unset)
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

        // The daemon is gone: `pending` refuses its queue, one line on stderr and nothing on stdout.
        #expect(try await session.pending().starts.isEmpty == false)
        try await session.killDaemon()
        for arguments in [["pending"], ["pending", "--json"]] {
            let result = try await session.ctl(arguments + session.daemonPaths)
            #expect(result.status == 1, "\(result)")
            #expect(result.stdout.isEmpty, "\(result)")
            #expect(result.stderr.hasSuffix("\n") && result.stderr.split(separator: "\n").count == 1, "\(result)")
        }
        // History reads its last published state directory, and stderr says so.
        let gone = try await session.ctl(["history", "--json"] + runtime)
        #expect(gone.status == 0, "\(gone)")
        #expect(gone.stderr.contains("no daemon runs for '\(session.runtimeDirectory)'"), "\(gone)")
        let goneJSON = try HistorySnapshot(json: JSONParser.parse(gone.stdout))
        #expect(goneJSON.stateDirectory == state && goneJSON.fellBack, "\(gone)")
        #expect(!goneJSON.history.contains { $0.lay == 999 }, "another daemon's history: \(gone)")
        // A runtime directory no daemon ever published in: no history is passed off as its own.
        let wrong = try session.directory.makeDirectory("wrong-runtime")
        let refused = try await session.ctl(["history", "--runtime-dir", wrong])
        print("[DaemonPathsTests] history --runtime-dir <none>: exit \(refused.status ?? -1): \(refused.stderr)")
        #expect(refused.status == 1, "\(refused)")
        #expect(refused.stdout.isEmpty, "\(refused)")
        #expect(
            refused.stderr
                == "daysomectl: no daemon has published a state directory in '\(wrong)': "
                + "give --state-dir DIR to read a history there\n", "\(refused)")
        // The default runtime directory, nothing published: the default is read, and stderr says so.
        let byDefault = try await session.ctl(["history", "--json"])
        #expect(byDefault.status == 0, "\(byDefault)")
        #expect(byDefault.stderr.contains("reading the default, '\(other)'"), "\(byDefault)")
        let defaultJSON = try HistorySnapshot(json: JSONParser.parse(byDefault.stdout))
        #expect(defaultJSON.stateDirectory == other && defaultJSON.fellBack, "\(byDefault)")
        #expect(defaultJSON.history == [foreign])

        // Relative path options are published absolute, resolved against the directory each
        // program started in: `env -C` starts daysomed in the world's directory.
        let root = session.directory.path
        // The killed daemon's last status is set aside: the new one's is what is read.
        unlink(session.runtimeDirectory + "/status.json")
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
        let published = try StatusSnapshot(
            json: try JSONParser.parse(readFile(session.runtimeDirectory + "/status.json")))
        #expect(published.household.path == session.household, "\(published)")
        #expect(published.daemon?.displayStatePath == session.displayState, "\(published)")
        #expect(published.daemon?.runtimeDirectory == session.runtimeDirectory, "\(published)")
        #expect(published.daemon?.stateDirectory == session.stateDirectory, "\(published)")
        // daysomectl started elsewhere with a relative runtime directory finds the same daemon, and
        // writes the display file the daemon watches.
        let relative = try await session.run(
            "/usr/bin/env", ["-C", elsewhere, session.daysomectl, "signal", "foreground", "--runtime-dir", "../run"])
        #expect(relative.status == 0, "\(relative)")
        #expect(readFile(session.displayState) == "foreground\n", "\(relative)")
        let relativeHistory = try await session.run(
            "/usr/bin/env", ["-C", root, session.daysomectl, "history", "--json", "--state-dir", "state"])
        #expect(relativeHistory.stdout.contains("\"laid\""), "\(relativeHistory)")
    }

    /// The README's second terminal, in a shell without `$XDG_RUNTIME_DIR` (su, ssh without
    /// pam_systemd, a container): scripts/run starts the daemon in `/run/user/<uid>` (its
    /// scripts/start-daemon, on the debug build), and `daysomectl pending`, `status`, `signal` and
    /// `history`, as the README writes them and with nothing exported, find that daemon. The
    /// daemon runs in a mount namespace of its own with an empty tmpfs on /run/user, so its
    /// `/run/user/<uid>` is made there, as on a machine with no session, never touching this
    /// machine's nor another test's; the second terminal enters it (`nsenter --mount`). This test
    /// waits on the wall clock for a real daemon's start and its inotify: no virtual clock runs a
    /// shell script.
    @Test func theReadmesSecondTerminalFindsTheDaemonScriptsRunStartedInAShellWithoutXdgRuntimeDir()
        async throws
    {
        let session = try await TestWorld.start([])
        defer { session.stop() }
        var shell = session.environment
        shell["XDG_RUNTIME_DIR"] = nil
        shell["DBUS_SESSION_BUS_ADDRESS"] = nil
        let binaries = "/" + session.daysomed.split(separator: "/").dropLast().joined(separator: "/")
        let log = session.directory.path + "/start-daemon.log"
        let daemon = try SpawnedProcess(
            "/usr/bin/unshare",
            [
                "--mount", "--propagation", "private", "/bin/sh", "-c",
                #"mkdir -p /run/user && mount -t tmpfs -o mode=0755 tmpfs /run/user && exec "$0" "$1""#,
                packageRoot() + "/scripts/start-daemon", binaries,
            ], environment: shell, stdoutPath: log, stderrPath: log)
        session.adopt(daemon)
        let published = "/proc/\(daemon.pid)/root/run/user/\(getuid())/daysome/status.json"
        _ = try await poll("scripts/start-daemon's daysomed to publish in /run/user/\(getuid())", timeout: 15) {
            () -> Bool? in
            if daemon.poll() { throw HarnessError("scripts/start-daemon exited: \(readFile(log))") }
            return FileIO.exists(published) ? true : nil
        }
        // The second terminal: the daemon's mount namespace, this shell's environment without
        // XDG_RUNTIME_DIR, the command as the README has it.
        func secondTerminal(_ arguments: [String]) async throws -> ToolResult {
            try await session.run(
                "/usr/bin/nsenter",
                [
                    "--target", String(daemon.pid), "--mount", "--", "/usr/bin/env", "-u", "XDG_RUNTIME_DIR",
                    session.daysomectl,
                ]
                    + arguments, environment: shell)
        }
        let pending = try await secondTerminal(["pending"])
        #expect(pending.status == 0 && pending.stderr.isEmpty, "\(pending)")
        #expect(pending.stdout.hasPrefix("Display "), "\(pending)")
        let status = try await secondTerminal(["status"])
        #expect(status.status == 0, "\(status)")
        #expect(status.stdout.hasPrefix("daysomed: running (pid \(daemon.pid))\n"), "\(status)")
        #expect(status.stdout.contains("Household: \(session.configHome)/daysome/household.json"), "\(status)")
        // The display away: a lay, which `pending` shows; back: nothing pending.
        let away = try await secondTerminal(["signal", "away"])
        #expect(away.status == 0, "\(away)")
        let laid = try await poll("the lay in `pending`", timeout: 10) { () -> ToolResult? in
            let result = try await secondTerminal(["pending"])
            return result.stdout.contains(" starts pending.") ? result : nil
        }
        print(
            "[DaemonPathsTests] second terminal without XDG_RUNTIME_DIR: \(laid.stdout.split(separator: "\n").first ?? "")"
        )
        let foreground = try await secondTerminal(["signal", "foreground"])
        #expect(foreground.status == 0, "\(foreground)")
        _ = try await poll("nothing pending after the return", timeout: 10) { () -> Bool? in
            try await secondTerminal(["pending"]).stdout.contains("Nothing is pending.") ? true : nil
        }
        let history = try await secondTerminal(["history"])
        #expect(history.status == 0 && history.stdout.contains("laid"), "\(history)")
        #expect(!daemon.poll(), "the daemon exited: \(readFile(log))")
    }

    /// Where daysomed cannot run safely it says so in one clear line and exits, never guessing,
    /// creating or repairing a directory: `$XDG_RUNTIME_DIR` unset (2) or missing (1), a runtime
    /// directory another user could write (1), a state directory another daemon holds (1, naming
    /// it). An explicit runtime directory whose parents are missing is made private all the way.
    @Test func daysomedRefusesInOneClearLineWhatItCannotRunSafelyAndNeverGuessesCreatesOrRepairsADirectory()
        async throws
    {
        let session = try await TestWorld.start([])
        defer { session.stop() }
        try replaceFile(session.household, try farAwayHousehold())

        // $XDG_RUNTIME_DIR unset: exit 2, one line, no directory guessed.
        var unset = session.environment
        unset["XDG_RUNTIME_DIR"] = nil
        let guessed = "/run/user/\(getuid())/daysome"
        let existed = FileIO.exists(guessed)
        let noRuntime = try await session.run(
            session.daysomed, ["--household", session.household, "--state-dir", session.stateDirectory],
            environment: unset, timeout: 10)
        #expect(noRuntime.status == 2, "\(noRuntime)")
        #expect(noRuntime.stderr.hasPrefix("daysomed: XDG_RUNTIME_DIR is not set: "), "\(noRuntime)")
        #expect(noRuntime.stderr.filter { $0 == "\n" }.count == 1, "\(noRuntime)")
        #expect(FileIO.exists(guessed) == existed, "daysomed created \(guessed)")
        let ctlUnset = try await session.run(session.daysomectl, ["status"], environment: unset)
        #expect(ctlUnset.status == 2, "\(ctlUnset)")
        #expect(ctlUnset.stderr.hasPrefix("daysomectl: XDG_RUNTIME_DIR is not set: "), "\(ctlUnset)")

        // $XDG_RUNTIME_DIR missing: exit 1 with its exact line, nothing created by daysomed or `signal`.
        var missingEnvironment = session.environment
        let missing = session.directory.path + "/no-session/runtime"
        missingEnvironment["XDG_RUNTIME_DIR"] = missing
        let result = try await session.run(
            session.daysomed, ["--household", session.household, "--state-dir", session.stateDirectory],
            environment: missingEnvironment, timeout: 10)
        #expect(result.status == 1, "\(result)")
        let line = "daysomed: XDG_RUNTIME_DIR '\(missing)' cannot be used (No such file or directory)"
        #expect(result.stderr.hasPrefix(line), "\(result)")
        #expect(!FileIO.exists(session.directory.path + "/no-session"), "daysomed created the session's directory")
        let signal = try await session.run(session.daysomectl, ["signal", "away"], environment: missingEnvironment)
        #expect(signal.status == 1, "\(signal)")
        #expect(!FileIO.exists(session.directory.path + "/no-session"), "signal created the session's directory")
        // An explicit runtime directory whose parents are missing is made private all the way down.
        let run = session.directory.path + "/explicit/a/run"
        let display = session.directory.path + "/explicit/display/state"
        let explicitDaemon = try SpawnedProcess(
            session.daysomed,
            [
                "--household", session.household, "--state-dir", session.stateDirectory, "--runtime-dir", run,
                "--display-state", display, "--notifier", "log",
            ],
            environment: missingEnvironment, stderrPath: session.directory.path + "/explicit.log")
        session.adopt(explicitDaemon)
        _ = try await poll("daysomed to publish under its explicit runtime directory", timeout: 15) { () -> Bool? in
            if explicitDaemon.poll() {
                throw HarnessError("daysomed exited: \(readFile(session.directory.path + "/explicit.log"))")
            }
            return FileIO.exists(run + "/status.json") ? true : nil
        }
        for directory in [session.directory.path + "/explicit/a", run, session.directory.path + "/explicit/display"] {
            var info = stat()
            #expect(stat(directory, &info) == 0 && info.st_mode & 0o777 == 0o700, "\(directory) is not 0700")
        }
        explicitDaemon.send(SIGKILL)
        #expect(await explicitDaemon.exit(within: 5))

        // A runtime directory another user could write: refused, not repaired or used.
        let arguments = session.daemonArguments(DaemonOptions(notifier: "log"))
        let linkTarget = try session.directory.makeDirectory("link-target")
        let setups: [(String, () -> Void)] = [
            ("0777", { chmod(session.runtimeDirectory, 0o777) }),
            ("0770 (group-writable)", { chmod(session.runtimeDirectory, 0o770) }),
            ("0702 (writable by others)", { chmod(session.runtimeDirectory, 0o702) }),
            ("1777 (sticky, like /tmp)", { chmod(session.runtimeDirectory, 0o1777) }),
            ("owned by nobody", { chown(session.runtimeDirectory, 65_534, 65_534) }),
            (
                "a symlink to a 0700 directory",
                {
                    rmdir(session.runtimeDirectory)
                    symlink(linkTarget, session.runtimeDirectory)
                }
            ),
        ]
        var report: [String] = []
        for (name, setup) in setups {
            removeTree(session.runtimeDirectory)
            mkdir(session.runtimeDirectory, 0o700)
            setup()
            let before = modeBits(session.runtimeDirectory)
            let refused = try await session.run(session.daysomed, arguments, timeout: 10)
            #expect(refused.status == 1, "\(name): \(refused)")
            let lines = refused.stderr.split(separator: "\n")
            #expect(lines.count == 1, "\(name): one clear line: \(refused.stderr)")
            #expect(
                refused.stderr.contains(session.runtimeDirectory), "\(name): the line names the directory: \(refused)")
            #expect(
                refused.stderr.contains("writable by others") || refused.stderr.contains("another user")
                    || refused.stderr.contains("Not a directory"), "\(name): \(refused.stderr)")
            // Refused, not repaired or used: its mode is as it was and nothing was put in it.
            #expect(modeBits(session.runtimeDirectory) == before, "\(name)")
            #expect(readFile(session.runtimeDirectory + "/queue.json").isEmpty, "\(name): the daemon used it")
            #expect(readFile(linkTarget + "/queue.json").isEmpty, "\(name): the daemon followed the link")
            report.append("\(name): \(lines.first ?? "")")
        }
        removeTree(session.runtimeDirectory)
        print("[DaemonPathsTests] refused runtime directories: " + report.joined(separator: " | "))

        // A second daemon on the same state directory (another runtime directory, so the runtime
        // lock cannot be what refuses it): refused, naming the daemon that has it.
        let first = try await session.startDaemon(notifier: "log")
        let lay = try #require(try await session.pending().lay)
        let other = [
            "--household", session.household, "--state-dir", session.stateDirectory,
            "--runtime-dir", session.directory.path + "/second/run",
            "--display-state", session.directory.path + "/second/display", "--notifier", "log",
        ]
        let second = try await session.run(session.daysomed, other, environment: session.environment, timeout: 15)
        print("[DaemonPathsTests] the second daemon said: \(second.stderr)")
        #expect(second.status == 1, "\(second)")
        #expect(second.stderr.contains("already uses the state directory '\(session.stateDirectory)'"), "\(second)")
        #expect(second.stderr.contains("pid \(first.pid)"), "the refusal does not name the first daemon: \(second)")
        #expect(second.stderr.filter { $0 == "\n" }.count == 1, "\(second)")
        #expect(!first.process.poll(), "the first daemon stopped: \(session.daemonStderr)")
        #expect(try await session.pending().lay == lay, "the refused daemon touched the first one's lay")
        #expect(try layNumber(in: session.stateDirectory) == lay)
        // Once the first is gone, the state directory is free for the other.
        try await session.killDaemon()
        let later = try SpawnedProcess(
            session.daysomed, other, environment: session.environment,
            stderrPath: session.directory.path + "/second.log")
        session.adopt(later)
        _ = try await poll("the second daemon to run once the first is gone", timeout: 15) { () -> Bool? in
            if later.poll() { throw HarnessError("it exited: \(readFile(session.directory.path + "/second.log"))") }
            return FileIO.exists(session.directory.path + "/second/run/status.json") ? true : nil
        }
    }
}
