// The published files are written in proportion to what changed (issue 44): queue.json only when
// the laid starts, the lay, the display or the household moved, status.json only when its bytes
// differ. Counted as the simulated disk's write steps, so a rewrite of the same bytes is seen.

import DaysomeCore
import DaysomeFiles
import DaysomeSimDisk
import Testing

@testable import DaysomeDaemon

@Suite("Published files are written only when what they say changed")
struct PublishInProportionTests {
    let paths = Paths(environment: ["HOME": "/home/she", "XDG_RUNTIME_DIR": "/run/user/1000"])
    let now = Instant(seconds: 1_796_000_000)

    /// A household of one item a minute, in UTC: the dense week.
    func denseWeek() throws -> LoadedHousehold {
        var items: [String] = []
        for hour in 0..<24 {
            for minute in 0..<60 {
                let time = (hour < 10 ? "0" : "") + "\(hour):" + (minute < 10 ? "0" : "") + "\(minute)"
                items.append(
                    #"{"id": "m\#(hour)-\#(minute)", "label": "Meal \#(time)", "kind": "meal", "time": "\#(time)", "repeat": "daily"}"#
                )
            }
        }
        let text =
            #"{"version": 1, "timeZone": "UTC", "settings": {"notifyInOtherApps": true}, "items": ["#
            + items.joined(separator: ",") + "]}"
        let load = try HouseholdParser.parse(
            Array(text.utf8), file: "household.json", zones: { $0 == "UTC" ? .utc : nil }, systemZoneName: "UTC"
        ).get()
        return LoadedHousehold(load: load, digest: 1, loadedAt: self.now)
    }

    func tablet() -> (SimDisk, Publisher) {
        let disk = SimDisk()
        disk.mountTmpfs(at: "/run/user/1000")
        disk.installDirectory(self.paths.runtimeDirectory, permissions: 0o700)
        return (disk, Publisher(paths: self.paths, disk: disk))
    }

    func status(_ machine: DaemonMachine, note: String) -> StatusSnapshot {
        StatusSnapshot(
            pid: 1, display: machine.display, lay: machine.currentLay?.number, backend: "wheel",
            notifyInOtherApps: true,
            notificationServer: StatusSnapshot.NotificationServer(name: note, present: true, capabilities: []),
            canDeliver: true, laidUntil: machine.currentLay?.laidUntil, nextStart: nil,
            household: StatusSnapshot.HouseholdStatus(
                path: "household.json", loadedAt: nil, items: 0, timeZone: "UTC", errors: [], errorCount: 0,
                inForce: nil), daemon: nil)
    }

    @Test("A status-only change rewrites status.json and leaves a dense week's queue.json unwritten")
    func aStatusOnlyChangeLeavesTheQueueUnwritten() throws {
        let (disk, publisher) = self.tablet()
        var machine = DaemonMachine(config: MachineConfig(), persisted: PersistedState(), now: self.now)
        _ = machine.startAfterRestart(
            file: .away, fileWrittenAt: nil, household: .success(try self.denseWeek()), lastGood: nil,
            stateProven: true, now: self.now)
        #expect(machine.laidCount == 10_080)
        try publisher.publish(machine, backend: .wheel) { self.status(machine, note: "dunst") }
        let queue = try #require(disk.contents(self.paths.queueFile))
        #expect(queue.count > 1_000_000, "the dense week's queue is \(queue.count) bytes")
        #expect(try QueueSnapshot(json: JSONParser.parse(queue)).pending.count == 10_080)

        // The same state again: nothing is written at all.
        var before = disk.steps
        try publisher.publish(machine, backend: .wheel) { self.status(machine, note: "dunst") }
        #expect(disk.steps == before, "\(disk.steps - before) write steps for nothing changed")

        // The server changed (status only): status.json is rewritten, queue.json is not.
        before = disk.steps
        try publisher.publish(machine, backend: .wheel) { self.status(machine, note: "mako") }
        #expect(disk.steps > before)
        #expect(disk.contents(self.paths.queueFile) == queue)
        #expect(disk.steps - before < 10, "\(disk.steps - before) steps: only the status was written")

        // A return clears the lay: the queue is written again, empty.
        _ = machine.displayRead(.foreground, writtenAt: self.now, now: self.now)
        try publisher.publish(machine, backend: .wheel) { self.status(machine, note: "mako") }
        let cleared = try QueueSnapshot(json: JSONParser.parse(try #require(disk.contents(self.paths.queueFile))))
        #expect(cleared.pending.isEmpty && cleared.display == .foreground)
    }
}
