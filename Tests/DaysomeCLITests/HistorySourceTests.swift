// Which state directory `history` reads: the one named, the running daemon's, else a fall-back
// that is said, or a refusal where the runtime directory names no daemon at all.

import Testing

@testable import DaysomeCLI

@Suite struct HistorySourceTests {
    func decide(_ option: String?, given: Bool, running: Bool, published: String?) -> HistorySource {
        HistorySource.decide(
            stateDirectory: option, runtimeDirectoryGiven: given, running: running, published: published,
            defaultDirectory: "/default")
    }

    @Test func historyReadsTheNamedOrRunningDaemonsDirectoryAndSaysWhenItFellBack() {
        // --state-dir wins over everything.
        #expect(self.decide("/s", given: true, running: true, published: "/p") == .given("/s"))
        // The daemon running there named its own.
        #expect(self.decide(nil, given: true, running: true, published: "/p") == .running("/p"))
        #expect(self.decide(nil, given: false, running: true, published: "/p") == .running("/p"))
        // Gone: what it last published there, said.
        let gone = self.decide(nil, given: true, running: false, published: "/p")
        #expect(gone == .lastPublished("/p") && gone.fellBack)
        #expect(gone.warning(runtimeDirectory: "/r")?.contains("no daemon runs for '/r'") == true)
        // The default runtime directory with nothing published: the default, said.
        let byDefault = self.decide(nil, given: false, running: false, published: nil)
        #expect(byDefault == .defaultDirectory("/default") && byDefault.fellBack)
        #expect(byDefault.warning(runtimeDirectory: "/r")?.contains("reading the default, '/default'") == true)
        // A --runtime-dir nothing was ever published in: nothing is read, and the reason is given.
        let none = self.decide(nil, given: true, running: false, published: nil)
        #expect(none == .noDaemon && none.directory == nil)
        #expect(self.decide(nil, given: true, running: true, published: nil) == .noDaemon)
        #expect(self.decide("/s", given: true, running: false, published: nil).warning(runtimeDirectory: "/r") == nil)
    }
}
