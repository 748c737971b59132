// The daemon reads the time only through its clock seam, so a test can step it: the real
// Manager (files, history, status, the log notifier) decides on a clock this test owns, minutes
// and days passing in microseconds. The test plays the event loop's part: it calls what the
// loop's callbacks call (the wheel's timer, a clock jump, the display file) at the instants it
// chooses. The loop's own timers are not driven.

import DaysomeCore
import DaysomeFiles
import Glibc
import SystemdKit
import Testing

@testable import DaysomeDaemon

/// A clock that stands still until the test moves it.
final class SteppedClock: DaemonClock {
    var now: Instant

    init(_ now: Instant) {
        self.now = now
    }

    func realtime() -> UInt64 { UInt64(self.now.seconds) * 1_000_000 }
}

/// Production's peers (Daemon.swift's: a new sd-event loop, the real peers), on `clock`.
func productionPeers(
    _ options: DaemonOptions, environment: [String: String], clock: SteppedClock
) throws
    -> ManagerPeers
{
    var peers = Daemon.peers(on: try EventLoop(), options: options, environment: environment)
    peers.clock = clock
    return peers
}

private let repositoryRoot = "/" + #filePath.split(separator: "/").dropLast(3).joined(separator: "/")

private func at(_ text: String) -> Instant { parseUTC(text)! }

@Suite("The daemon's clock seam")
struct ClockSeamTests {
    /// A daemon on its own files with lunch at 13:00 BST (12:00Z) until 13:45, display away, the
    /// log notifier, and `clock`; started as `run()` starts it, without the loop.
    func startDaemon(_ name: String, clock: SteppedClock) throws -> (Manager, Paths, String) {
        let scratch = repositoryRoot + "/.testrun/clock-\(name)-\(getpid())"
        try FileIO.makeDirectories(scratch + "/config", mode: 0o700)
        let household = scratch + "/config/household.json"
        try FileIO.writeAtomically(
            household,
            """
            { "version": 1, "timeZone": "Europe/London", "settings": { "notifyInOtherApps": true },
              "items": [ { "id": "lunch", "label": "Lunch", "kind": "meal", "time": "13:00", "end": "13:45",
                           "repeat": "daily" } ] }
            """)
        try FileIO.makeDirectories(scratch + "/run/display-app", mode: 0o700)
        let display = scratch + "/run/display-app/display"
        try FileIO.writeAtomically(display, "away\n")
        let arguments = [
            "--household", household, "--display-state", display, "--runtime-dir", scratch + "/run/daysome",
            "--state-dir", scratch + "/state", "--notifier", "log",
        ]
        guard case .run(let options) = try DaemonOptions.parse(arguments, environment: ["HOME": scratch]) else {
            throw SeamTestError("the options did not parse to a run")
        }
        let manager = try Manager(
            options: options, environment: ["HOME": scratch],
            peers: productionPeers(options, environment: ["HOME": scratch], clock: clock))
        try manager.connectNotifier()
        _ = manager.decideStart()
        return (manager, options.paths, scratch)
    }

    func status(_ paths: Paths) throws -> StatusSnapshot {
        try StatusSnapshot(json: JSONParser.parse(FileIO.read(paths.statusFile, limit: 1 << 20)))
    }

    /// Where the loop's wheel timer would fire next.
    func nextDeadline(_ manager: Manager) -> Instant? {
        manager.machine.wheel.nextDeadline.map { Instant(seconds: $0) }
    }

    @Test("The daemon lays, calls, closes and calls late on the time its clock says, not the machine's")
    func everyDecisionTakesTheSeamsTime() throws {
        let clock = SteppedClock(at("2026-06-01T10:00:00Z"))
        let (manager, paths, scratch) = try self.startDaemon("decide", clock: clock)
        defer { _ = system("rm -rf '\(scratch)'") }

        // Laid at the clock's instant, half a year before the machine's own.
        var status = try self.status(paths)
        #expect(status.lay == 1)
        #expect(status.household.loadedAt == at("2026-06-01T10:00:00Z"))
        #expect(status.nextStart == StatusSnapshot.NextStart(at: at("2026-06-01T12:00:00Z"), title: "Lunch"))
        #expect(HistoryFile.read(path: paths.historyFile).map(\.time) == [at("2026-06-01T10:00:00Z")])
        let queue = try QueueSnapshot(json: JSONParser.parse(FileIO.read(paths.queueFile, limit: 1 << 20)))
        #expect(queue.pending.first?.local == "2026-06-01T13:00:00+01:00")
        #expect(queue.pending.count == 7)

        // The loop's wheel timer, at its deadline: the call at its minute.
        #expect(self.nextDeadline(manager) == at("2026-06-01T12:00:00Z"))
        clock.now = at("2026-06-01T12:00:00Z")
        manager.wheelTimerFired()
        #expect(try self.status(paths).daemon?.delivered == 1)

        // Its card leaves at its end.
        #expect(self.nextDeadline(manager) == at("2026-06-01T12:45:00Z"))
        clock.now = at("2026-06-01T12:45:00Z")
        manager.wheelTimerFired()

        // A suspend over the next day's lunch, woken 3 minutes after it (the loop's clock-jump
        // watch): within the grace window, delivered late once (rule 2), and the lay kept.
        clock.now = at("2026-06-02T12:03:00Z")
        manager.handle(.clockChanged(reason: "the clock jumped"))
        status = try self.status(paths)
        #expect(status.lay == 1)
        #expect(status.nextStart?.at == at("2026-06-03T12:00:00Z"))

        let history = HistoryFile.read(path: paths.historyFile).map {
            "\($0.time.rfc3339) \($0.event.rawValue) \($0.lay) \($0.at?.rfc3339 ?? "-")"
        }
        #expect(
            history == [
                "2026-06-01T10:00:00Z laid 1 -",
                "2026-06-01T12:00:00Z delivered 1 2026-06-01T12:00:00Z",
                "2026-06-01T12:45:00Z expired 1 2026-06-01T12:00:00Z",
                "2026-06-02T12:03:00Z delivered 1 2026-06-02T12:00:00Z",
            ], "\(history)")
    }

    @Test("Only the clock seam reads the clock in the daemon")
    func onlyTheSeamReadsTheClock() throws {
        let directory = repositoryRoot + "/Sources/DaysomeDaemon"
        guard let listing = opendir(directory) else { throw SeamTestError("cannot list \(directory)") }
        defer { closedir(listing) }
        var checked = 0
        while let entry = readdir(listing) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name.hasSuffix(".swift"), name != "DaemonClock.swift" else { continue }
            let text = String(decoding: try FileIO.read(directory + "/" + name, limit: 1 << 20), as: UTF8.self)
            for read in ["clock_gettime", "currentInstant(", "gettimeofday", "time(nil)", "Date()", ".now(CLOCK"] {
                #expect(!text.contains(read), "\(name) reads the clock with \(read)")
            }
            checked += 1
        }
        #expect(checked > 10)
    }
}

/// A test's own failure, in a sentence.
struct SeamTestError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
