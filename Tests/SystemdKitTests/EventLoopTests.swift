// EventLoop: every kind of source on a real sd-event loop, each run under a guard timer.

import DaysomeTestSupport
import Glibc
import Testing

@testable import SystemdKit

@Suite struct EventLoopTests {
    @Test func realtimeTimerFiresOnceAtItsTime() throws {
        let loop = try EventLoop()
        let target = loop.now(CLOCK_REALTIME) + 50_000
        var firedAt: [UInt64] = []
        let timer = try loop.addTimer(clock: CLOCK_REALTIME, at: target, description: "wall") { _ in
            firedAt.append(loop.now(CLOCK_REALTIME))
        }
        let stop = try loop.addTimer(clock: CLOCK_MONOTONIC, after: 300_000) { _ in try? loop.exit(code: 0) }
        #expect(try runLoop(loop) == 0)
        #expect(firedAt.count == 1)
        #expect(firedAt.allSatisfy { $0 >= target && $0 < target + 200_000 })
        #expect(try timer.enabled == .off)
        #expect(try timer.time == target)
        _ = stop
    }

    @Test func timerRearmsInPlace() throws {
        let loop = try EventLoop()
        var times: [UInt64] = []
        let timer = try loop.addTimer(clock: CLOCK_REALTIME, after: 10_000) { source in
            times.append(loop.now(CLOCK_REALTIME))
            if times.count == 3 {
                try? loop.exit(code: 0)
                return
            }
            // The same source, armed again: set_time + set_enabled(ONESHOT).
            try? source.setTime(loop.now(CLOCK_REALTIME) + 20_000)
            try? source.setEnabled(.oneshot)
        }
        #expect(try runLoop(loop) == 0)
        #expect(times.count == 3)
        #expect(zip(times, times.dropFirst()).allSatisfy { $1 >= $0 + 20_000 })
        #expect(try timer.enabled == .off)
    }

    @Test(arguments: [CLOCK_MONOTONIC, CLOCK_BOOTTIME])
    func relativeTimerFiresOnOtherClocks(clock: clockid_t) throws {
        let loop = try EventLoop()
        let start = loop.now(clock)
        let timer = try loop.addTimer(clock: clock, after: 20_000) { _ in try? loop.exit(code: 5) }
        #expect(try runLoop(loop) == 5)
        #expect(loop.now(clock) >= start + 20_000)
        _ = timer
    }

    @Test func deferSourceRuns() throws {
        let loop = try EventLoop()
        var ran = 0
        let source = try loop.addDefer(description: "reload") { _ in
            ran += 1
            try? loop.exit(code: 0)
        }
        #expect(try runLoop(loop) == 0)
        #expect(ran == 1)
        #expect(try source.sourceDescription == "reload")
    }

    @Test func inotifySeesRenameIntoDirectory() throws {
        let directory = try TestDirectory()
        let loop = try EventLoop()
        var events: [InotifyEvent] = []
        let watch = try loop.addInotify(path: directory.path, mask: [.closeWrite, .movedTo, .delete]) { _, event in
            events.append(event)
            if event.mask.contains(.movedTo) {
                try? loop.exit(code: 0)
            }
        }
        // As an editor saves: write a temporary file, then rename it over the real name.
        let kick = try loop.addDefer { _ in
            let temporary = try? directory.write("household.json.tmp", "{}")
            rename(temporary ?? "", "\(directory.path)/household.json")
        }
        #expect(try runLoop(loop) == 0)
        #expect(events.contains(InotifyEvent(mask: .closeWrite, name: "household.json.tmp")))
        #expect(events.last == InotifyEvent(mask: .movedTo, name: "household.json"))
        _ = (watch, kick)
    }

