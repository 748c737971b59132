// Faults under the state directory, with the real daysomed (wheel backend, a private bus, Xvfb
// and dunst): a file system that fills up or turns read-only (a small tmpfs this test mounts over
// the state directory, and unmounts); a state directory that cannot be created is on the embedded
// daemon (EmbeddedTests.StateDirectoryTests). The daemon keeps calling, `status` names the file
// and the error, and the first write that succeeds brings the files up to date. Run as root (the suite's machines are): a mount that fails fails the test.

import DaysomeCore
import DaysomeFiles
import DaysomeTestSupport
import Glibc
import Testing

@Suite("Faults under the state directory", .serialized)
struct StateDirectoryFaultTests {
    // real-process twin of EmbeddedTests.StateDirectoryTests.aStateDirectoryThatCannotBeCreatedIsReportedAndTheDaemonRunsOnAndCreatesItLater
    /// A full disk, then, once space was freed and the files caught up, the same disk read-only
    /// (EROFS for every write, as a disk the kernel remounted after an error is) across the next
    /// call and a power cut inside its grace window: the call the lost runtime copy told of is never
    /// made again. Waits on two real minutes: the real wheel timer makes each call.
    @Test
    func aFullDiskNeverSilencesLunchLayJsonCatchesUpOnceSpaceIsFreedAndAReadOnlyOneNeverCallsItTwiceAfterAPowerCut()
        async throws
    {
        let session = try await TestWorld.start([.sessionBus, .notificationServer])
        defer { session.stop() }
        let state = session.stateDirectory
        let disk = try SmallDisk(at: state, bytes: 256 * 1_024)
        defer { disk.unmount() }
        let minute = nextMinute(leaving: 20)
        try replaceFile(session.household, try nextMinutesHousehold(minute))
        try await session.startDaemon()
        try await session.expectQueued(at: minute)
        let firstLay = try #require(try await session.pending().lay)

        // The history's last block keeps 10 bytes free: the next line's append is cut short there.
        try padToTenBytesShortOfABlock(state + "/history.jsonl", lay: firstLay)
        let filler = try disk.fill()
        // A return and an away: a clear and a new lay, each a write of lay.json and the history.
        try await session.signal("foreground", awaitSeen: true)
        try await session.signal("away", awaitSeen: true)
        try await session.expectQueued(at: minute)
        let lay = try #require(try await session.pending().lay)
        #expect(lay > firstLay)
        let failing = try await poll("status to name the files it cannot write", timeout: 5) { () -> [String]? in
            let errors = try await session.status().snapshot.daemon?.stateWriteErrors ?? []
            let files = errors.map(\.file)
            return files.contains(state + "/lay.json") && files.contains(state + "/history.jsonl") ? files : nil
        }
        let errors = try await session.status().snapshot.daemon?.stateWriteErrors ?? []
        for error in errors {
            #expect(error.error.contains("No space left on device"), "\(error)")
            #expect(error.nextAttempt != nil, "\(error)")
        }
        let text = try await session.ctl(["status"] + session.daemonPaths)
        #expect(text.stdout.contains("State not saved: '\(state)/lay.json': Failed to"), "\(text)")
        #expect(text.stdout.contains("No space left on device"), "\(text)")
        for line in text.stdout.split(separator: "\n") where line.hasPrefix("State not saved") {
            print("[StateDirectoryFaultTests] status says: \(line)")
        }
        #expect(try layNumber(in: state) == firstLay, "lay.json should still hold the lay of before the disk filled")
        try expectWholeLines(state + "/history.jsonl")

        // Lunch is called while nothing can be written.
        let shown = try await session.firstShown(after: minute)
        #expect(shown != nil, "nothing shown while the disk was full: \(session.daemonStderr)")
        try expectWholeLines(state + "/history.jsonl")
        let daemon = try #require(session.daemon)
        #expect(!daemon.poll(), "daysomed exited on a full disk: \(session.daemonStderr)")

        unlink(filler)
        let freed = monotonicSeconds()
        _ = try await poll("status to clear once space was freed", timeout: 70, interval: 0.2) { () -> Bool? in
            try await session.status().snapshot.daemon?.stateWriteErrors?.isEmpty == true ? true : nil
        }
        let caughtUp = monotonicSeconds() - freed
        print(
            "[StateDirectoryFaultTests] full disk: \(failing) named in status, "
                + "call shown \(Int((shown ?? -1) * 1_000)) ms after its minute, caught up \(caughtUp) s after space was freed"
        )
        #expect(try layNumber(in: state) == lay, "lay.json did not catch up with the lay in force")
        try expectWholeLines(state + "/history.jsonl")
        let history = try await session.history()
        #expect(history.contains { $0.event == "cleared" && $0.lay == firstLay }, "\(history)")
        #expect(history.contains { $0.event == "laid" && $0.lay == lay }, "\(history)")
        #expect(
            history.contains { $0.event == "delivered" && $0.at == rfc3339(minute) },
            "the call's history line was not written once space was freed: \(history)")
        #expect(!(try await session.ctl(["status"] + session.daemonPaths).stdout.contains("State not saved")))

