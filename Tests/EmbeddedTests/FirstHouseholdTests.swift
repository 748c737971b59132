// A first boot, on the embedded daemon: the household's directory does not exist yet (the app
// has not run), the daemon says so in status and watches the nearest directory that does, and
// lays the moment the app writes its first household.

import DaysomeCore
import DaysomeDaemon
import Glibc
import Testing

@Suite("The first household, on the embedded daemon")
struct FirstHouseholdTests {
    @Test func aMissingHouseholdDirectoryIsWatchedAndLaidTheMomentTheAppWritesIt() throws {
        let tablet = try tablet("first-boot", at: "2026-06-01T10:00:00Z", household: nil, start: false)
        defer { tablet.remove() }
        let directory = tablet.root + "/config"
        _ = system("rm -rf '\(directory)'")
        try tablet.startDaemon()
        let errors = try tablet.status().household.errors
        #expect(
            errors.first?.file == tablet.paths.household && errors.first?.message.contains("No such file") == true,
            "\(errors)")
        #expect(try tablet.queue().lay == nil)
        #expect(!tablet.logged("does not exist yet").isEmpty, "\(tablet.log.map(\.message))")

        // The display app runs for the first time: it makes its directory and writes its household.
        try tablet.makeDirectory(directory)
        #expect(try tablet.queue().lay == nil)
        try tablet.writeHousehold(lunchAndTea)
        let queue = try tablet.queue()
        #expect(queue.lay != nil && !queue.pending.isEmpty, "not laid the moment the household appeared: \(queue)")
        #expect(try tablet.status().household.errors.isEmpty)
        #expect(tablet.exitCode == nil)
    }
}
