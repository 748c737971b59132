// World: one test's processes and files under one 0700 run directory in .testrun/. What a test
// needs it starts: PulseAudio with a null sink (and a recorder on its monitor), a private session
// bus, Xvfb and dunst, a `systemd --user` manager with its socket-activated bus, and one or more
// real daysomed built next to the test bundle. `stop()` stops every process it started by pid,
// newest first, the user manager last. Nothing is shared between worlds, so tests that wait for a
// minute run side by side.

import DaysomeCore
import Glibc

/// The null sink every world's PulseAudio plays into; its monitor is what the tests record.
let nullSink = "daysome_test"

/// Where one daysomed of a world keeps its files.
struct DaemonFiles {
    let directory: String

    var household: String { "\(self.directory)/household/household.json" }
    var displayState: String { "\(self.directory)/display/state" }
    var runtimeDirectory: String { "\(self.directory)/run" }
    var stateDirectory: String { "\(self.directory)/state" }
    var log: String { "\(self.directory)/daysomed.log" }
    /// The options `signal`, `try`, `history` and `status` need to find this daemon.
    var paths: [String] {
        [
            "--runtime-dir", self.runtimeDirectory, "--state-dir", self.stateDirectory, "--display-state",
            self.displayState,
        ]
    }
}

/// One daysomed of a world.
final class Daemon {
    let name: String
    let files: DaemonFiles
    let process: SpawnedProcess

    var paths: [String] { self.files.paths }
    var runtimeDirectory: String { self.files.runtimeDirectory }
    /// What the daemon wrote on stderr so far.
    var stderr: String { readFile(self.files.log) }

    init(name: String, files: DaemonFiles, process: SpawnedProcess) {
        self.name = name
        self.files = files
        self.process = process
    }
}

/// One test's world.
final class World: ShowsNotifications {
    let directory: TestDirectory
    let daysomed: String
    let daysomectl: String
    private var processes: [SpawnedProcess] = []
    private var manager: SpawnedProcess?
    var outputCount = 0
    private var recordingCount = 0
    /// `unix:<socket>` of this world's PulseAudio, once it runs.
    private(set) var pulseServer: String?
    /// The session bus: a private dbus-daemon's, or the user manager's socket-activated one.
    private(set) var busAddress: String?
    /// dunst's environment (and dunstctl's), once it runs.
    private(set) var serverEnvironment: [String: String]?
    private(set) var daemons: [Daemon] = []

    var home: String { "\(self.directory.path)/home" }
    var configHome: String { "\(self.directory.path)/home/.config" }
    /// $XDG_RUNTIME_DIR of every child (0700, outside /tmp): also the user manager's.
    var userRuntime: String { "\(self.directory.path)/xdg" }

    /// What every child gets: nothing inherited from the test process, the scratch home, and
    /// this world's sound server and bus. A sound server named explicitly (and absent, until one
    /// runs) keeps a player from autospawning one that this harness did not start.
    var environment: [String: String] {
        var environment = [
            "PATH": childPath, "HOME": self.home, "LANG": "C.UTF-8", "XDG_RUNTIME_DIR": self.userRuntime,
            "XDG_CONFIG_HOME": self.configHome, "XDG_STATE_HOME": "\(self.home)/.local/state",
            "PULSE_SERVER": self.pulseServer ?? "unix:\(self.directory.path)/no-sound-server",
            "PIPEWIRE_REMOTE": "\(self.directory.path)/no-sound-server",
        ]
        if let address = self.busAddress {
            environment["DBUS_SESSION_BUS_ADDRESS"] = address
        }
        return environment
    }

    init() throws {
        self.daysomed = try builtProduct("daysomed")
        self.daysomectl = try builtProduct("daysomectl")
        self.directory = try TestDirectory()
        for name in ["home", "home/.config", "xdg", "out", "bin"] {
            try self.directory.makeDirectory(name)
        }
    }

    deinit {
        self.stop()
    }

    /// Stops every process this world started, newest first, by pid; the user manager last (it
    /// stops what it started itself: its bus and units).
    func stop() {
        for process in self.processes.reversed() {
            process.stop()
        }
        self.processes.removeAll()
        if let manager = self.manager {
            self.stopManager(manager)
        }
        self.manager = nil
    }

    /// Keeps `process` to be stopped with the world.
    func adopt(_ process: SpawnedProcess) {
        self.processes.append(process)
    }

