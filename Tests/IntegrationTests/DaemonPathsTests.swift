// How the two programs find a daemon's files, with the real daysomed and daysomectl: the runtime
// directory alone names a daemon (its state directory is read from what it published there).

import DaysomeCore
import DaysomeFiles
import DaysomeTestSupport
import Glibc
import Testing

@Suite("How daysomed and daysomectl find a daemon's files")
struct DaemonPathsTests {
    @Test func theRuntimeDirectoryAloneNamesADaemonHistoryReadsTheStateDirectoryItPublished() async throws {
        let session = try await TestWorld.start([.sessionBus, .notificationServer])
        defer { session.stop() }
        // The world's daemon runs with --state-dir <run>/state, not under $XDG_STATE_HOME.
        try replaceFile(session.household, try farAwayHousehold())
        try await session.startDaemon()
        let lay = try #require(try await session.pending().lay)
        let runtime = ["--runtime-dir", session.runtimeDirectory]
        let text = try await session.ctl(["history"] + runtime)
        #expect(text.status == 0, "\(text)")
        #expect(!text.stdout.contains("No history yet"), "\(text)")
        #expect(text.stdout.contains("laid"), "\(text)")
        let json = try await session.ctlJSON(["history", "--json"] + runtime)
        let events = json["history"]?.arrayValue ?? []
        #expect(
            events.contains {
                $0.objectValue?["event"]?.stringValue == "laid" && $0.objectValue?["lay"]?.int == lay
            }, "\(json)")
        // status and history agree on the daemon they name.
        let status = try await session.ctl(["status"] + runtime)
        #expect(status.stdout.contains("Lay: \(lay),"), "\(status)")
        // An explicit --state-dir still wins.
        let elsewhere = try session.directory.makeDirectory("elsewhere")
        let explicit = try await session.ctl(["history", "--state-dir", elsewhere] + runtime)
        #expect(explicit.stdout == "No history yet.\n", "\(explicit)")
    }
}
