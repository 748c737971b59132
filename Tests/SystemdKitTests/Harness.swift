// Harness: starts the real services integration tests need (a private dbus-daemon, Xvfb + dunst)
// with posix_spawn, in a 0700 directory under .testrun/ (not /tmp), and stops exactly the pids it
// started. A missing binary is an error that fails the test; nothing here skips.

import Glibc
import SystemdKit

/// A harness failure, with a sentence saying what to fix.
struct HarnessError: Error, CustomStringConvertible {
    let description: String
}

/// Microseconds on CLOCK_MONOTONIC.
func monotonicUsec() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1_000
}

/// The PATH children get, and where binaries are looked up.
let childPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

/// Finds `name` on `childPath`, or fails with the Debian package that provides it.
func findExecutable(_ name: String, package: String) throws -> String {
    for directory in childPath.split(separator: ":") {
        let candidate = "\(directory)/\(name)"
        if access(candidate, X_OK) == 0 {
            return candidate
        }
    }
    throw HarnessError(
        description: "'\(name)' not found in \(childPath): install the Debian package '\(package)'. "
            + "Integration tests fail rather than skip when a service is missing."
    )
}

/// Reads one line from `fd`, waiting at most `timeout` microseconds in all.
func readLine(_ fd: Int32, timeout: UInt64) -> String? {
    let deadline = monotonicUsec() + timeout
    var bytes: [UInt8] = []
    while monotonicUsec() < deadline {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let remaining = Int32((deadline - min(deadline, monotonicUsec())) / 1_000)
        guard poll(&entry, 1, max(remaining, 1)) > 0 else {
            continue
        }
        var byte: UInt8 = 0
        let count = Glibc.read(fd, &byte, 1)
        if count <= 0 {
            return nil
        }
        if byte == UInt8(ascii: "\n") {
            return String(decoding: bytes, as: UTF8.self)
        }
        bytes.append(byte)
    }
    return nil
}

/// Makes a one-way channel whose ends are close-on-exec from the start, so no child that another
/// test spawns meanwhile inherits them. A socketpair: Glibc (without _GNU_SOURCE) has no pipe2,
/// and pipe + fcntl would leave a window.
func makePipe() throws -> (read: Int32, write: Int32) {
    var fds: [Int32] = [-1, -1]
    guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0 else {
        throw HarnessError(description: "socketpair failed: \(Errno(rawValue: errno))")
    }
    shutdown(fds[0], Int32(SHUT_WR))
    shutdown(fds[1], Int32(SHUT_RD))
    return (fds[0], fds[1])
}

/// A process this harness started. `stop()` signals it by pid and reaps it; it is idempotent.
final class SpawnedProcess {
    let name: String
    let pid: pid_t
    private(set) var exitStatus: Int32?

    /// Starts `executable` with exactly `environment`, stdin from /dev/null, stdout to `stdout`
    /// (a pipe end) or to `stdoutPath`, and stderr to `stderrPath`.
    init(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String],
        stdout: Int32? = nil,
        stdoutPath: String = "/dev/null",
        stderrPath: String = "/dev/null"
    ) throws {
        self.name = executable
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        if let stdout {
            posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        }
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_APPEND, 0o600)

        // The spawning thread may have SIGTERM blocked (signal-exit tests): children must not.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGPIPE, SIGCHLD] {
            sigaddset(&defaults, signal)
        }
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv + envp {
                free(pointer)
            }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard result == 0 else {
            throw HarnessError(description: "posix_spawn \(executable) failed: \(Errno(rawValue: result))")
        }
        self.pid = pid
    }

    deinit {
        self.stop()
    }

    /// Reaps the process if it has exited; returns whether it has.
    @discardableResult
    func poll() -> Bool {
        if self.exitStatus != nil {
            return true
        }
        var status: Int32 = 0
        if waitpid(self.pid, &status, WNOHANG) == self.pid {
            self.exitStatus = status
            return true
        }
        return false
    }

    /// Waits up to `timeout` microseconds for the process to exit and reaps it.
    @discardableResult
    func wait(timeout: UInt64) -> Bool {
        let deadline = monotonicUsec() + timeout
        while !self.poll() {
            if monotonicUsec() >= deadline {
                return false
            }
            usleep(10_000)
        }
        return true
    }

    /// Sends SIGTERM, then SIGKILL after two seconds, and reaps: only this pid, never a name.
    func stop() {
        if self.poll() {
            return
        }
        kill(self.pid, SIGTERM)
        if !self.wait(timeout: 2_000_000) {
            kill(self.pid, SIGKILL)
            self.wait(timeout: 2_000_000)
        }
    }
}

/// A private bus: dbus-daemon with a config of our own, so nothing is ever bus-activated.
struct SessionBus {
    let address: String
    let process: SpawnedProcess
}

/// Xvfb plus dunst owning org.freedesktop.Notifications on a `SessionBus`.
struct NotificationServer {
    let display: String
    let xvfb: SpawnedProcess
    let dunst: SpawnedProcess
    let environment: [String: String]

