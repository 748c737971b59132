// ServiceManager: sd_notify and the watchdog against a notify socket of our own, set up the way a
// service manager would ($NOTIFY_SOCKET, $WATCHDOG_USEC, $WATCHDOG_PID).

import DaysomeTestSupport
import Glibc
import Testing

@testable import SystemdKit

/// Tests that change the process environment ($NOTIFY_SOCKET, $WATCHDOG_USEC, $JOURNAL_STREAM,
/// $DBUS_SESSION_BUS_ADDRESS) or read it through libsystemd are nested here and run one at a
/// time. Children get an explicit environment, so spawning in parallel never reads `environ`.
@Suite(.serialized) enum EnvironmentTests {}

/// A datagram socket bound at `path`, like the one a service manager listens on.
private final class NotifySocket {
    let fd: Int32

    init(path: String) throws {
        self.fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(self.fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard result == 0 else {
            throw HarnessError("bind \(path) failed: \(Errno(rawValue: errno))")
        }
    }

    deinit {
        close(self.fd)
    }

    /// The datagrams waiting now, without blocking.
    func drain() -> [String] {
        var messages: [String] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(self.fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count <= 0 {
                return messages
            }
            messages.append(String(decoding: buffer[0..<count], as: UTF8.self))
        }
    }
}

extension EnvironmentTests {
    @Suite struct ServiceManagerTests {
        @Test func notifyWithoutManagerReturnsFalse() {
            unsetenv("NOTIFY_SOCKET")
            #expect(!ServiceManager.notify("READY=1"))
        }

        @Test func notifyReachesTheSocket() throws {
            let directory = try TestDirectory()
            let socket = try NotifySocket(path: "\(directory.path)/notify")
            setenv("NOTIFY_SOCKET", "\(directory.path)/notify", 1)
            defer { unsetenv("NOTIFY_SOCKET") }
            #expect(ServiceManager.notify("READY=1\nSTATUS=Scheduling"))
            #expect(ServiceManager.notify("STOPPING=1"))
            #expect(socket.drain() == ["READY=1\nSTATUS=Scheduling", "STOPPING=1"])
        }

        @Test func watchdogIntervalNeedsOurPid() {
            setenv("WATCHDOG_USEC", "200000", 1)
            defer {
                unsetenv("WATCHDOG_USEC")
                unsetenv("WATCHDOG_PID")
            }
            setenv("WATCHDOG_PID", "\(getpid())", 1)
            #expect(ServiceManager.watchdogInterval() == 200_000)
            // Meant for another process (e.g. our parent): not ours.
            setenv("WATCHDOG_PID", "1", 1)
            #expect(ServiceManager.watchdogInterval() == nil)
            unsetenv("WATCHDOG_USEC")
            #expect(ServiceManager.watchdogInterval() == nil)
        }

        @Test func loopSendsWatchdogPings() throws {
            let directory = try TestDirectory()
            let socket = try NotifySocket(path: "\(directory.path)/notify")
            setenv("NOTIFY_SOCKET", "\(directory.path)/notify", 1)
            setenv("WATCHDOG_USEC", "100000", 1)
            setenv("WATCHDOG_PID", "\(getpid())", 1)
            defer {
                unsetenv("NOTIFY_SOCKET")
                unsetenv("WATCHDOG_USEC")
                unsetenv("WATCHDOG_PID")
            }
            let loop = try EventLoop()
            #expect(try loop.setWatchdog(true))
            let stop = try loop.addTimer(clock: CLOCK_MONOTONIC, after: 400_000) { _ in try? loop.exit(code: 0) }
            #expect(try runLoop(loop) == 0)
            #expect(try !loop.setWatchdog(false))
            #expect(socket.drain().filter { $0 == "WATCHDOG=1" }.count >= 2)
            _ = stop
        }
    }

    @Suite struct JournalEnvironmentTests {
        @Test func stderrIsJournalFollowsJournalStream() {
            var info = stat()
            #expect(fstat(STDERR_FILENO, &info) == 0)
            setenv("JOURNAL_STREAM", "\(info.st_dev):\(info.st_ino)", 1)
            #expect(Journal.stderrIsJournal)
            unsetenv("JOURNAL_STREAM")
            #expect(!Journal.stderrIsJournal)
        }
    }
}
