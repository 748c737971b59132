// The runtime directory at its edge, with the real daysomed (wheel backend, a private bus, Xvfb
// and dunst): a tmpfs out of inodes over the runtime directory while the state directory's tmpfs
// is full, so neither lay.json, nor the runtime copy `lay.unsaved.json`, nor any marker file can
// be made when lunch is called; then SIGKILL and a restart inside the grace window. The daemon's
// record of where its calls are kept is written in place in its lock file and needs no inode:
// the restart proves nothing and calls nothing it owed, and says so. The embedded twin is
// EmbeddedTests.NeverTwiceEdgeTests. Run as root (the suite's machines are): a mount that fails
// fails the test.

import DaysomeCore
import DaysomeFiles
import DaysomeTestSupport
import Glibc
import Testing

@Suite("The runtime directory at its edge")
struct RuntimeDirectoryFaultTests {
    /// Waits on one real minute at most: the real wheel timer makes the call, on real tmpfs
    /// mounts, which no virtual clock drives.
    @Test func aRuntimeDirectoryOutOfInodesWhileTheStateDiskIsFullNeverLetsARestartInsideGraceCallTwice()
        async throws
    {
        let session = try await TestWorld.start([.sessionBus, .notificationServer])
        defer { session.stop() }
        let state = try SmallDisk(at: session.stateDirectory, bytes: 256 * 1_024)
        defer { state.unmount() }
        // Room for the daemon's own files (its lock, the queue, the status, the control socket and
        // their temporary files), then filled to the last inode by the test.
        let runtime = try SmallDisk(at: session.runtimeDirectory, bytes: 1 << 20, inodes: 64)
        defer { runtime.unmount() }
        let minute = nextMinute(leaving: 10)
        try replaceFile(session.household, try nextMinutesHousehold(minute))
        try await session.startDaemon()
        try await session.expectQueued(at: minute)
        let planned = try await session.plannedStart(at: minute)
        let recorder = try await BusRecorder.start(
            address: try #require(session.busAddress), log: session.directory.path + "/bus-monitor.log")
        defer { recorder.stop() }
        func calls() -> Int {
            recorder.notifications().filter { $0.appName == "Daysome" && $0.summary == planned.title }.count
        }
        _ = try state.fill()
        let fillers = try runtime.fillInodes()
        guard wallSeconds() < Double(minute) - 1 else {
            throw HarnessError("the disks were full only \(wallSeconds() - Double(minute)) s before the call")
        }

        let shown = try await session.firstShown(after: minute)
        #expect(shown != nil, "nothing shown while both directories refused writes: \(session.daemonStderr)")
        _ = try await poll("the bus monitor to log the call's Notify", timeout: 3) { calls() >= 1 ? true : nil }
        #expect(!FileIO.exists(session.runtimeDirectory + "/lay.unsaved.json"), "the runtime copy was made")
        #expect(!FileIO.exists(session.runtimeDirectory + "/lay.unproven"), "a marker was made")
        try await session.killDaemon()
        // Room again in the runtime directory only, so the harness can read the restart's status:
        // the state directory stays full and lay.json still holds the lay from before the call.
        for filler in fillers { unlink(filler) }
        let restarted = try await session.startDaemon()
        _ = try await poll("the restart to decide what it owed", timeout: 5) { () -> Bool? in
            restarted.stderr.contains("Started:") ? true : nil
        }
        await pause(1.5)
        #expect(calls() == 1, "lunch was called again by the restart inside the grace window")
        #expect(
            restarted.stderr.contains("cannot be proven: never twice"),
            "the start not called again is not named: \(restarted.stderr)")
        print(
            "[RuntimeDirectoryFaultTests] \(fillers.count) inodes filled, call shown \(Int((shown ?? -1) * 1_000)) ms "
                + "after its minute, SIGKILL and a restart inside grace: \(calls()) Notify")
    }
}

extension SmallDisk {
    /// Makes empty files until the file system has no inode left; returns their paths.
    func fillInodes() throws -> [String] {
        var made: [String] = []
        while true {
            let path = self.path + "/inode-filler-\(made.count)"
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard fd >= 0 else {
                guard errno == ENOSPC else {
                    throw HarnessError("Making '\(path)' failed on \(String(cString: strerror(errno))), not ENOSPC")
                }
                return made
            }
            close(fd)
            made.append(path)
        }
    }
}
