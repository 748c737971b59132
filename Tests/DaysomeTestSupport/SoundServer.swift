// A world's sound server: PulseAudio with nothing but a null sink, kept running, whose monitor
// a test records to hear what the daemon played. Only what runs in this world can play into it.

import Glibc

/// The null sink every world's PulseAudio plays into; its monitor is what the tests record.
public let nullSink = "daysome_test"

extension TestWorld {
    /// PulseAudio with nothing but a null sink and a native socket in this world (`-n`: no
    /// default.pa), run as it would be for a user, with anonymous access on its private socket.
    /// A silent stream keeps the sink running, so its monitor delivers a continuous recording in
    /// step with the clock (an idle null sink's monitor delivers nothing, and the first stream to
    /// arrive rewinds over what it would have recorded).
    public func startSoundServer() async throws {
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
}
