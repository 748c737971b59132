// A daemon stopped between lay.json and its history line leaves the history behind; the next
// start catches it up. A call kept with the server's id was taken (history says delivered, and
// the call stays to be closed); one kept without an id never had a server's answer (dropped).

import DaysomeCore
import DaysomeFiles
import Glibc
import Testing

@testable import DaysomeDaemon

@Suite struct HistoryCatchUpTests {
    @Test func aCallAServerTookIsDeliveredInHistoryAndKeptOneWithoutAnAnswerIsDropped() throws {
        var template = Array("/tmp/daysome-catchup.XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        let directory = try #require(made.map { String(cString: $0) })
        defer { _ = system("rm -rf '\(directory)'") }
        let paths = Paths(environment: [
            "HOME": directory, "XDG_RUNTIME_DIR": directory + "/run", "XDG_STATE_HOME": directory + "/state",
        ])
        try FileIO.makeDirectories(paths.stateDirectory)
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
        let (kept, added) = Publisher(paths: paths).catchUpHistory(state, now: tea.at.adding(seconds: 5))
        #expect(added.map(\.event) == [.delivered, .dropped])
        #expect(added.first?.at == lunch.at)
        #expect(added.last?.reason?.contains("answer") == true)
        #expect(kept.delivered.map(\.key) == [lunch], "the taken call must stay, to be closed on her return")
        #expect(HistoryFile.read(path: paths.historyFile).map(\.event) == [.delivered, .dropped])
    }
}