        // The next call, laid and saved; then the disk turns read-only, the call is made, and the
        // power goes: the runtime directory's copy of the call goes with it, and lay.json still
        // holds the lay as it was before the call. Lunch's card (and the drink's, had its minute
        // come) is closed once the household no longer plans them: the next card shown must be the
        // next call's.
        let next = nextMinute(leaving: 20)
        let recorder = try await BusRecorder.start(
            address: try #require(session.busAddress), log: session.directory.path + "/bus-monitor.log")
        defer { recorder.stop() }
        try replaceFile(session.household, try nextMinutesHousehold(next))
        try await session.expectQueued(at: next)
        #expect(try await session.dunstctl(["close-all"]).status == 0)
        let planned = try await session.plannedStart(at: next)
        _ = try await poll("lay.json to hold the lay of the next call", timeout: 5) { () -> Bool? in
            try layNumber(in: state) == (try await session.pending().lay) ? true : nil
        }
        try disk.remountReadOnly()
        guard wallSeconds() < Double(next) - 1 else {
            throw HarnessError("the disk turned read-only only \(wallSeconds() - Double(next)) s before the call")
        }
        #expect(try await session.displayedCount() == 0, "a card is shown before the next call's minute")
        func calls() -> Int {
            recorder.notifications().filter { $0.appName == "Daysome" && $0.summary == planned.title }.count
        }
        let shownReadOnly = try await session.firstShown(after: next)
        #expect(shownReadOnly != nil, "nothing shown while the disk was read-only: \(session.daemonStderr)")
        #expect((shownReadOnly ?? 0) >= 0, "shown \(shownReadOnly ?? 0) s before its minute")
        // The bus monitor logs the Notify a moment after dunst shows it.
        _ = try await poll("the bus monitor to log the call's Notify", timeout: 3) { calls() >= 1 ? true : nil }
        #expect(calls() == 1)
        try await session.killDaemon()
        #expect(try await session.run("/bin/rm", ["-rf", session.runtimeDirectory]).status == 0)
        let rebooted = try await session.startDaemon()
        await pause(1.5)
        #expect(calls() == 1, "lunch was called again after a power cut on a read-only disk")
        #expect(rebooted.stderr.contains("never twice"), "the drop is not told: \(rebooted.stderr)")
        #expect(try await session.pending().lay != nil, "the restart laid nothing")
        print("[StateDirectoryFaultTests] read-only disk and a power cut inside grace: \(calls()) call")
    }
}

/// A tmpfs of `bytes` mounted over a directory for one test, unmounted by `unmount`.
struct SmallDisk {
    let path: String

