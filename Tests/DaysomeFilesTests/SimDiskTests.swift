// The simulated disk's rules (DaysomeSimDisk): it must lose what a real disk loses at a power
// cut, and refuse what a real one refuses, or a test run on it proves nothing about a tablet.

import DaysomeCore
import DaysomeFiles
import DaysomeSimDisk
import Glibc
import Testing

private let state = "/home/she/.local/state/daysome"
private let runtime = "/run/user/1000/daysome"

/// A disk as a tablet has it: the state directory on the disk, the runtime directory on a tmpfs.
private func tablet() -> SimDisk {
    let disk = SimDisk()
    disk.installDirectory(state, permissions: 0o700)
    disk.mountTmpfs(at: "/run/user/1000")
    disk.installDirectory(runtime, permissions: 0o700)
    return disk
}

private func text(_ bytes: [UInt8]?) -> String? { bytes.map { String(decoding: $0, as: UTF8.self) } }

@Suite("The simulated disk")
struct SimDiskTests {
    @Test func aPowerCutKeepsAnAtomicWriteOnlyAfterItsDirectoryWasSynced() throws {
        let disk = tablet()
        disk.install(state + "/lay.json", text: "old")
        try disk.writeAtomically(state + "/lay.json", "unsynced", durable: false)
        #expect(text(disk.contents(state + "/lay.json")) == "unsynced", "a reader sees it before the cut")
        disk.cutPower()
        disk.powerOn()
        #expect(text(disk.contents(state + "/lay.json")) == "old")
        #expect(disk.names(in: state) == ["lay.json"], "the temporary file's name was never synced either")

        try disk.writeAtomically(state + "/lay.json", "synced", durable: true)
        disk.cutPower()
        disk.powerOn()
        #expect(text(disk.contents(state + "/lay.json")) == "synced")
    }