    // MARK: The sound server

    /// PulseAudio with nothing but a null sink and a native socket in this world (`-n`: no
    /// default.pa), run as it would be for a user, with anonymous access on its private socket.
    /// A silent stream keeps the sink running, so its monitor delivers a continuous recording in
    /// step with the clock (an idle null sink's monitor delivers nothing, and the first stream to
    /// arrive rewinds over what it would have recorded).
    func startSoundServer() async throws {
        let pulseaudio = try findExecutable("pulseaudio", package: "pulseaudio")
        let pactl = try findExecutable("pactl", package: "pulseaudio-utils")
        let pacat = try findExecutable("pacat", package: "pulseaudio-utils")
        _ = try findExecutable("parec", package: "pulseaudio-utils")
        _ = try findExecutable("paplay", package: "pulseaudio-utils")
        _ = try findExecutable("sox", package: "sox")
        let pulseHome = try self.directory.makeDirectory("pulse")
        try self.directory.makeDirectory("pulse/run")
        try self.directory.makeDirectory("pulse/config")
        let socket = "\(pulseHome)/native"
        let environment = [
            "PATH": childPath, "HOME": pulseHome, "LANG": "C.UTF-8", "XDG_RUNTIME_DIR": "\(pulseHome)/run",
            "XDG_CONFIG_HOME": "\(pulseHome)/config", "PULSE_RUNTIME_PATH": "\(pulseHome)/run",
            "PULSE_STATE_PATH": "\(pulseHome)/state", "DBUS_SESSION_BUS_ADDRESS": "unix:path=\(pulseHome)/no-bus",
        ]
        let log = "\(self.directory.path)/pulseaudio.log"
        let server = try SpawnedProcess(
            pulseaudio,
            [
                "--daemonize=no", "--system=false", "--exit-idle-time=-1", "-n", "--use-pid-file=false",
                "--realtime=false", "--high-priority=false", "--log-target=stderr",
                "--load=module-null-sink sink_name=\(nullSink) rate=44100 channels=2",
                "--load=module-native-protocol-unix socket=\(socket) auth-anonymous=1",
            ], environment: environment, stderrPath: log)
        self.processes.append(server)
        self.pulseServer = "unix:\(socket)"
        _ = try await poll("PulseAudio (pid \(server.pid)) to answer on \(socket)", timeout: 15) { () -> Bool? in
            if server.poll() {
                throw HarnessError("pulseaudio exited early (\(server.waitStatus ?? -1)): \(readFile(log))")
            }
            guard access(socket, F_OK) == 0 else { return nil }
            return try await self.run(pactl, ["info"]).status == 0 ? true : nil
        }
        let keepalive = try SpawnedProcess(
            pacat,
            [
                "--playback", "--raw", "--format=s16le", "--channels=1", "--rate=44100", "--latency-msec=50",
                "--client-name=daysome-test-keepalive", "--device=\(nullSink)", "/dev/zero",
            ], environment: self.environment, stderrPath: "\(self.directory.path)/keepalive.log")
        self.processes.append(keepalive)
        _ = try await poll("the null sink to run", timeout: 10) { () -> Bool? in
            if keepalive.poll() {
                throw HarnessError("pacat exited early: \(self.directory.read("keepalive.log"))")
            }
            let sinks = try await self.run(pactl, ["list", "short", "sinks"])
            return sinks.stdout.contains("RUNNING") ? true : nil
        }
    }

    /// Records the null sink's monitor (mono, 16-bit, 44.1 kHz, raw) until `stop()`.
    func startRecording() async throws -> Recording {
        guard self.pulseServer != nil else {
            throw HarnessError("this world runs no sound server: startSoundServer() first")
        }
        let parec = try findExecutable("parec", package: "pulseaudio-utils")
        self.recordingCount += 1
        let file = "\(self.directory.path)/recording-\(self.recordingCount).raw"
        let process = try SpawnedProcess(
            parec,
            [
                "--device=\(nullSink).monitor", "--raw", "--format=s16le", "--channels=1",
                "--rate=\(Recording.rate)", "--latency-msec=20", "--client-name=daysome-test-recorder",
            ], environment: self.environment, stdoutPath: file,
            stderrPath: "\(self.directory.path)/recording-\(self.recordingCount).log")
        self.processes.append(process)
        let recording = Recording(file: file, process: process)
        _ = try await poll("parec to deliver sound", timeout: 10, interval: 0.01) { () -> Bool? in
            if process.poll() {
                throw HarnessError("parec exited early: \(self.directory.read("recording-\(self.recordingCount).log"))")
            }
            return recording.sampleCount > 0 ? true : nil
        }
        return recording
    }

