// The last good household, on the embedded daemon: kept in the state directory without the app's
// own members (the supervisor PIN, today's note, the menu library), laid from after a restart on a
// broken file, read in the whole-file shape 0.1.0 kept; and with nothing kept, status names the
// broken file rather than the carer's switch.

import DaysomeCore
import DaysomeDaemon
import DaysomeFiles
import Glibc
import Testing

@Suite("The kept household, on the embedded daemon")
struct KeptHouseholdTests {
    /// A good household as the display app writes it, with its own members the daemon must never
    /// keep, log or show.
    static let withTheAppsOwnMembers: String = {
        let text = household([
            Item(id: "lunch", label: "Lunch", time: "13:00"),
            Item(id: "tea", label: "Tea", time: "15:00", kind: "drink"),
        ])
        let members =
            #"{ "supervisorPin": "4071", "note": { "text": "Jean rings at six SECRET-NOTE-7731" }, "#
            + #""menuLibrary": ["Fish pie", "Cottage pie"], "#
        precondition(text.hasPrefix("{ "))
        return members + text.dropFirst(2)
    }()

    static let broken = #"{ "version": 1, "timeZone": "UTC", "items": "#

    @Test func aRestartWithABrokenHouseholdKeepsLayingTheLastGoodOne() throws {
        let tablet = try tablet("kept-restart", at: "2026-06-01T10:00:00Z")
        defer { tablet.remove() }
        tablet.advance(seconds: 1)
        let before = try tablet.queue()
        let lay = try #require(before.lay)
        tablet.killDaemon()
        // The app broke the file while the tablet was off.
        try tablet.writeHousehold(Self.broken)
        try tablet.startDaemon()
        let after = try tablet.queue()
        #expect(after.lay == lay, "a restart on a broken file must resume the lay made from the kept copy")
        #expect(after.pending == before.pending)
        let status = try tablet.status()
        #expect(status.canDeliver)
        let inForce = try #require(status.household.inForce, "\(status.household)")
        #expect(inForce.source == .keptCopy)
        #expect(inForce.path == tablet.paths.stateDirectory + "/household.last-good.json")
        #expect(status.household.errors.first?.file == tablet.paths.household, "\(status.household.errors)")
        #expect(status.household.errors.first?.message.contains("not valid JSON") == true)
        let text = try tablet.statusText()
        #expect(text.contains("In force: the last good household"), "\(text)")
        #expect(!text.contains("Nothing is laid"), "\(text)")
    }

    @Test func theKeptLastGoodHouseholdHoldsNoSupervisorPinNoteOrMenuLibrary() throws {
        let tablet = try tablet("kept-secrets", at: "2026-06-01T10:00:00Z", household: Self.withTheAppsOwnMembers)
        defer { tablet.remove() }
        tablet.advance(seconds: 1)
        let text = tablet.text(tablet.paths.stateDirectory + "/household.last-good.json")
        #expect(text.contains("Lunch"), "the last good household was not kept: \(text)")
        for secret in ["supervisorPin", "4071", "SECRET-NOTE-7731", "menuLibrary", "Cottage pie"] {
            #expect(!text.contains(secret), "the kept copy holds \(secret): \(text)")
        }
    }

    @Test func aWholeFileCopyKeptByVersion010IsStillLaidFromAndLosesThePinAtOnce() throws {
        let tablet = try tablet("kept-010", at: "2026-06-01T10:00:00Z", household: Self.broken, start: false)
        defer { tablet.remove() }
        let good = Self.withTheAppsOwnMembers
        // What 0.1.0 kept: the whole file, its digest; and the app broke the file since.
        try FileIO.makeDirectories(tablet.paths.stateDirectory, mode: 0o700)
        let old = JSONValue.object(
            JSONObject([
                ("format", .number(1)), ("source", .string(tablet.paths.household)),
                ("since", .string("2026-05-30T08:00:00Z")),
                ("digest", .string(String(fnv1a(Array(good.utf8)), radix: 16))), ("household", .string(good)),
            ]))
        let kept = tablet.paths.stateDirectory + "/household.last-good.json"
        try FileIO.writeAtomically(kept, old.serialized() + "\n")
        try tablet.startDaemon()
        tablet.advance(seconds: 1)
        let queue = try tablet.queue()
        #expect(queue.lay != nil && !queue.pending.isEmpty, "nothing laid from the older kept copy: \(queue)")
        #expect(try tablet.status().household.inForce?.source == .keptCopy)
        let text = tablet.text(kept)
        #expect(text.contains("Lunch"), "\(text)")
        for secret in ["supervisorPin", "4071", "SECRET-NOTE-7731", "menuLibrary"] {
            #expect(!text.contains(secret), "the upgraded copy still holds \(secret): \(text)")
        }
    }

    @Test func withABrokenFileAndNothingKeptStatusNamesTheFileNotTheCarersSwitch() throws {
        let tablet = try tablet("nothing-kept", at: "2026-06-01T10:00:00Z", household: Self.broken)
        defer { tablet.remove() }
        let reason = try #require(try tablet.status().daemon?.notLaidReason)
        #expect(reason.contains("household file is not valid JSON"), "\(reason)")
        let text = try tablet.statusText()
        #expect(text.contains("Nothing is laid: the household file is not valid JSON"), "\(text)")
    }

    /// The family edited the household while the state disk was full, so the state directory
    /// still holds the copy before that edit; the daemon restarts and the file is broken. Lunch
    /// is called with the family's last good words, kept meanwhile in the runtime directory, and
    /// the state directory takes them once it has room.
    @Test func aRestartOnABrokenFileLaysTheFamilysLastEditThoughTheFullDiskRefusedItsCopy() throws {
        let tablet = try tablet("kept-full", at: "2026-06-01T10:00:00Z")
        defer { tablet.remove() }
        tablet.advance(seconds: 1)
        let kept = LastGoodHousehold.path(in: tablet.paths)
        #expect(tablet.text(kept).contains("Lunch"))
        tablet.failStateDisk(ENOSPC)
        let edited = household([Item(id: "soup", label: "Soup at the club", time: "12:30")])
        try tablet.writeHousehold(edited)
        tablet.advance(seconds: 1)
        #expect(!tablet.text(kept).contains("Soup"), "the full disk took the copy")
        tablet.killDaemon()
        try tablet.writeHousehold(Self.broken)
        try tablet.startDaemon()
        let queue = try tablet.queue()
        #expect(queue.pending.map(\.title).contains("Soup at the club"), "\(queue.pending.map(\.title))")
        #expect(!queue.pending.map(\.title).contains("Lunch"), "the household before her family's edit was laid")

        tablet.failStateDisk(nil)
        tablet.advance(seconds: 120)
        #expect(tablet.text(kept).contains("Soup"), "the state directory never took the edit")
        #expect(!FileIO.exists(LastGoodHousehold.unsavedPath(in: tablet.paths)))
    }
}
