// Never twice at the edges of the runtime copy and the state lock, on the embedded daemon: a
// runtime directory that takes nothing while the state disk is full, a state directory named
// another way at the restart, one that cannot be created yet with two daemons on it, a
// `lay.unproven` that is no plain file, and a lay counter at its largest. The runtime directory
// out of inodes on a real tmpfs is RuntimeDirectoryFaultTests' (a real daysomed, SIGKILL).

import DaysomeCore
import DaysomeDaemon
import DaysomeFiles
import Glibc
import Testing

@Suite("Never twice at the edges of the runtime copy and the state lock, on the embedded daemon")
struct NeverTwiceEdgeTests {
    /// The runtime directory out of inodes (ENOSPC for every new file) or read-only (EROFS).
    @Test(arguments: [ENOSPC, EROFS])
    func aRuntimeDirectoryThatTakesNothingWhileTheStateDiskIsFullNeverLetsARestartCallTwice(_ refusal: Int32) throws {
        let tablet = try tablet("edge-runtime-full-\(refusal)", at: "2026-06-01T11:59:00Z")
        defer { tablet.remove() }
        // Neither lay.json, nor the runtime copy, nor any new file in the runtime directory.
        tablet.failStateDisk(ENOSPC)
        tablet.failRuntime(refusal)
        tablet.advance(to: at("2026-06-01T12:00:05Z"))
        #expect(tablet.server.notified.count == 1)
        #expect(!FileIO.exists(tablet.paths.unsavedLayFile), "the full runtime directory took the copy")
        tablet.killDaemon()
        try tablet.startDaemon()
        tablet.advance(seconds: 2)
        #expect(tablet.server.notified.count == 1, "lunch was called again by a restart inside the grace window")
        #expect(!tablet.stateProven)
        // The full disk holds the history line back (status says so); the journal has it.
        let dropped = tablet.log.filter {
            $0.fields["DAYSOME_EVENT"] == "dropped" && $0.fields["DAYSOME_START"] == "2026-06-01T12:00:00Z"
        }
        #expect(dropped.count == 1, "the start not called again is not named: \(tablet.log.map(\.message))")
        #expect(dropped.first?.fields["DAYSOME_REASON"]?.contains("cannot be proven") == true)
        #expect(
            tablet.logged("could not be told").isEmpty && tablet.logged("could not tell").isEmpty,
            "the log still says a restart was or was not told: \(tablet.log.map(\.message))")
    }

    @Test func anItemTheFamilyRemovedNeverComesBackAfterARestartOnABrokenFileWhileNoDirectoryTookItsCopy() throws {
        let tablet = try tablet("edge-runtime-full-household", at: "2026-06-01T11:59:00Z")
        defer { tablet.remove() }
        tablet.advance(seconds: 1)
        #expect(tablet.text(LastGoodHousehold.path(in: tablet.paths)).contains("Tea"))
        tablet.failStateDisk(ENOSPC)
        tablet.failRuntime(ENOSPC)
        // The family takes tea away; neither directory can keep the copy of that edit.
        try tablet.writeHousehold(household([Item(id: "lunch", label: "Lunch", time: "12:00", end: "12:45")]))
        tablet.advance(seconds: 1)
        #expect(!FileIO.exists(LastGoodHousehold.unsavedPath(in: tablet.paths)), "the full runtime directory took it")
        tablet.killDaemon()
        try tablet.writeHousehold(KeptHouseholdTests.broken)
        try tablet.startDaemon()
        let titles = try tablet.queue().pending.map(\.title)
        #expect(!titles.contains("Tea"), "the item the family removed came back: \(titles)")
        #expect(titles.contains("Lunch"), "\(titles)")
        tablet.advance(to: at("2026-06-01T15:00:05Z"))
        #expect(!tablet.server.notified.map(\.summary).contains("Tea"), "\(tablet.server.notified.map(\.summary))")
    }

    @Test(arguments: ["trailing slash", "symlink"])
    func theRuntimeCopyIsFoundWhateverTheStateDirectoryIsCalledAtTheRestart(_ naming: String) throws {
        let tablet = try tablet("edge-state-named-\(naming.count)", at: "2026-06-01T11:59:00Z")
        defer { tablet.remove() }
        tablet.failStateDisk(ENOSPC)
        tablet.advance(to: at("2026-06-01T12:00:05Z"))
        #expect(tablet.server.notified.count == 1)
        #expect(FileIO.exists(tablet.paths.unsavedLayFile))
        tablet.killDaemon()
        let named: String
        if naming == "symlink" {
            named = tablet.root + "/state-link"
            #expect(symlink(tablet.paths.stateDirectory, named) == 0)
            // Reached through the link, the disk takes the restart's writes: lay.json alone is behind.
        } else {
            named = tablet.paths.stateDirectory + "/"
        }
        tablet.arguments += ["--state-dir", named]
        try tablet.startDaemon()
        tablet.advance(seconds: 2)
        #expect(tablet.server.notified.count == 1, "lunch was called again: the copy was not taken for its own")
        #expect(tablet.stateProven, "the copy was not read: the restart proved nothing")
        #expect(tablet.logged("Read what lay.json could not hold").count == 1, "\(tablet.log.map(\.message))")
    }

    @Test func twoDaemonsOnAStateDirectoryThatCannotBeCreatedYetNeverBothCall() throws {
        // A file stands where the state directory should be: mkdir fails, as under a read-only parent.
        let first = try StateDirectoryTests.blocked("edge-state-uncreatable")
        defer { first.remove() }
        let second = try tablet(
            "edge-state-uncreatable-second", at: "2026-06-01T10:00:00Z",
            arguments: ["--state-dir", first.paths.stateDirectory], start: false)
        defer { second.remove() }
        var refusal = ""
        do {
            try second.startDaemon()
        } catch {
            refusal = "\(error)"
        }
        #expect(refusal.contains("another daysomed"), "the second daemon ran unlocked: \(refusal)")
        first.advance(to: at("2026-06-01T12:00:05Z"))
        second.advance(to: at("2026-06-01T12:00:05Z"))
        #expect(first.server.notified.count + second.server.notified.count == 1, "lunch was called by both daemons")
        // Made at last, the directory is locked itself and the stand-in let go.
        _ = unlink(first.paths.stateDirectory)
        first.advance(seconds: 70)
        #expect(FileIO.exists(first.paths.stateDirectory + "/lay.json"))
        let third = try tablet(
            "edge-state-uncreatable-third", at: "2026-06-01T12:02:00Z",
            arguments: ["--state-dir", first.paths.stateDirectory], start: false)
        defer { third.remove() }
        #expect(throws: (any Error).self, "a third daemon took the state directory the first holds") {
            try third.startDaemon()
        }
    }

    @Test func aLayUnprovenThatIsNoPlainFileIsNamedInStatusAndSetAsideSoARestartStillCallsWhatItOwes() throws {
        let tablet = try tablet("edge-marker-directory", at: "2026-06-01T11:58:00Z")
        defer { tablet.remove() }
        tablet.advance(seconds: 1)
        tablet.killDaemon()
        try FileIO.makeDirectories(tablet.paths.unprovenMarkerFile, mode: 0o700)
        tablet.advance(to: at("2026-06-01T12:00:30Z"))
        try tablet.startDaemon()
        tablet.advance(seconds: 1)
        #expect(tablet.server.notified.count == 1, "lunch, owed inside the grace window, was not called")
        let errors = try tablet.status().household.errors
        #expect(errors.contains { $0.file == tablet.paths.unprovenMarkerFile }, "status does not name it: \(errors)")
        #expect(!FileIO.exists(tablet.paths.unprovenMarkerFile), "it was neither removed nor set aside")
        // The next restart of the boot owes tea, and calls it too.
        tablet.killDaemon()
        tablet.advance(to: at("2026-06-01T15:01:00Z"))
        try tablet.startDaemon()
        tablet.advance(seconds: 1)
        #expect(tablet.server.notified.map(\.summary) == ["Lunch", "Tea"], "\(tablet.history())")
    }

    @Test func layNumbersNeverRepeatAndStatusStaysReadableWhenTheCounterIsAtItsLargest() throws {
        let tablet = try tablet("edge-lay-counter", at: "2026-06-01T10:00:00Z", display: "foreground", start: false)
        defer { tablet.remove() }
        try FileIO.makeDirectories(tablet.paths.stateDirectory, mode: 0o700)
        let largest: UInt64 = 1 << 53
        try FileIO.writeAtomically(
            tablet.paths.layFile, #"{ "format": 1, "layCounter": \#(largest - 1), "lay": null }"# + "\n")
        try tablet.startDaemon()
        for _ in 0..<3 {
            try tablet.writeDisplay("away")
            tablet.advance(seconds: 1)
            try tablet.writeDisplay("foreground")
            tablet.advance(seconds: 1)
        }
        try tablet.writeDisplay("away")
        tablet.advance(seconds: 1)
        let laid = tablet.events(.laid).map(\.lay)
        #expect(laid == [largest], "lay numbers \(laid)")
        let status = try tablet.status()
        #expect(
            status.daemon?.notLaidReason?.contains("no lay number is left") == true,
            "\(String(describing: status.daemon))")
        #expect(tablet.ctl(["status"]).status == .success)
        // Its JSON too (read, not by key: StatusSnapshot decoded it above from the same file).
        #expect(tablet.ctl(["status"] + ["--json"]).status == .success)
    }
}