    // MARK: A session bus, dunst, a user manager

    /// `dbus-daemon --nofork --print-address=1` with a session config that has no service
    /// directories (the stock one would let the bus activate /usr/bin/dunst behind our back).
    func startSessionBus() async throws {
        let (process, address) = try await startPrivateSessionBus(in: self.directory, home: self.home)
        self.processes.append(process)
        self.busAddress = address
    }

    /// Xvfb on a display it picks (-displayfd, so parallel tests do not collide) and dunst on the
    /// session bus; waits until dunst answers `dunstctl count displayed`.
    func startNotificationServer() async throws {
        guard self.busAddress != nil else {
            throw HarnessError("dunst needs a session bus: startSessionBus() first")
        }
        let (xvfb, display) = try await startXvfb(in: self.directory, home: self.home)
        self.processes.append(xvfb)
        var environment = self.environment
        environment["DISPLAY"] = display
        self.serverEnvironment = environment
        let dunst = try await startDunst(in: self.directory, environment: environment) {
            try await self.dunstctl(["count", "displayed"]).status == 0
        }
        self.processes.append(dunst)
    }

    /// Starts `systemd --user` on this world's runtime directory and home (PID 1 is not systemd
    /// here: it starts once /run/systemd/system exists), and waits until its private socket
    /// answers and it owns org.freedesktop.systemd1 on its socket-activated bus, which becomes
    /// this world's session bus. Unit files written to `$XDG_CONFIG_HOME/systemd/user` beforehand
    /// are loaded.
    func startUserManager() async throws {
        let executable = "/lib/systemd/systemd"
        guard access(executable, X_OK) == 0 else {
            throw HarnessError("\(executable) is missing: install the Debian package 'systemd'")
        }
        let systemctl = try findExecutable("systemctl", package: "systemd")
        let busctl = try findExecutable("busctl", package: "systemd")
        _ = try findExecutable("dbus-daemon", package: "dbus-daemon")
        guard access("/usr/lib/systemd/user/dbus.socket", F_OK) == 0 else {
            throw HarnessError("the user manager has no dbus.socket: install the Debian package 'dbus-user-session'")
        }
        guard mkdir("/run/systemd", 0o755) == 0 || errno == EEXIST,
            mkdir("/run/systemd/system", 0o755) == 0 || errno == EEXIST
        else {
            throw HarnessError("cannot create /run/systemd/system (\(errnoText(errno))): the user manager needs it")
        }
        let log = "\(self.directory.path)/manager.log"
        let process = try SpawnedProcess(
            executable, ["--user"], environment: self.environment, stdoutPath: log, stderrPath: log)
        self.manager = process
        _ = try await poll("the user manager (pid \(process.pid)) to answer on its private socket", timeout: 15) {
            () -> Bool? in
            if process.poll() {
                throw HarnessError("systemd --user exited early (\(process.waitStatus ?? -1)): \(readFile(log))")
            }
            guard access("\(self.userRuntime)/systemd/private", F_OK) == 0 else { return nil }
            let state = try await self.run(systemctl, ["--user", "is-system-running"]).stdout
            return state.contains("running") || state.contains("degraded") ? true : nil
        }
        self.busAddress = "unix:path=\(self.userRuntime)/bus"
        _ = try await poll("the user manager to own org.freedesktop.systemd1 on its bus", timeout: 15) {
            () -> Bool? in
            let result = try await self.run(
                busctl,
                [
                    "--user", "call", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                    "NameHasOwner", "s", "org.freedesktop.systemd1",
                ])
            return result.status == 0 && result.stdout.contains("true") ? true : nil
        }
    }

    /// Stops the manager: SIGTERM (it stops its units and its bus), SIGKILL after 10 s, and then
    /// its children too, by pid.
    private func stopManager(_ process: SpawnedProcess) {
        if process.poll() {
            return
        }
        let started = monotonicSeconds()
        kill(process.pid, SIGTERM)
        while !process.poll() && monotonicSeconds() - started < 10 {
            usleep(5_000)
        }
        if !process.poll() {
            let children = childPids(of: process.pid)
            process.stop(deadline: 0)
            for child in children {
                kill(child, SIGTERM)
            }
        }
    }

