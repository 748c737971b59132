// The published files are written once per loop turn (issue 44): whatever a burst of events
// changes, queue.json and status.json are each written once after it, not once per event. The
// real Manager on a simulated disk, which counts the renames that put each file in place.

import DaysomeCore
import DaysomeDaemon
import DaysomeWorld
import Testing

@Suite("Published files are written once per loop turn")
struct PublishOncePerTurnTests {
    @Test("A burst of flips and locks read in one turn writes queue.json and status.json once each")
    func aBurstReadInOneTurnPublishesOnce() throws {
        let tablet = try EmbeddedTablet(
            root: "/tablet", at: at("2026-06-01T08:00:00Z"), household: lunchAndTea, display: "foreground",
            simulatedDisk: true)
        try tablet.startDaemon()
        let disk = try #require(tablet.simDisk)
        let paths = tablet.paths
        tablet.advance(seconds: 60)
        let queueBefore = disk.renamedOnto[paths.queueFile, default: 0]
        let statusBefore = disk.renamedOnto[paths.statusFile, default: 0]

        // The loop does not run while the burst is written: away, a lock, an unlock, foreground,
        // away again. It is read at once when the loop runs, as sd-event reads what queued.
        tablet.loop.stall()
        try tablet.writeDisplay("away")
        tablet.lock(.gnomeScreenSaver, true)
        tablet.lock(.gnomeScreenSaver, false)
        try tablet.writeDisplay("foreground")
        try tablet.writeDisplay("away")
        tablet.loop.resume()

        #expect(try tablet.queue().pending.prefix(2).map(\.title) == ["Lunch", "Tea"], "the burst ends away: a lay")
        #expect(disk.renamedOnto[paths.queueFile, default: 0] - queueBefore == 1, "queue.json written once")
        #expect(disk.renamedOnto[paths.statusFile, default: 0] - statusBefore == 1, "status.json written once")

        // Nothing new in the next turns: nothing is written again.
        let queueAfter = disk.renamedOnto[paths.queueFile, default: 0]
        let statusAfter = disk.renamedOnto[paths.statusFile, default: 0]
        tablet.advance(seconds: 1)
        #expect(disk.renamedOnto[paths.queueFile, default: 0] == queueAfter)
        #expect(disk.renamedOnto[paths.statusFile, default: 0] == statusAfter)
    }
}
