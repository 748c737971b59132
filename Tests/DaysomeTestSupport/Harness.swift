// Harness: spawns the real processes the integration tests need (a private dbus-daemon or a
// `systemd --user` manager, Xvfb, dunst, PulseAudio, the built daysomed and daysomectl) with
// posix_spawn, and stops exactly the pids it started, with every wait asynchronous. Part of the
// DaysomeTestSupport library that every integration target imports. A missing binary
// fails the test with the package to install, in CI (CI=true) and out of it: nothing here skips.

import Glibc

/// A harness failure, with a sentence saying what to fix.
public struct HarnessError: Error, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}

/// The text of an errno value.
public func errnoText(_ code: Int32) -> String {
    String(cString: strerror(code))
}

/// Seconds on CLOCK_MONOTONIC: for measuring how long something took.
public func monotonicSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

/// Seconds on CLOCK_REALTIME: the clock daysomed lays starts on.
public func wallSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

/// How long a test in the parallel phase waits for the daemon to settle where how fast is not what
/// it asserts: beside eighty parallel tests one fsync waited 2.3 s behind other writers' journal
/// commits, and a return that writes the state with fsync once missed a 2 s wait (CI, stop 37).
/// The limits an issue names in seconds are asserted in the latency phase, where nothing else runs.
public let settleBesideParallelTests = 10.0

/// Sleeps without holding a thread of the cooperative pool.
public func pause(_ seconds: Double) async {
    guard seconds > 0 else { return }
    try? await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
}

/// Sleeps until the wall clock reads `wall` (seconds since the epoch).
public func pause(untilWall wall: Double) async {
    while wallSeconds() < wall {
        await pause(min(0.5, wall - wallSeconds()))
    }
}

/// Polls `probe` every `interval` seconds until it returns a value, for at most `timeout`
/// seconds; a timeout throws an error naming `what` and the last value seen.
public func poll<T>(
    _ what: String, timeout: Double, interval: Double = 0.1, _ probe: () async throws -> T?
) async throws -> T {
    let deadline = monotonicSeconds() + timeout
    while true {
        if let value = try await probe() { return value }
        if monotonicSeconds() >= deadline {
            throw HarnessError("Timed out after \(timeout) s waiting for \(what)")
        }
        await pause(interval)
    }
}

/// The PATH children get, and where service binaries are looked up.
public let childPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

/// Finds `name` on `childPath`, or fails with the Debian package that provides it.
public func findExecutable(_ name: String, package: String) throws -> String {
    for directory in childPath.split(separator: ":") {
        let candidate = "\(directory)/\(name)"
        if access(candidate, X_OK) == 0 {
            return candidate
        }
    }
    let ci = getenv("CI").map { String(cString: $0) } == "true" ? " (CI=true)" : ""
    throw HarnessError(
        "'\(name)' not found in \(childPath)\(ci): install the Debian package '\(package)'. "
            + "Integration tests fail rather than skip when a service is missing."
    )
}

