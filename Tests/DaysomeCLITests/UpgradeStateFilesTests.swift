// The state files a 0.1.0 daemon wrote (Fixtures/state-0.1.0: lay.json, history.jsonl and
// household.last-good.json, written by the 0.1.0 package's daysomed with the log notifier: lay 1,
// lunch and pills delivered at 03:08, the display back and the call withdrawn, then a restart
// while away: lay 2) are read by this version: an upgrade keeps her lay counter, her history, the
// household last known good, and the memory of what was called, so nothing is called twice.

import DaysomeCore
import DaysomeFiles
import Testing

@Suite("State files written by 0.1.0")
struct UpgradeStateFilesTests {
    let directory = repositoryRoot + "/Fixtures/state-0.1.0"

    @Test("An upgrade from 0.1.0 keeps the lay: its lay.json reads with what it already called")
    func layFileReads() throws {
        let bytes = try FileIO.read(self.directory + "/lay.json", limit: 1 << 20)
        let state = try PersistedState(decoding: try JSONParser.parse(bytes))
        let lay = try #require(state.lay)
        #expect(state.layCounter == 2)
        #expect(lay.number == 2)
        // What 0.1.0 already called is remembered: the new daemon does not call it again.
        let called = Set(state.called.map(\.itemId))
        #expect(called == ["lunch", "pills"], "\(state.called)")
        #expect(state.called.allSatisfy { $0.at.rfc3339 == "2026-12-02T03:08:00Z" }, "\(state.called)")
    }

    @Test("An upgrade from 0.1.0 keeps the history: every line of its history.jsonl reads")
    func historyReads() throws {
        let (records, unreadable) = HistoryFile.readCounting(path: self.directory + "/history.jsonl")
        let lines = String(decoding: try FileIO.read(self.directory + "/history.jsonl", limit: 1 << 20), as: UTF8.self)
            .split(separator: "\n").count
        #expect(unreadable == 0)
        #expect(records.count == lines)
        let events = Set(records.map(\.event))
        #expect(events.isSuperset(of: [.laid, .delivered, .withdrawn]), "\(events)")
        let delivered = try #require(records.first { $0.event == .delivered })
        #expect(delivered.itemIds.contains("lunch"), "\(delivered)")
    }

    @Test("An upgrade from 0.1.0 keeps the last good household: its copy loads and its digest matches")
    func lastGoodHouseholdLoads() throws {
        let (copy, problem) = LastGoodHousehold.load(from: self.directory + "/household.last-good.json")
        #expect(problem == nil, "\(String(describing: problem))")
        let household = try #require(copy)
        let object = try #require(try JSONParser.parse(household.bytes).objectValue)
        #expect(object["timeZone"]?.stringValue == "Europe/London")
    }
}