    @Test func aWriteSyncedButRenamedWithoutADirectorySyncIsLostAtAPowerCut() throws {
        let disk = tablet()
        disk.install(state + "/lay.json", text: "old")
        // create, write, fsync, rename: the power goes before the directory's fsync.
        disk.cutPower(afterSteps: 4)
        let error = #expect(throws: FileError.self) {
            try disk.writeAtomically(state + "/lay.json", "new", durable: true)
        }
        #expect(error?.operation == "sync directory" && error?.errno == EIO, "\(String(describing: error))")
        #expect(disk.isOff)
        disk.powerOn()
        #expect(text(disk.contents(state + "/lay.json")) == "old")
        #expect(disk.names(in: state) == ["lay.json"])
    }

    @Test func aCreateAndAnUnlinkAreDurableOnlyOnceTheirDirectoryWasSynced() throws {
        let disk = tablet()
        disk.install(state + "/kept", text: "kept")
        try disk.appendDurably(state + "/history.jsonl", Array("line\n".utf8))
        try disk.removeFile(state + "/kept")
        disk.cutPower()
        disk.powerOn()
        // The append made the file and synced its directory; the unlink came after that sync.
        #expect(disk.names(in: state) == ["history.jsonl", "kept"])
        try disk.removeFile(state + "/kept")
        try disk.syncDirectory(of: state + "/kept")
        disk.cutPower()
        disk.powerOn()
        #expect(disk.names(in: state) == ["history.jsonl"])
    }

    @Test func theRuntimeDirectoryIsEmptyAfterABootWhetherCleanOrAPowerCut() throws {
        let disk = tablet()
        try disk.makeDirectories(runtime, mode: 0o700)
        try disk.writeAtomically(runtime + "/status.json", "{}")
        try disk.writeAtomically(state + "/lay.json", "lay", durable: true)
        disk.reboot()
        #expect(disk.names(in: "/run/user/1000") == [], "a tmpfs is new at every boot")
        #expect(text(disk.contents(state + "/lay.json")) == "lay", "a clean reboot keeps the disk")

        try disk.makeDirectories(runtime, mode: 0o700)
        try disk.writeAtomically(runtime + "/lay.unsaved.json", "copy", durable: true)
        disk.cutPower()
        disk.powerOn()
        #expect(disk.names(in: "/run/user/1000") == [])
    }

    @Test func aFullInodeTableFailsACreateWithENOSPCAndAReplacementToo() throws {
        let disk = tablet()
        // The runtime directory and one file: the tmpfs's root is the third inode.
        try disk.writeAtomically(runtime + "/status.json", "{}")
        disk.setInodeLimit(3, at: runtime)
        #expect(disk.freeInodes(at: runtime) == 0)
        let created = #expect(throws: FileError.self) { try disk.writeAtomically(runtime + "/queue.json", "[]") }
        #expect(created?.errno == ENOSPC && created?.operation == "create", "\(String(describing: created))")
        // An atomic replacement needs an inode for its temporary file: refused as well.
        let replaced = #expect(throws: FileError.self) { try disk.writeAtomically(runtime + "/status.json", "{ }") }
        #expect(replaced?.errno == ENOSPC)
        #expect(text(disk.contents(runtime + "/status.json")) == "{}")
        disk.setInodeLimit(4, at: runtime)
        try disk.writeAtomically(runtime + "/status.json", "{ }")
        #expect(disk.freeInodes(at: runtime) == 1, "the replaced file's inode is free again")
    }

    @Test func aDirectoryWithoutWritePermissionRefusesACreateWithEACCES() throws {
        let disk = tablet()
        disk.setPermissions(runtime, 0o500)
        let error = #expect(throws: FileError.self) { try disk.writeAtomically(runtime + "/lay.unsaved.json", "x") }
        #expect(error?.errno == EACCES && error?.operation == "create", "\(String(describing: error))")
        disk.setPermissions(runtime, 0o000)
        let read = #expect(throws: FileError.self) { try disk.read(runtime + "/status.json", limit: 10) }
        #expect(read?.errno == EACCES, "no search permission on the directory")
    }

    @Test func aPathFailedOnDemandRefusesWithItsErrnoUntilCleared() throws {
        let disk = tablet()
        disk.install(state + "/lay.json", text: "old")
        disk.install(state + "/lay.json.corrupt", text: "aside")
        disk.fail(state, with: ENOSPC)
        let full = #expect(throws: FileError.self) { try disk.writeAtomically(state + "/lay.json", "new") }
        #expect(full?.errno == ENOSPC)
        try disk.removeFile(state + "/lay.json")  // a full disk still takes an unlink
        disk.fail(state, with: EROFS)
        let readOnly = #expect(throws: FileError.self) { try disk.appendDurably(state + "/history.jsonl", [0x0A]) }
        #expect(readOnly?.errno == EROFS)
        let unlinked = #expect(throws: FileError.self, "a read-only disk takes no unlink") {
            try disk.removeFile(state + "/lay.json.corrupt")
        }
        #expect(unlinked?.errno == EROFS)
        disk.fail(state, with: EIO)
        let broken = #expect(throws: FileError.self) { try disk.makeDirectories(state + "/sub", mode: 0o700) }
        #expect(broken?.errno == EIO && broken?.operation == "create directory")
        disk.fail(state, with: nil)
        try disk.writeAtomically(state + "/lay.json", "new", durable: true)
        disk.failReads(state + "/lay.json", with: EIO)
        #expect(throws: FileError.self) { try disk.read(state + "/lay.json", limit: 100) }
    }

    @Test func aSymlinkIsFollowedOnlyWhereTheReadAsksAndNamesTheFileItLeadsTo() throws {
        let disk = tablet()
        disk.install("/home/she/.config/daysome/household.v2.json", text: "{}")
        disk.installSymlink("/home/she/.config/daysome/household.json", to: "household.v2.json")
        disk.installSymlink("/home/she/state-link", to: state)
        let path = "/home/she/.config/daysome/household.json"
        #expect(text(try disk.read(path, limit: 100, followLinks: true)) == "{}")
        let refused = #expect(throws: FileError.self) { try disk.read(path, limit: 100, followLinks: false) }
        #expect(refused?.errno == ELOOP)
        #expect(!disk.isRegularFile(path) && disk.status(path, followLinks: true)?.kind == .regular)
        // readlink(2): what the daemon follows to watch a linked household's target.
        #expect(disk.linkTarget(path) == "household.v2.json" && disk.linkTarget(state) == nil)
        let named = disk.identity(of: state)
        #expect(disk.identity(of: "/home/she/state-link/").isSame(as: named))
        #expect(disk.identity(of: "/home/she/state-link/.").canonicalPath == state)
        #expect(disk.identity(of: "/home/she/state-link/missing/x").canonicalPath == state + "/missing/x")
        disk.installPipe(runtime + "/display")
        let pipe = #expect(throws: FileError.self) {
            try disk.read(runtime + "/display", limit: 100, followLinks: false, regularOnly: true)
        }
        #expect(pipe?.cause == .notRegularFile)
    }

    @Test func aSeededPowerCutMayTearAnUnsyncedWriteButNeverASyncedOne() throws {
        var outcomes: Set<String> = []
        for seed in UInt64(0)..<64 {
            for durable in [false, true] {
                let disk = tablet()
                disk.install(state + "/lay.json", text: "old lay")
                try disk.writeAtomically(state + "/lay.json", "the new lay", durable: durable)
                disk.cutPower()
                disk.powerOn(seed: seed)
                let left = text(disk.contents(state + "/lay.json")) ?? "missing"
                if durable {
                    #expect(left == "the new lay", "seed \(seed)")
                } else {
                    outcomes.insert(left == "old lay" || left == "the new lay" ? left : "torn")
                }
            }
        }
        #expect(outcomes == ["old lay", "the new lay", "torn"], "an unsynced write is kept, lost or torn")
    }

    @Test func aPowerCutAtEveryStepOfAHistoryAppendKeepsEveryLineAppendedBefore() throws {
        let line = { (lay: UInt64) in
            HistoryRecord(time: Instant(seconds: 1_796_000_000), event: .laid, lay: lay)
        }
        func world() throws -> (SimDisk, HistoryFile) {
            let disk = tablet()
            var history = HistoryFile(path: state + "/history.jsonl", disk: disk)
            try history.append([line(1)])
            return (disk, history)
        }
        let (probe, probeHistory) = try world()
        var appended = probeHistory
        let before = probe.steps
        try appended.append([line(2)])
        let steps = probe.steps - before
        #expect(steps == 2, "the write and its fsync (a truncation only on failure); got \(steps)")
        for cut in 0...steps {
            let (disk, opened) = try world()
            var history = opened
            disk.cutPower(afterSteps: cut)
            let returned = (try? history.append([line(2)])) != nil
            for seed in [nil] + (0..<16).map(UInt64.init) {
                let after = disk.copy()
                after.cutPower()
                after.powerOn(seed: seed)
                let (records, unreadable) = HistoryFile.readCounting(path: state + "/history.jsonl", disk: after)
                #expect(records.first == line(1), "cut \(cut) seed \(String(describing: seed))")
                if returned { #expect(records == [line(1), line(2)] && unreadable == 0) }
                #expect(records.count + unreadable <= 2, "never a line twice")
            }
        }
    }

    /// The disk keeps where a path's last directory was found (SimDisk+Paths.swift): a directory
    /// removed and made again, replaced by a link, renamed away or made unsearchable must move
    /// every path through it at once, as the kernel's walk would.
    @Test func aPathThroughADirectoryThatMovedLeadsWhereTheDirectoryIsNow() throws {
        let disk = tablet()
        let file = state + "/lay.json"
        try disk.writeAtomically(file, "first", durable: true)
        #expect(text(try disk.read(file, limit: 100, followLinks: false)) == "first")
        let before = disk.identity(of: state)

        // Removed and made again: the same path, another directory, and the file is gone with it.
        try disk.removeFile(file)
        try disk.removeDirectory(state)
        try disk.makeDirectories(state, mode: 0o700)
        #expect(disk.identity(of: state).node != before.node)
        #expect(throws: FileError.self) { try disk.read(file, limit: 100, followLinks: false) }
        try disk.writeAtomically(file, "second", durable: true)
        #expect(text(try disk.read(file, limit: 100, followLinks: false)) == "second")

        // Renamed away, a link in its place: the path leads through the link to the renamed one.
        let old = try disk.setAside(state, now: Instant(seconds: 1_780_000_000))
        #expect(throws: FileError.self) { try disk.read(file, limit: 100, followLinks: false) }
        disk.installSymlink(state, to: old)
        #expect(text(try disk.read(file, limit: 100, followLinks: false)) == "second")
        #expect(disk.identity(of: state).canonicalPath == old)

        // No search permission on a directory walked through: refused, then allowed again.
        disk.setPermissions(old, 0o600)
        let refused = #expect(throws: FileError.self) { try disk.read(file, limit: 100, followLinks: false) }
        #expect(refused?.errno == EACCES)
        disk.setPermissions(old, 0o700)
        #expect(text(try disk.read(file, limit: 100, followLinks: false)) == "second")
    }

    /// The canonical form's shortcut (a canonical path that resolves whole) and its walk agree.
    @Test func aCanonicalPathIsTheSameWhetherItsShortcutOrItsWalkFindsIt() {
        let disk = tablet()
        disk.installSymlink("/home/she/state-link", to: state)
        for (path, canonical) in [
            (state, state), ("/", "/"), (state + "/", state), ("/home/she/./.local/state/daysome", state),
            ("/home//she/.local/state/daysome", state), ("/home/she/state-link", state),
            (state + "/missing", state + "/missing"),
            ("/home/she/...", "/home/she/..."), ("/home/she/.x", "/home/she/.x"),
        ] {
            #expect(disk.identity(of: path).canonicalPath == canonical, "\(path)")
        }
    }
}
