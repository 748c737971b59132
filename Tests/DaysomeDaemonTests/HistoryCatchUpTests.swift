// A daemon stopped between lay.json and its history line leaves the history behind; the next
// start catches it up. A call kept with the server's id was taken (history says delivered, and
// the call stays to be closed); one kept without an id never had a server's answer (dropped).
// Those lines are written as every history line is: kept and retried while the disk refuses them.

import DaysomeCore
import DaysomeFiles
import Glibc
import Testing

@testable import DaysomeDaemon

@Suite struct HistoryCatchUpTests {
    @Test func aCallAServerTookIsDeliveredInHistoryAndKeptOneWithoutAnAnswerIsDropped() {
        let lunch = DeliveryKey(lay: 3, at: Instant(seconds: 1_796_000_000))
        let tea = DeliveryKey(lay: 3, at: Instant(seconds: 1_796_003_600))
        let state = PersistedState(
            layCounter: 3,
            delivered: [
                DeliveredCall(
                    key: lunch, itemIds: ["lunch"], expiresAt: lunch.at.adding(seconds: 2_700), notificationId: 7,
                    server: "boot bus :1.4"),
                DeliveredCall(key: tea, itemIds: ["tea"], expiresAt: tea.at.adding(seconds: 900)),
            ])
        let (kept, added) = Publisher.catchUpHistory(state, history: [], now: tea.at.adding(seconds: 5))
        #expect(added.map(\.event) == [.delivered, .dropped])
        #expect(added.first?.at == lunch.at)
        #expect(added.last?.reason?.contains("answer") == true)
        #expect(kept.delivered.map(\.key) == [lunch], "the taken call must stay, to be closed on her return")
    }

    /// The lines caught up at start-up are history like any other: a state directory that refuses
    /// them (a full disk) is a state in `status`, and they are written by the retry, never lost.
    @Test func historyCaughtUpAtStartUpThatCannotBeWrittenIsShownInStatusAndWrittenOnceItCan() throws {
        let scratch =
            "/" + #filePath.split(separator: "/").dropLast(3).joined(separator: "/")
            + "/.testrun/catchup-\(getpid())"
        defer { _ = system("rm -rf '\(scratch)'") }
        let arguments = [
            "--household", scratch + "/household.json", "--display-state", scratch + "/display",
            "--runtime-dir", scratch + "/run", "--state-dir", scratch + "/state", "--notifier", "log",
        ]
        guard case .run(let options) = try DaemonOptions.parse(arguments, environment: ["HOME": scratch]) else {
            throw SeamTestError("the options did not parse to a run")
        }
        let paths = options.paths
        try FileIO.makeDirectories(paths.stateDirectory, mode: 0o700)
        // A call kept without the server's answer: the next start owes history a `dropped` line.
        let tea = DeliveryKey(lay: 3, at: Instant(seconds: 1_796_003_600))
        let state = PersistedState(
            layCounter: 3,
            delivered: [DeliveredCall(key: tea, itemIds: ["tea"], expiresAt: tea.at.adding(seconds: 900))])
        try Publisher(paths: paths).persist(state)
        // The history cannot be appended to, as on a full disk: a directory stands in its place.
        #expect(mkdir(paths.historyFile, 0o700) == 0)

        let clock = SteppedClock(tea.at.adding(seconds: 60))
        let manager = try Manager(
            options: options, environment: ["HOME": scratch],
            peers: productionPeers(options, environment: ["HOME": scratch], clock: clock))
        let errors = manager.statusSnapshot().daemon?.stateWriteErrors ?? []
        #expect(errors.map(\.file) == [paths.historyFile], "\(errors)")
        #expect(manager.machine.persisted.delivered.isEmpty, "the unanswered call is dropped, not kept")

        // Space again: the retry timer's turn writes the line the start-up could not.
        #expect(rmdir(paths.historyFile) == 0)
        clock.now = clock.now.adding(seconds: 1)
        manager.retryStateWrites()
        let history = HistoryFile.read(path: paths.historyFile)
        #expect(history.map(\.event) == [.dropped], "\(history)")
        #expect(history.first?.at == tea.at)
        let left = manager.statusSnapshot().daemon?.stateWriteErrors ?? []
        #expect(left.isEmpty, "\(left)")
    }
}