    /// Runs `dunstctl` with the server's environment and returns its output without whitespace.
    func dunstctl(_ arguments: [String]) throws -> String {
        let executable = try findExecutable("dunstctl", package: "dunst")
        let pipe = try makePipe()
        let process = try SpawnedProcess(
            executable,
            arguments,
            environment: self.environment,
            stdout: pipe.write
        )
        close(pipe.write)
        let output = readAll(pipe.read)
        close(pipe.read)
        process.wait(timeout: 5_000_000)
        return String(output.filter { !$0.isWhitespace })
    }
}

/// Starts services for one test and stops them, newest first, by pid. Reusable by a daemon's
/// integration tests: `let services = try TestServices(); defer { services.stopAll() }`.
final class TestServices {
    let directory: TestDirectory
    private var processes: [SpawnedProcess] = []

    init() throws {
        self.directory = try TestDirectory()
    }

    deinit {
        self.stopAll()
    }

    /// Stops every process this object started, in reverse order.
    func stopAll() {
        for process in self.processes.reversed() {
            process.stop()
        }
        self.processes.removeAll()
    }

    /// Starts `dbus-daemon --nofork --print-address=1 --address=unix:path=<dir>/bus` with a session
    /// config that has no service directories (the stock --session config would let the bus
    /// activate /usr/bin/dunst behind our back), and waits for its address.
    func startSessionBus() throws -> SessionBus {
        let executable = try findExecutable("dbus-daemon", package: "dbus-daemon")
        let config = try self.directory.write(
            "session.conf",
            """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>unix:path=\(self.directory.path)/bus</listen>
              <auth>EXTERNAL</auth>
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>
            """
        )
        let pipe = try makePipe()
        defer { close(pipe.read) }
        let process = try SpawnedProcess(
            executable,
            [
                "--config-file=\(config)", "--nofork", "--print-address=1",
                "--address=unix:path=\(self.directory.path)/bus",
            ],
            environment: ["PATH": childPath, "HOME": self.directory.path],
            stdout: pipe.write,
            stderrPath: "\(self.directory.path)/dbus-daemon.log"
        )
        close(pipe.write)
        self.processes.append(process)
        guard let address = readLine(pipe.read, timeout: 5_000_000), !address.isEmpty else {
            throw HarnessError(
                description: "dbus-daemon printed no address within 5 s: "
                    + self.directory.read("dbus-daemon.log")
            )
        }
        return SessionBus(address: address, process: process)
    }

    /// Starts `Xvfb -screen 0 640x480x24` on a display it picks (-displayfd, so parallel tests do
    /// not collide) and `dunst` on `bus`, then waits up to 5 s for org.freedesktop.Notifications
    /// to have an owner.
    func startNotificationServer(bus: SessionBus) throws -> NotificationServer {
        let xvfbPath = try findExecutable("Xvfb", package: "xvfb")
        let dunstPath = try findExecutable("dunst", package: "dunst")
        let pipe = try makePipe()
        defer { close(pipe.read) }
        let xvfb = try SpawnedProcess(
            xvfbPath,
            ["-displayfd", "1", "-screen", "0", "640x480x24", "-nolisten", "tcp"],
            environment: ["PATH": childPath, "HOME": self.directory.path],
            stdout: pipe.write,
            stderrPath: "\(self.directory.path)/xvfb.log"
        )
        close(pipe.write)
        self.processes.append(xvfb)
        guard let number = readLine(pipe.read, timeout: 10_000_000), Int(number) != nil else {
            throw HarnessError(description: "Xvfb reported no display within 10 s: " + self.directory.read("xvfb.log"))
        }
        let environment = [
            "PATH": childPath, "HOME": self.directory.path, "DISPLAY": ":\(number)",
            "DBUS_SESSION_BUS_ADDRESS": bus.address,
        ]
        let dunst = try SpawnedProcess(
            dunstPath,
            [],
            environment: environment,
            stderrPath: "\(self.directory.path)/dunst.log"
        )
        self.processes.append(dunst)
        try self.waitForOwner(of: Notifications.busName, on: bus, process: dunst, log: "dunst.log")
        return NotificationServer(display: ":\(number)", xvfb: xvfb, dunst: dunst, environment: environment)
    }

    /// Polls GetNameOwner every 50 ms for up to 5 s.
    func waitForOwner(of name: String, on bus: SessionBus, process: SpawnedProcess, log: String) throws {
        let connection = try Bus.open(address: bus.address)
        let deadline = monotonicUsec() + 5_000_000
        while monotonicUsec() < deadline {
            if process.poll() {
                throw HarnessError(description: "\(process.name) exited early: " + self.directory.read(log))
            }
            let call = try connection.newMethodCall(
                destination: "org.freedesktop.DBus",
                path: "/org/freedesktop/DBus",
                interface: "org.freedesktop.DBus",
                member: "GetNameOwner"
            )
            try call.append(name)
            if (try? connection.call(call)) != nil {
                return
            }
            usleep(50_000)
        }
        throw HarnessError(description: "\(name) got no owner within 5 s: " + self.directory.read(log))
    }
}

/// Runs `loop` with a guard timer: returns its exit code, or 99 if `timeout` microseconds pass.
func runLoop(_ loop: EventLoop, timeout: UInt64 = 5_000_000) throws -> Int32 {
    let guardTimer = try loop.addTimer(clock: CLOCK_MONOTONIC, after: timeout, description: "test-timeout") { _ in
        try? loop.exit(code: 99)
    }
    defer { guardTimer.cancel() }
    return try loop.run()
}
