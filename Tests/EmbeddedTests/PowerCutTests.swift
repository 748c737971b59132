// Power cuts on the simulated disk (`EmbeddedTablet(simulatedDisk: true)`): the daemon's own file
// code runs on a disk that keeps, at a cut, only what was synced; the runtime tmpfs is empty after.

import DaysomeCore
import DaysomeDaemon
import DaysomeWorld
import Testing

@Suite("Power cuts on the simulated disk, on the embedded daemon")
struct PowerCutTests {
    /// The daemon makes its state directory at its first start. A power cut after a call keeps the
    /// directory, with lay.json and the history in it: the next start resumes lay 1 and does not
    /// make the call again, though it is still inside its grace window.
    @Test func aPowerCutAfterTheFirstStartKeepsTheStateDirectoryTheDaemonMade() throws {
        let tablet = try EmbeddedTablet(
            root: "/tablet", at: at("2026-06-01T11:58:00Z"), household: lunchAndTea, display: "away",
            simulatedDisk: true)
        try tablet.startDaemon()
        tablet.advance(to: at("2026-06-01T12:01:00Z"))
        #expect(tablet.shown == ["Lunch"])
        try tablet.powerCut()
        try tablet.startDaemon()
        tablet.advance(seconds: 60)
        #expect(tablet.server.notified.count == 1, "\(tablet.server.notified)")
        #expect(tablet.events(.delivered).count == 1, "\(tablet.history())")
        #expect(tablet.events(.laid).count == 1, "\(tablet.history())")
        #expect(tablet.liveStatus?.lay == 1)
    }
}