    // MARK: Daemons

    /// Starts a daysomed named `name` on its own files under this world (the household written
    /// first, the display state file absent: away), and waits until `status --json` shows it
    /// running under its own pid.
    @discardableResult
    func startDaemon(
        _ name: String = "daemon", household: String, arguments: [String] = [],
        environment extra: [String: String] = [:]
    ) async throws -> Daemon {
        let files = DaemonFiles(directory: try self.directory.makeDirectory(name))
        try self.directory.makeDirectory("\(name)/household")
        try replaceFile(files.household, household)
        let process = try SpawnedProcess(
            self.daysomed,
            [
                "--household", files.household, "--display-state", files.displayState, "--runtime-dir",
                files.runtimeDirectory, "--state-dir", files.stateDirectory,
            ] + arguments, environment: self.environment.merging(extra) { $1 }, stderrPath: files.log)
        self.processes.append(process)
        let daemon = Daemon(name: name, files: files, process: process)
        self.daemons.append(daemon)
        _ = try await poll("daysomed '\(name)' (pid \(process.pid)) to publish its status", timeout: 15) {
            () -> Bool? in
            if process.poll() {
                throw HarnessError("daysomed '\(name)' exited early (\(process.waitStatus ?? -1)): \(daemon.stderr)")
            }
            let status = try await self.status(daemon)
            return status["running"]?.boolValue == true && status["pid"]?.doubleValue == Double(process.pid)
                ? true : nil
        }
        return daemon
    }

    /// Everything every daemon of this world wrote, for failure messages.
    var daemonStderr: String {
        self.daemons.map { "[\($0.name)] \($0.stderr)" }.joined(separator: "\n")
    }

    // MARK: Tools

    /// `daysomectl signal foreground|away`, as the display calls it; then waits until the daemon
    /// says it has seen it (`status --json`).
    func signal(_ daemon: Daemon, _ state: String) async throws {
        let result = try await self.ctl(["signal", state] + daemon.paths)
        guard result.status == 0, result.stderr.isEmpty else {
            throw HarnessError("\(result)")
        }
        _ = try await poll("daysomed '\(daemon.name)' to see the display \(state)", timeout: 5, interval: 0.02) {
            () -> Bool? in
            try await self.status(daemon)["display"]?.stringValue == state ? true : nil
        }
    }

    /// `daysomectl status --json`.
    func status(_ daemon: Daemon) async throws -> JSONObject {
        try await self.ctlJSON(["status", "--json"] + daemon.paths)
    }

    /// `daysomectl history --json`.
    func history(_ daemon: Daemon) async throws -> [HistoryEvent] {
        (try await self.ctlJSON(["history", "--json"] + daemon.paths)["history"]?.arrayValue ?? []).map(
            HistoryEvent.init)
    }

    /// Fails unless the daemon's live queue holds a start at `minute` (it was ready in time).
    func expectQueued(_ daemon: Daemon, at minute: Int64) async throws {
        let queue = try await self.ctlJSON(["pending", "--json"] + daemon.paths)
        let starts = (queue["pending"]?.arrayValue ?? []).compactMap { $0.objectValue?["at"]?.stringValue }
        guard starts.contains(rfc3339(minute)) else {
            throw HarnessError(
                "daysomed '\(daemon.name)' holds no start at \(rfc3339(minute)) (not ready before its minute?): "
                    + "\(starts.prefix(2)); it said: \(daemon.stderr)")
        }
    }

}

/// One record of `history --json`.
struct HistoryEvent: CustomStringConvertible {
    let time: String
    let event: String
    let at: String?
    let reason: String?

    init(_ value: JSONValue) {
        let object = value.objectValue ?? JSONObject()
        self.time = object["time"]?.stringValue ?? ""
        self.event = object["event"]?.stringValue ?? ""
        self.at = object["at"]?.stringValue
        self.reason = object["reason"]?.stringValue
    }

    var description: String {
        "\(self.time) \(self.event)\(self.at.map { " \($0)" } ?? "")\(self.reason.map { ": \($0)" } ?? "")"
    }
}
