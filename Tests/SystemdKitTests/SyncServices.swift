// The synchronous services of the SystemdKit tests: a private dbus-daemon and Xvfb + dunst for
// tests that drive an sd-event loop on their own thread, and a guard for running that loop. The
// process, directory and lookup helpers come from the DaysomeTestSupport library.

import DaysomeTestSupport
import Glibc
import SystemdKit

/// Microseconds on CLOCK_MONOTONIC.
func monotonicUsec() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1_000
}

/// Reads one line from `fd`, blocking the thread, waiting at most `timeout` microseconds in all.
func readLineBlocking(_ fd: Int32, timeout: UInt64) -> String? {
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
        process.wait(seconds: 5)
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
            "session.conf", busConfiguration(socket: "\(self.directory.path)/bus"))
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
        guard let address = readLineBlocking(pipe.read, timeout: 5_000_000), !address.isEmpty else {
            throw HarnessError(
                "dbus-daemon printed no address within 5 s: "
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
        guard let number = readLineBlocking(pipe.read, timeout: 10_000_000), Int(number) != nil else {
            throw HarnessError("Xvfb reported no display within 10 s: " + self.directory.read("xvfb.log"))
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
                throw HarnessError("\(process.name) exited early: " + self.directory.read(log))
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
        throw HarnessError("\(name) got no owner within 5 s: " + self.directory.read(log))
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