    /// What the daemon's watches rely on: once the kernel's queue is full, the changes that follow
    /// are dropped, and sd-event hands each source of the instance one event with no name and the
    /// IN_Q_OVERFLOW bit, also a source on another directory whose own events were never lost.
    @Test func aFullInotifyQueueHandsEverySourceANamelessOverflow() throws {
        let directory = try TestDirectory()
        let quiet = try directory.makeDirectory("quiet")
        let busy = try directory.makeDirectory("busy")
        let loop = try EventLoop()
        var busyEvents: [InotifyEvent] = []
        var quietEvents: [InotifyEvent] = []
        let busyWatch = try loop.addInotify(path: busy, mask: [.create, .delete]) { _, event in
            busyEvents.append(event)
        }
        let quietWatch = try loop.addInotify(path: quiet, mask: [.create]) { _, event in quietEvents.append(event) }
        // Two events a file; the queue holds max_queued_events. The loop does not run meanwhile.
        let limit = Int(readFile("/proc/sys/fs/inotify/max_queued_events").split(separator: "\n").first ?? "") ?? 16_384
        for index in 0..<(limit / 2 + 100) {
            let path = "\(busy)/f\(index)"
            close(open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0o600))
            unlink(path)
        }
        let stop = try loop.addTimer(clock: CLOCK_MONOTONIC, after: 200_000) { _ in try? loop.exit(code: 0) }
        #expect(try runLoop(loop) == 0)
        let overflow = InotifyEvent(mask: .queueOverflow, name: nil)
        #expect(
            busyEvents.last == overflow, "\(busyEvents.count) events, the last \(String(describing: busyEvents.last))")
        #expect(busyEvents.count <= limit + 1)
        #expect(quietEvents == [overflow])
        _ = (busyWatch, quietWatch, stop)
    }

    @Test func ioSourceSeesPipeData() throws {
        var fds: [Int32] = [-1, -1]
        #expect(pipe(&fds) == 0)
        let pipe = (read: fds[0], write: fds[1])
        defer {
            close(pipe.read)
            close(pipe.write)
        }
        let loop = try EventLoop()
        var received: [UInt8] = []
        var seen: IOEvents = []
        let io = try loop.addIO(fd: pipe.read, events: .readable, description: "pipe") { _, revents in
            seen = revents
            var byte: UInt8 = 0
            if read(pipe.read, &byte, 1) == 1 {
                received.append(byte)
            }
            try? loop.exit(code: 0)
        }
        let writer = try loop.addDefer { _ in
            var byte = UInt8(ascii: "x")
            _ = write(pipe.write, &byte, 1)
        }
        #expect(try runLoop(loop) == 0)
        #expect(received == [UInt8(ascii: "x")])
        #expect(seen.contains(.readable))
        _ = (io, writer)
    }

    @Test func pidfdExitOfSpawnedChild() throws {
        let sleep = try SpawnedProcess(try findExecutable("sleep", package: "coreutils"), ["0.2"], environment: [:])
        let pidfd = try Pidfd.open(pid: sleep.pid)
        let loop = try EventLoop()
        var exited = false
        let watch = try loop.addPidfdExit(pidfd.rawValue, description: "sleep") { _ in
            exited = true
            try? loop.exit(code: 0)
        }
        #expect(try runLoop(loop) == 0)
        #expect(exited)
        #expect(try watch.enabled == .off)
        #expect(sleep.wait(seconds: 1))
    }

    @Test func pidfdExitOfProcessThatIsNotOurChild() throws {
        // sh starts sleep in the background, prints its pid and exits: sleep is reparented.
        let pipe = try makePipe()
        let shell = try SpawnedProcess("/bin/sh", ["-c", "sleep 0.3 & echo $!"], environment: [:], stdout: pipe.write)
        close(pipe.write)
        let line = readLineBlocking(pipe.read, timeout: 5_000_000)
        close(pipe.read)
        #expect(shell.wait(seconds: 5))
        let pid = try #require(line.flatMap { pid_t($0) })
        var status: Int32 = 0
        #expect(waitpid(pid, &status, WNOHANG) == -1 && errno == ECHILD, "sleep must not be our child")

        let pidfd = try Pidfd.open(pid: pid)
        let loop = try EventLoop()
        var exited = false
        let watch = try loop.addPidfdExit(pidfd.rawValue) { _ in
            exited = true
            try? loop.exit(code: 0)
        }
        #expect(try runLoop(loop) == 0)
        #expect(exited)
        #expect(pidfd.hasExited)
        _ = watch
    }

    @Test func signalExitEndsRunWithZero() throws {
        let loop = try EventLoop()
        try loop.enableSignalExit()
        // raise() targets this thread, where sd-event has blocked SIGTERM for its signalfd.
        let kick = try loop.addDefer { _ in
            raise(SIGTERM)
        }
        #expect(try runLoop(loop) == 0)
        _ = kick
    }

    @Test func exitCodeIsReturnedByRun() throws {
        let loop = try EventLoop()
        let source = try loop.addDefer { _ in try? loop.exit(code: 42) }
        #expect(try loop.run() == 42)
        _ = source
    }

    @Test func watchdogIsOffWithoutManager() throws {
        let loop = try EventLoop()
        // No $WATCHDOG_USEC in the test environment (see ServiceManagerTests for the positive case).
        #expect(try loop.setWatchdog(true) == (ServiceManager.watchdogInterval() != nil))
    }
}
