// The state directory removed under the running daemon, on the embedded daemon: made again
// empty, or not at all, the daemon keeps the last good household in it again at its next write
// (making the directory itself on a retry), so a broken file and a restart still lay.

import DaysomeCore
import DaysomeDaemon
import DaysomeFiles
import Glibc
import Testing

@Suite("The state directory lost, on the embedded daemon")
struct StateDirectoryLostTests {
    @Test func aStateDirectoryLostAndMadeAgainKeepsTheLastGoodHouseholdSoABrokenFileAndARestartStillLay() throws {
        let tablet = try tablet("state-lost", at: "2026-06-01T10:00:00Z")
        defer { tablet.remove() }
        tablet.advance(seconds: 1)
        let before = try tablet.queue()
        let state = tablet.paths.stateDirectory
        let kept = state + "/household.last-good.json"
        #expect(FileIO.exists(kept), "the last good household was not kept")

        // Someone removes the state directory and makes it again, empty; the daemon's next write
        // finds the new directory.
        _ = system("rm -rf '\(state)'")
        #expect(mkdir(state, 0o700) == 0)
        try tablet.writeDisplay("foreground")
        try tablet.writeDisplay("away")
        tablet.advance(seconds: 1)
        #expect(FileIO.exists(kept), "the last good household was not kept again in the directory made anew")
        // And removed outright: the daemon makes the directory itself on its retry.
        _ = system("rm -rf '\(state)'")
        try tablet.writeDisplay("foreground")
        try tablet.writeDisplay("away")
        tablet.advance(seconds: 10)
        #expect(FileIO.exists(kept), "the daemon did not make the directory and keep the household in it")
        let lay = try #require(try tablet.queue().lay)

        // A broken file and a restart: the kept copy is laid, under the same lay.
        tablet.killDaemon()
        try tablet.writeHousehold(#"{ "version": 1, "timeZone": "UTC", "items": "#)
        try tablet.startDaemon()
        let after = try tablet.queue()
        #expect(after.lay == lay, "a restart on a broken file must resume the lay made from the kept copy")
        #expect(after.pending.map(\.at) == before.pending.map(\.at), "the kept copy's starts are not laid")
        let text = try tablet.statusText()
        #expect(text.contains("In force: the last good household"), "\(text)")
        #expect(!text.contains("no earlier household is kept"), "\(text)")
    }
}
