// The daemon's own state writes (Publisher and StateWrites, today's fsync protocol) on the
// simulated disk, with the power cut before every one of their steps: what a tablet finds at
// the next boot must be the old lay.json or the new one, whole, and never nothing.

import DaysomeCore
import DaysomeFiles
import DaysomeSimDisk
import Glibc
import Testing

@testable import DaysomeDaemon

@Suite("Power cuts in the daemon's state writes")
struct LayPowerCutTests {
    let paths = Paths(environment: ["HOME": "/home/she", "XDG_RUNTIME_DIR": "/run/user/1000"])
    let now = Instant(seconds: 1_796_000_000)

    var old: PersistedState { PersistedState(layCounter: 3) }

    var new: PersistedState {
        let lunch = DeliveryKey(lay: 4, at: self.now.adding(seconds: 60))
        return PersistedState(
            layCounter: 4,
            delivered: [DeliveredCall(key: lunch, itemIds: ["lunch"], expiresAt: lunch.at.adding(seconds: 2_700))])
    }

    func bytes(_ state: PersistedState) -> [UInt8] { Array((state.json.serialized(pretty: true) + "\n").utf8) }

    /// A tablet's disk with the old lay written by the daemon's own code, and its writes.
    func tablet() -> (SimDisk, StateWrites) {
        let disk = SimDisk()
        disk.installDirectory(self.paths.stateDirectory, permissions: 0o700)
        disk.mountTmpfs(at: "/run/user/1000")
        disk.installDirectory(self.paths.runtimeDirectory, permissions: 0o700)
        let publisher = Publisher(paths: self.paths, disk: disk)
        let writes = StateWrites(
            paths: self.paths, publisher: publisher, logger: Logger(sink: { _, _, _ in }), loop: StillLoop(),
            clock: SteppedClock(self.now), keepRecord: { _ in true })
        writes.persist(self.old, now: self.now)
        return (disk, writes)
    }

    @Test func aPowerCutAtEveryStepOfALayWriteLeavesTheOldLayOrTheNewWholeNeverTornOrMissing() throws {
        let (probe, probeWrites) = self.tablet()
        #expect(probe.contents(self.paths.layFile) == self.bytes(self.old))
        let before = probe.steps
        probeWrites.persist(self.new, now: self.now)
        #expect(!probeWrites.layBehind)
        let steps = probe.steps - before
        #expect(steps == 5, "create, write, fsync, rename, fsync of the directory; got \(steps)")
        var seen: Set<String> = []
        for cut in 0...steps {
            let (disk, writes) = self.tablet()
            disk.cutPower(afterSteps: cut)
            writes.persist(self.new, now: self.now)
            #expect(writes.layBehind == (cut < steps), "cut before step \(cut + 1)")
            for seed in [nil] + (0..<32).map(UInt64.init) {
                let after = disk.copy()
                after.cutPower()
                after.powerOn(seed: seed)
                let found = after.contents(self.paths.layFile)
                let why = "cut before step \(cut + 1) of \(steps), seed \(String(describing: seed))"
                #expect(found == self.bytes(self.old) || found == self.bytes(self.new), "\(why): \(text(found))")
                if cut == steps { #expect(found == self.bytes(self.new), "\(why): the write had returned") }
                // Read back as the daemon reads it at start-up: nothing set aside, nothing to report.
                let (read, problems) = Publisher.readPersisted(self.paths, disk: after, now: self.now)
                #expect(problems.isEmpty, "\(why): \(problems)")
                #expect(after.names(in: self.paths.stateDirectory)?.contains { $0.contains("corrupt") } == false)
                seen.insert(read.layCounter == 4 ? "new" : "old")
            }
        }
        #expect(seen == ["old", "new"], "the cuts fall on both sides of the rename's sync")
    }

    /// The protocol's order, lay.json first and its history line after, across a cut at any step of
    /// both: the history never names a lay that lay.json does not hold (a restart catches the
    /// history up from lay.json, never the other way), and a torn history line is skipped.
    @Test func aPowerCutAtAnyStepOfALayAndItsHistoryLineNeverLeavesTheHistoryAheadOfLayJson() throws {
        let laid = HistoryRecord(time: self.now, event: .laid, lay: 4)
        let (probe, probeWrites) = self.tablet()
        let before = probe.steps
        probeWrites.persist(self.new, now: self.now)
        probeWrites.record([laid], now: self.now)
        let steps = probe.steps - before
        #expect(steps == 9, "lay.json's five steps, then the history's create, write, fdatasync and directory fsync")
        for cut in 0...steps {
            let (disk, writes) = self.tablet()
            disk.cutPower(afterSteps: cut)
            writes.persist(self.new, now: self.now)
            writes.record([laid], now: self.now)
            for seed in [nil] + (0..<32).map(UInt64.init) {
                let after = disk.copy()
                after.cutPower()
                after.powerOn(seed: seed)
                let why = "cut before step \(cut + 1) of \(steps), seed \(String(describing: seed))"
                let history = HistoryFile.read(path: self.paths.historyFile, disk: after)
                let (read, problems) = Publisher.readPersisted(self.paths, disk: after, now: self.now)
                #expect(problems.allSatisfy { $0.file != self.paths.layFile }, "\(why): \(problems)")
                if history.contains(laid) {
                    // As lay.json holds it: the counter read back is raised by the history itself.
                    let layJson = text(after.contents(self.paths.layFile))
                    #expect(layJson == text(self.bytes(self.new)), "\(why): the history is ahead of lay.json")
                }
                #expect(read.layCounter >= 3)
                if cut == steps { #expect(history == [laid], "\(why): the line was written and synced") }
            }
        }
    }

    /// The same cuts with the fsyncs taken out, as a write without `durable` makes it: the disk
    /// must show the loss (a torn or missing lay.json), or the test above could not fail.
    @Test func withoutItsSyncsALayWriteCutByThePowerCanLeaveATornOrEmptyLay() throws {
        var broken = 0
        for seed in (0..<32).map(UInt64.init) {
            let (disk, _) = self.tablet()
            try disk.writeAtomically(self.paths.layFile, self.bytes(self.new), mode: 0o600, durable: false)
            disk.cutPower()
            disk.powerOn(seed: seed)
            let found = disk.contents(self.paths.layFile)
            if found != self.bytes(self.old) && found != self.bytes(self.new) { broken += 1 }
        }
        #expect(broken > 0, "no seed lost the unsynced lay: the simulated disk keeps what it must not")
    }

    @Test func aLayTheStateDirectoryRefusesIsKeptInTheRuntimeDirectoryAndGoneAfterABoot() throws {
        let (disk, writes) = self.tablet()
        disk.fail(self.paths.stateDirectory, with: ENOSPC)
        writes.persist(self.new, now: self.now)
        #expect(writes.layBehind)
        #expect(writes.kept == .runtimeCopy)
        #expect(Publisher.readUnsaved(self.paths, disk: disk)?.layCounter == 4)
        disk.reboot()
        #expect(Publisher.readUnsaved(self.paths, disk: disk) == nil, "the runtime directory is new at boot")
        #expect(Publisher.readPersisted(self.paths, disk: disk, now: self.now).state.layCounter == 3)
    }
}

private func text(_ bytes: [UInt8]?) -> String {
    bytes.map { String(decoding: $0, as: UTF8.self) } ?? "missing"
}
