// A state directory that cannot be created, on the embedded daemon: the daemon lays and calls
// on, status names the directory and when it tries again, each retry runs at the time status
// showed (a monotonic timer the manual loop fires at its own microsecond), and the first one that
// succeeds brings the files up to date. Full and read-only disks, fsync and power cuts stay in
// StateDirectoryFaultTests and CrashAndPowerCutTests: only a real file system shows them.

import DaysomeCore
import DaysomeDaemon
import DaysomeFiles
import DaysomeWorld
import Glibc
import Testing

@Suite("The state directory, on the embedded daemon")
struct StateDirectoryTests {
    /// The lay number lay.json holds, or nil when it holds none.
    static func layNumber(_ tablet: EmbeddedTablet) throws -> UInt64? {
        let json = try JSONParser.parse(FileIO.read(tablet.paths.stateDirectory + "/lay.json", limit: 1 << 20))
        return try PersistedState(decoding: json).lay?.number
    }

    /// A tablet whose state directory's path holds a regular file: mkdir fails there.
    static func blocked(_ name: String) throws -> EmbeddedTablet {
        let tablet = try tablet(name, at: "2026-06-01T10:00:00Z", start: false)
        try FileIO.writeAtomically(tablet.paths.stateDirectory, "not a directory\n")
        try tablet.startDaemon()
        return tablet
    }

    @Test func aStateDirectoryThatCannotBeCreatedIsReportedAndTheDaemonRunsOnAndCreatesItLater() throws {
        let tablet = try Self.blocked("no-state-dir")
        defer { tablet.remove() }
        let state = tablet.paths.stateDirectory
        let lay = try #require(try tablet.queue().lay, "nothing laid without a state directory")
        let errors = try tablet.status().daemon?.stateWriteErrors ?? []
        #expect(errors.first?.file == state, "\(errors)")
        #expect(errors.first?.error.contains("Not a directory") == true, "\(errors)")
        let text = try tablet.statusText()
        #expect(text.contains("State not saved: '\(state)': Failed to create directory"), "\(text)")
        #expect(tablet.exitCode == nil)

        unlink(state)
        tablet.advance(seconds: 70)
        #expect(try tablet.status().daemon?.stateWriteErrors?.isEmpty == true, "the state directory was not created")
        var info = stat()
        #expect(stat(state, &info) == 0 && info.st_mode & 0o777 == 0o700, "state directory mode \(info.st_mode)")
        #expect(try Self.layNumber(tablet) == lay)
        #expect(tablet.events(.laid).contains { $0.lay == lay })
    }

    @Test func theNextAttemptStatusShowsIsWhenTheRetryRunsAlsoAfterAWriteFailedBetweenRetries() throws {
        let tablet = try Self.blocked("next-attempt")
        defer { tablet.remove() }
        let state = tablet.paths.stateDirectory
        func error() throws -> StatusSnapshot.StateWriteError? {
            try tablet.status().daemon?.stateWriteErrors?.first { $0.file == state }
        }
        // Retries after 1, 2 and 4 s: then one 8 s away is armed.
        tablet.advance(seconds: 7)
        let armed = try #require(try error()?.nextAttempt)
        #expect(armed.seconds - tablet.now.seconds == 8, "\(armed) at \(tablet.now)")
        tablet.advance(seconds: 3)
        // A return writes lay.json and the history: both fail between two retries.
        try tablet.writeDisplay("foreground")
        let shown = try #require(try error())
        let next = try #require(shown.nextAttempt)
        let text = try tablet.statusText()
        #expect(text.contains("trying again at \(next.rfc3339)"), "\(text)")
        // Not a second early, and at the time shown.
        tablet.advance(to: Instant(seconds: next.seconds - 1))
        #expect(try error()?.attempts == shown.attempts, "the retry ran before the time shown, \(next.rfc3339)")
        tablet.advance(to: next)
        #expect(
            (try error()?.attempts ?? 0) > shown.attempts, "the retry did not run at the time shown, \(next.rfc3339)")
    }

    /// Moved from the real-process suite (StateDirectoryFaultTests): lunch is called while the
    /// state disk is full, then the daemon is killed and started again twice inside the grace
    /// window, the disk still full, then freed. Lunch is called once, history says delivered
    /// once, and the runtime copy goes once lay.json holds its state. The real full disk stays in
    /// StateDirectoryFaultTests (its other tests) and the power cuts.
    @Test func aCallMadeWhileTheDiskWasFullIsNeverCalledAgainByARestartInsideTheGraceWindow() throws {
        let tablet = try tablet("full-disk-restarts", at: "2026-06-01T11:59:00Z")
        defer { tablet.remove() }
        tablet.failStateDisk(ENOSPC)
        tablet.advance(to: at("2026-06-01T12:00:05Z"))
        #expect(tablet.server.notified.count == 1)
        let state = tablet.paths.stateDirectory
        #expect(try tablet.status().daemon?.stateWriteErrors?.contains { $0.file == state + "/lay.json" } == true)
        tablet.killDaemon()
        try tablet.startDaemon()
        tablet.advance(seconds: 2)
        #expect(tablet.server.notified.count == 1, "lunch was called again by a restart while the disk was full")
        tablet.killDaemon()
        tablet.failStateDisk(nil)
        try tablet.startDaemon()
        tablet.advance(seconds: 70)
        #expect(tablet.server.notified.count == 1, "lunch was called again by a restart once the disk had room")
        let delivered = tablet.events(.delivered).filter { $0.at == at("2026-06-01T12:00:00Z") }
        #expect(delivered.count == 1, "\(tablet.history())")
        #expect(
            !FileIO.exists(tablet.paths.runtimeDirectory + "/lay.unsaved.json"),
            "the runtime copy outlived lay.json's catch-up")
    }
}
