// Laying, on the embedded daemon: away, the queue holds exactly the week `daysomectl plan`
// computes from the lay's own start (run in-process on the same household), under one lay number.

import DaysomeCore
import DaysomeDaemon
import DaysomeFiles
import Testing

@Suite("Laying, on the embedded daemon")
struct LayTests {
    // The service manager hears the daemon through sd_notify, here kept by the embedded world:
    // ready once its first decision is made, and the status line systemctl shows after each change.
    @Test func theDaemonTellsItsServiceManagerItIsReadyAndWhatComesNext() throws {
        let tablet = try tablet("ready", at: "2026-06-01T10:00:00Z")
        defer { tablet.remove() }
        let ready = try #require(tablet.serviceStates.first { $0.hasPrefix("READY=1\n") })
        #expect(ready.contains("STATUS=Display away; lay 1; next start 2026-06-01T12:00:00Z Lunch"), "\(ready)")
        try tablet.writeDisplay("foreground")
        #expect(tablet.serviceStates.last?.hasPrefix("STATUS=Display foreground; nothing laid") == true)
        // A restarted daemon says ready again, with the file's word.
        tablet.killDaemon()
        try tablet.startDaemon()
        #expect(tablet.serviceStates.last?.hasPrefix("READY=1\nSTATUS=Display foreground") == true)
    }

    @Test func awayLaysExactlyThePlan() throws {
        let seed = String(decoding: try fixture("households/seed.json"), as: UTF8.self)
        let tablet = try tablet("seed-lay", at: "2026-06-01T10:00:30Z", household: seed)
        defer { tablet.remove() }
        let queue = try tablet.queue()
        let status = try tablet.status()
        let state = try PersistedState(
            decoding: JSONParser.parse(FileIO.read(tablet.paths.stateDirectory + "/lay.json", limit: 1 << 20)))
        let from = try #require(state.lay?.from, "lay.json names no lay")
        let laidUntil = try #require(status.laidUntil)
        #expect(laidUntil.seconds - from.seconds == 7 * 86_400, "laidUntil \(laidUntil) is not from + 7 days")

        let output = tablet.ctl(
            ["plan", "--household", tablet.paths.household, "--from", from.rfc3339, "--json"], withPaths: false)
        #expect(output.status == .success, "\(output)")
        let planned = (try JSONParser.parse(output.stdout).objectValue?["starts"]?.arrayValue ?? []).compactMap {
            $0.objectValue
        }
        let expected = planned.filter { ($0["at"]?.stringValue).flatMap(parseUTC).map { $0 > tablet.now } == true }
        #expect(!expected.isEmpty, "the seed household plans nothing for a week")
        #expect(queue.display == .away)
        #expect(queue.daemonRunning)
        #expect(queue.lay != nil && queue.lay == status.lay)
        #expect(queue.pending.allSatisfy { $0.lay == queue.lay }, "\(queue.pending)")
        #expect(queue.pending.map(\.at.rfc3339) == expected.map { $0["at"]?.stringValue ?? "" })
        #expect(queue.pending.map(\.local) == expected.map { $0["local"]?.stringValue ?? "" })
        #expect(
            queue.pending.map(\.itemIds) == expected.map { ($0["itemIds"]?.arrayValue ?? []).compactMap(\.stringValue) }
        )
        #expect(queue.pending.map(\.title) == expected.map { $0["title"]?.stringValue ?? "" })
    }
}