    /// - Parameter inodes: at most this many files and directories (the root counts), nil for tmpfs's default.
    init(at path: String, bytes: Int, inodes: Int? = nil) throws {
        self.path = path
        if mkdir(path, 0o700) != 0 && errno != EEXIST {
            throw HarnessError("Failed to create '\(path)': \(String(cString: strerror(errno)))")
        }
        let result = "size=\(bytes),mode=0700\(inodes.map { ",nr_inodes=\($0)" } ?? "")".withCString { options in
            mount("daysome-test", path, "tmpfs", 0, options)
        }
        guard result == 0 else {
            throw HarnessError(
                "Failed to mount a tmpfs on '\(path)': \(String(cString: strerror(errno))) (the test runs as root)")
        }
    }

    /// Fills the file system to the last block; returns the filler's path.
    func fill() throws -> String {
        let filler = self.path + "/filler"
        let fd = open(filler, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw HarnessError("Failed to create '\(filler)'") }
        defer { close(fd) }
        let block = [UInt8](repeating: 0x2E, count: 4_096)
        while block.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) > 0 {}
        guard errno == ENOSPC else {
            throw HarnessError("Filling '\(filler)' stopped on \(String(cString: strerror(errno))), not ENOSPC")
        }
        return filler
    }

    /// Makes the file system read-only (EROFS for every write), as a disk the kernel remounted
    /// after an error is.
    func remountReadOnly() throws {
        guard mount("daysome-test", self.path, "tmpfs", UInt(MS_REMOUNT | MS_RDONLY), nil) == 0 else {
            throw HarnessError("Failed to remount '\(self.path)' read-only: \(String(cString: strerror(errno)))")
        }
    }

    func unmount() {
        _ = umount2(self.path, Int32(MNT_DETACH))
    }
}

/// The lay number lay.json holds, or nil when it holds none.
func layNumber(in state: String) throws -> Int? {
    let json = try JSONParser.parse(readFile(state + "/lay.json"))
    return try PersistedState(decoding: json).lay.map { Int($0.number) }
}

/// Appends one valid line (a `dropped` record, its reason padding) to the history so that the
/// file ends 10 bytes short of a 4 KiB block: tmpfs has room for 10 more bytes and no more.
func padToTenBytesShortOfABlock(_ path: String, lay: Int) throws {
    var info = stat()
    guard stat(path, &info) == 0 else { throw HarnessError("no history at '\(path)'") }
    let bare =
        HistoryRecord(
            time: Instant(seconds: 0), event: .dropped, lay: UInt64(lay), reason: ""
        ).json.serialized().utf8.count + 1
    var padding = (4_086 - Int(info.st_size) % 4_096 - bare + 2 * 4_096) % 4_096
    if padding < 27 { padding += 4_096 }
    let line =
        HistoryRecord(
            time: Instant(seconds: 0), event: .dropped, lay: UInt64(lay),
            reason: "padding written by the test" + String(repeating: ".", count: padding - 27)
        ).json.serialized() + "\n"
    let fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
    guard fd >= 0 else { throw HarnessError("Failed to open '\(path)'") }
    defer { close(fd) }
    let written = line.withCString { write(fd, $0, strlen($0)) }
    guard written == line.utf8.count, stat(path, &info) == 0, Int(info.st_size) % 4_096 == 4_086 else {
        throw HarnessError("the history was not padded to 10 bytes short of a block (size \(info.st_size))")
    }
}

/// Every line of the history is whole and readable: none left half written by a full disk.
func expectWholeLines(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let text = readFile(path)
    #expect(
        text.isEmpty || text.hasSuffix("\n"), "a half-written line ends the history", sourceLocation: sourceLocation)
    let (records, unreadable) = HistoryFile.readCounting(path: path)
    #expect(unreadable == 0, "\(unreadable) unreadable line(s) in the history", sourceLocation: sourceLocation)
    #expect(!records.isEmpty, sourceLocation: sourceLocation)
}
