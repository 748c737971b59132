// The family's edits, on the embedded daemon (rule 9): a good edit while she is away lays the week
// again under the next number; a file that cannot be used keeps the last good lay and is named in
// status until a good one is written.

import DaysomeCore
import DaysomeDaemon
import DaysomeFiles
import Glibc
import Testing

@Suite("Household edits, on the embedded daemon")
struct HouseholdEditTests {
    static func lunch(_ label: String) -> String {
        household([
            Item(id: "lunch", label: label, time: "13:00"), Item(id: "tea", label: "Tea", time: "15:00", kind: "drink"),
        ])
    }

    @Test func householdEditWhileAwayReLays() throws {
        let tablet = try tablet("edit", at: "2026-06-01T10:00:00Z", household: Self.lunch("Lunch"))
        defer { tablet.remove() }
        let before = try tablet.queue()
        let first = try #require(before.lay)
        #expect(before.pending.contains { $0.title == "Lunch" })

        try tablet.writeHousehold(Self.lunch("Lunch with Sue"))
        let after = try tablet.queue()
        let second = try #require(after.lay)
        #expect(second > first)
        #expect(after.display == .away)
        #expect(after.pending.count == before.pending.count)
        #expect(after.pending.contains { $0.title == "Lunch with Sue" }, "\(after.pending)")
        #expect(!after.pending.contains { $0.title == "Lunch" }, "\(after.pending)")
        #expect(after.pending.allSatisfy { $0.lay == second })
        #expect(tablet.events(.laid).map(\.lay) == [first, second])
    }

    /// The family's edit written while the inotify queue is full: only the nameless overflow
    /// comes, and the household is read again on it.
    @Test func anEditLostInAnInotifyOverflowIsStillRead() throws {
        let tablet = try tablet("edit-overflow", at: "2026-06-01T10:00:00Z", household: Self.lunch("Lunch"))
        defer { tablet.remove() }
        let first = try #require(try tablet.queue().lay)
        try tablet.writeHouseholdLostInOverflow(Self.lunch("Lunch with Sue"))
        let after = try tablet.queue()
        #expect(try #require(after.lay) > first)
        #expect(after.pending.contains { $0.title == "Lunch with Sue" }, "\(after.pending)")
    }

    /// The app keeps its file in a directory of its own and links it where the daemon reads:
    /// an edit written next to the target (by rename there) is laid at once, and so is the link
    /// moved to another target, whose own edits are then followed.
    @Test func aHouseholdBehindASymlinkIsReadAgainWhenItsTargetOrTheLinkChanges() throws {
        let tablet = try tablet("symlinked", at: "2026-06-01T10:00:00Z", household: nil, start: false)
        defer { tablet.remove() }
        let app = tablet.root + "/app-data"
        let moved = tablet.root + "/app-data-2"
        try FileIO.makeDirectories(app, mode: 0o700)
        try FileIO.makeDirectories(moved, mode: 0o700)
        try FileIO.writeAtomically(app + "/saved.json", Self.lunch("Lunch"))
        // Relative, as an app links it: resolved against the link's own directory.
        #expect(symlink("../app-data/saved.json", tablet.paths.household) == 0)
        try tablet.startDaemon()
        #expect(try tablet.queue().pending.contains { $0.title == "Lunch" })

        // The app saves by rename in its own directory: inotify tells that directory only.
        try tablet.saveByRename(app + "/saved.json", Self.lunch("Lunch with Sue"))
        #expect(try tablet.queue().pending.contains { $0.title == "Lunch with Sue" }, "the target's edit was missed")

        // The link replaced by one to another directory: read, and that directory followed now.
        try FileIO.writeAtomically(moved + "/saved.json", Self.lunch("Soup"))
        tablet.plant(at: tablet.paths.household) { path in
            #expect(symlink(moved + "/saved.json", path + ".new") == 0 && rename(path + ".new", path) == 0)
        }
        #expect(try tablet.queue().pending.contains { $0.title == "Soup" })
        try tablet.saveByRename(moved + "/saved.json", Self.lunch("Soup and bread"))
        let queue = try tablet.queue()
        #expect(queue.pending.contains { $0.title == "Soup and bread" }, "the new target's edit was missed")
        #expect(try tablet.status().household.errors.isEmpty)
    }

    @Test func corruptEditKeepsTheLastGoodLayAndShowsTheError() throws {
        let tablet = try tablet("corrupt", at: "2026-06-01T10:00:00Z", household: Self.lunch("Lunch"))
        defer { tablet.remove() }
        let before = try tablet.queue()
        #expect(before.lay != nil && !before.pending.isEmpty)

        try tablet.writeHousehold("{ \"version\": 1, \"items\": [ { \"id\": \"lunch\", \"label\": ")
        let error = try #require(try tablet.status().household.errors.first)
        #expect(error.file == tablet.paths.household, "\(error)")
        #expect(!error.message.isEmpty)
        let after = try tablet.queue()
        #expect(after.lay == before.lay)
        #expect(after.pending == before.pending)
        #expect(try tablet.status().canDeliver)

        // A good file again clears the error and lays anew.
        try tablet.writeHousehold(Self.lunch("Fish pie"))
        let fixed = try tablet.queue()
        #expect((fixed.lay ?? 0) > (before.lay ?? 0))
        #expect(fixed.pending.contains { $0.title == "Fish pie" })
        #expect(try tablet.status().household.errors.isEmpty)
    }

    @Test func anEditThatMovesTheNextStartIsCalledAtItsNewMinuteOnly() throws {
        let tablet = try tablet("move", at: "2026-06-01T11:50:00Z", household: Self.lunch("Lunch"))
        defer { tablet.remove() }
        try tablet.writeHousehold(
            household([Item(id: "lunch", label: "Lunch", time: "12:00"), Item(id: "tea", label: "Tea", time: "15:00")]))
        tablet.advance(to: at("2026-06-01T13:05:00Z"))
        #expect(tablet.server.notified.map(\.at) == [at("2026-06-01T12:00:00Z")], "\(tablet.server.notified)")
    }
}