/// Reads one line from `fd`, waiting at most `timeout` seconds in all, without blocking a thread.
public func readLine(_ fd: Int32, timeout: Double) async -> String? {
    let deadline = monotonicSeconds() + timeout
    var bytes: [UInt8] = []
    while monotonicSeconds() < deadline {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard Glibc.poll(&entry, 1, 0) > 0 else {
            await pause(0.01)
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
/// test spawns meanwhile inherits them.
public func makePipe() throws -> (read: Int32, write: Int32) {
    var fds: [Int32] = [-1, -1]
    guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0 else {
        throw HarnessError("socketpair failed: \(errnoText(errno))")
    }
    shutdown(fds[0], Int32(SHUT_WR))
    shutdown(fds[1], Int32(SHUT_RD))
    return (fds[0], fds[1])
}

/// A process this harness started. `stop()` signals it by pid and reaps it; it is idempotent.
public final class SpawnedProcess {
    public let name: String
    public let pid: pid_t
    public private(set) var waitStatus: Int32?

    /// Starts `executable` with exactly `environment`, stdin from /dev/null, stdout to `stdout`
    /// (a pipe end) or to `stdoutPath`, and stderr to `stderrPath`.
    public init(
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

        // The spawning thread may have signals blocked: children must not.
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
            throw HarnessError("posix_spawn \(executable) failed: \(errnoText(result))")
        }
        self.pid = pid
    }

    deinit {
        self.stop()
    }

    /// The exit code if the process exited normally (nil while it runs or when a signal ended it).
    public var exitCode: Int32? {
        guard let status = self.waitStatus, status & 0x7f == 0 else { return nil }
        return (status >> 8) & 0xff
    }

    /// The signal that ended the process, if one did.
    public var terminatingSignal: Int32? {
        guard let status = self.waitStatus, status & 0x7f != 0, status & 0x7f != 0x7f else { return nil }
        return status & 0x7f
    }

    /// Reaps the process if it has exited; returns whether it has.
    @discardableResult
    public func poll() -> Bool {
        if self.waitStatus != nil {
            return true
        }
        var status: Int32 = 0
        if waitpid(self.pid, &status, WNOHANG) == self.pid {
            self.waitStatus = status
            return true
        }
        return false
    }

    /// Waits up to `timeout` seconds for the process to exit and reaps it, without blocking a thread.
    @discardableResult
    public func exit(within timeout: Double, interval: Double = 0.002) async -> Bool {
        let deadline = monotonicSeconds() + timeout
        while !self.poll() {
            if monotonicSeconds() >= deadline {
                return false
            }
            await pause(interval)
        }
        return true
    }

    /// Sends `signal` to this pid (and only this pid), unless it has already been reaped.
    public func send(_ signal: Int32) {
        if !self.poll() {
            kill(self.pid, signal)
        }
    }

    /// Sends SIGTERM, then SIGKILL after `deadline` seconds, and reaps: only this pid, never a name.
    public func stop(deadline: Double = 2) {
        if self.poll() {
            return
        }
        kill(self.pid, SIGTERM)
        if !self.wait(seconds: deadline) {
            kill(self.pid, SIGKILL)
            self.wait(seconds: 2)
        }
    }

    /// Waits up to `timeout` seconds for the process to exit and reaps it, blocking the thread:
    /// for synchronous tests and for `stop`.
    @discardableResult
    public func wait(seconds timeout: Double) -> Bool {
        let deadline = monotonicSeconds() + timeout
        while !self.poll() {
            if monotonicSeconds() >= deadline {
                return false
            }
            usleep(5_000)
        }
        return true
    }
}

/// What a short-lived tool printed and how it exited.
public struct ToolResult: CustomStringConvertible {
    public let command: String
    /// The exit code, or nil when a signal ended the tool.
    public let status: Int32?
    public let stdout: String
    public let stderr: String

    public var description: String {
        "`\(self.command)` exited \(self.status.map(String.init) ?? "on a signal"); stdout: \(self.stdout); "
            + "stderr: \(self.stderr)"
    }
}

/// The pids whose parent is `pid` (from /proc/*/stat), with their state letter.
public func children(of pid: pid_t) -> [(pid: pid_t, state: String)] {
    guard let proc = opendir("/proc") else { return [] }
    defer { closedir(proc) }
    var found: [(pid: pid_t, state: String)] = []
    while let entry = readdir(proc) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
            String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
        }
        guard let child = pid_t(name) else { continue }
        let stat = readFile("/proc/\(child)/stat")
        // `pid (comm) state ppid …`: comm may hold spaces and parentheses, so read after the last ')'.
        guard let close = stat.lastIndex(of: ")") else { continue }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        if fields.count > 1, pid_t(fields[1]) == pid {
            found.append((child, String(fields[0])))
        }
    }
    return found
}

/// The pids whose parent is `pid`.
public func childPids(of pid: pid_t) -> [pid_t] {
    children(of: pid).map(\.pid)
}
