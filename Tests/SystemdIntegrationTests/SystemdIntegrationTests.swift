// The systemd backend against a real `systemd --user`: each test starts its own user manager
// (and, where a call must be seen, Xvfb and dunst on the manager's own bus), runs the real
// daysomed with `--backend systemd`, and reads what the manager itself holds over its D-Bus API.
// One user manager at a time: the suite is serialized.

import DaysomeCore
import DaysomeTestSupport
import Glibc
import Testing

@Suite("daysomed's systemd backend against a real systemd --user", .serialized, .timeLimit(.minutes(3)))
struct SystemdIntegrationTests {
    // MARK: Laying

    /// The lay, then two things a carer does with it on the same manager: `pending` while the
    /// daemon is down lists the manager's timers, and a daemon switched back to the wheel stops
    /// every timer the systemd-backend daemon left. Then, on the same manager and dunst, a real
    /// start at the next minute, laid as the manager's timer, is shown within a second of it; and
    /// after the session bus restarts under the daemon, calls reach the server again.
    // real-process twin of EmbeddedTests.LayTests.awayLaysExactlyThePlan
    @Test
    func theSeedsLayIsExactlyThePlanHeldWhileTheDaemonIsDownAndARealStartAtTheNextMinuteIsDeliveredWithinASecond()
        async throws
    {
        let session = try await TestWorld.start([.userManager, .notificationServer], daemon: .systemdBackend)
        defer { session.stop() }
        try replaceFile(session.household, try fixtureText("seed.json"))
        try await session.startDaemon()

        let (found, took) = try await session.waitUntilManagerHoldsThePlan(within: 5)
        print("[SystemdIntegrationTests] lay \(found.lay) held by the manager \(milliseconds(took)) ms after start-up")
        let planned = try await session.plannedInstants(from: found.from)
        #expect(!planned.isEmpty, "the seed household plans nothing for a week")
        // A lay made at start-up keeps every entry, even one that has elapsed since: all of the plan.
        #expect(!found.comparedFutureOnly)
        #expect(found.instants.sorted() == planned.sorted())
        #expect(Set(found.instants).count == found.instants.count, "duplicate entries")
        // One timer for one lay: its first part, or (after a clock step, when the daemon sends the
        // same lay again) the part that replaced it.
        #expect(found.timers.count == 1, "one timer for one lay: \(found.timers.map(\.name))")
        let handle = found.timers.first?.name ?? ""
        let resent = session.daemonStderr.contains("the clock jumped")
        #expect(
            handle == "daysome-lay\(found.lay).timer" || (resent && handle.hasPrefix("daysome-lay\(found.lay)-")),
            "\(handle); daysomed: \(session.daemonStderr)")
        for timer in found.timers {
            #expect(timer.accuracyUSec == 1_000_000, "\(timer.name): AccuracyUSec")
            #expect(timer.remainAfterElapse == false, "\(timer.name): RemainAfterElapse")
            #expect(timer.persistent == false, "\(timer.name): Persistent")
            // The manager computed each entry's next elapse at exactly its first planned instant ahead.
            for (spec, next) in zip(timer.specs, timer.nextElapses) {
                #expect(
                    isTheNextElapse(next, of: spec, readBetween: found.readBetween.0, and: found.readBetween.1),
                    "\(timer.name): \(spec) elapses at \(next)")
            }
        }

        // `pending` reads the same starts back from the manager, joined with the lay record.
        let pending = try await session.ctlJSON(["pending", "--json"] + session.daemonPaths)
        let queued = (pending["pending"]?.arrayValue ?? []).compactMap { $0.objectValue }
        let ahead = planned.filter { (seconds(of: $0) ?? 0) > Int64(wallSeconds()) + 1 }
        #expect(pending["backend"]?.stringValue == "systemd")
        #expect(pending["daemonRunning"]?.boolValue == true)
        let queuedInstants = Set(queued.compactMap { $0["at"]?.stringValue })
        #expect(queuedInstants.isSuperset(of: ahead), "pending lacks \(Set(ahead).subtracting(queuedInstants))")
        let handles = Set(queued.compactMap { $0["handle"]?.stringValue })
        #expect(handles.count == 1 && handles.allSatisfy { $0.hasPrefix("daysome-lay\(found.lay)") }, "\(handles)")
        #expect(queued.allSatisfy { $0["title"]?.stringValue?.hasPrefix("(") == false }, "\(queued.prefix(3))")

        // The daemon is killed: `pending` lists the timers the manager still holds.
        try await session.killDaemon()
        let down = try await session.ctl(["pending", "--json"] + session.daemonPaths)
        #expect(down.status == 0, "\(down)")
        let whileDown = try #require((try? JSONParser.parse(down.stdout))?.objectValue, "\(down)")
        #expect(whileDown["daemonRunning"]?.boolValue == false)
        // Entries about to elapse may or may not be listed: compare those clearly ahead.
        let soon = Int64(wallSeconds()) + 2
        let listed = (whileDown["pending"]?.arrayValue ?? []).compactMap { $0.objectValue?["at"]?.stringValue }
        #expect(
            Set(listed.filter { (seconds(of: $0) ?? 0) > soon })
                == Set(found.instants.filter { (seconds(of: $0) ?? 0) > soon }))
        let raw = try await session.ctl(["pending", "--raw"] + session.daemonPaths)
        #expect(raw.status == 0, "\(raw)")
        #expect(raw.stdout.contains("daysome-lay\(found.lay).timer"), "\(raw)")
        #expect(!(try await session.daysomeUnits("daysome-*.timer")).isEmpty, "the killed daemon's timers are gone")

        // The carer switches the backend back to the embedded default: the wheel stops them all.
        let started = monotonicSeconds()
        try await session.startDaemon(arguments: ["--backend", "wheel"])
        let left = try await poll("the manager to hold no daysome- unit", timeout: 5, interval: 0.05) {
            () -> Bool? in
            try await session.daysomeUnits().isEmpty ? true : nil
        }
        print(
            "[SystemdIntegrationTests] the wheel stopped lay \(found.lay)'s timers "
                + "\(Int((monotonicSeconds() - started) * 1_000)) ms after its start (\(left))")
        #expect(try await session.pending().lay != nil, "the wheel laid nothing")

        // A real start at the next minute, on a systemd-backend daemon again. The seed's daemons
        // posted nothing (the log notifier): dunst has shown nothing yet.
        try await session.killDaemon()
        try await self.aRealStartAtTheNextMinuteIsDeliveredWithinASecond(session)
    }

    /// A real start at the next minute laid as the manager's timer: shown within a second of it,
    /// the manager's fire finds it made; then the session bus restarts under the daemon, and a
    /// call reaches the server again.
    private func aRealStartAtTheNextMinuteIsDeliveredWithinASecond(_ session: TestWorld) async throws {
        let minute = nextMinute(leaving: 5)
        try replaceFile(
            session.household,
            oneItemHousehold(label: "Soup time", detail: "Soup and a roll", time: utcClockTime(minute)))
        let daemon = try await session.startDaemon(notifier: "freedesktop")
        let (found, _) = try await session.waitUntilManagerHoldsThePlan(within: 5)
        #expect(found.instants.contains(rfc3339(minute)))
        guard wallSeconds() < Double(minute) - 0.5 else {
            throw HarnessError("the daemon laid \(rfc3339(minute)) only \(wallSeconds() - Double(minute)) s before it")
        }
        #expect(try await session.displayedCount() == 0)

        let lateness = try #require(
            try await session.firstShown(after: minute),
            "nothing shown by \(rfc3339(minute)) + 10 s: \(session.daemonStderr)")
        print(
            "[SystemdIntegrationTests] \(rfc3339(minute)) shown by dunst \(milliseconds(lateness)) ms after its minute")
        #expect(lateness >= 0, "shown before its minute")
        #expect(lateness < 1, "shown \(lateness) s after its minute")
        // The daemon called at the minute on its own deadline; the manager's timer, the week's
        // keeper and the backstop, still ran its `daysomectl fire` and found the call made.
        _ = try await poll("the manager's fire to reach the daemon", timeout: 3) {
            daemon.stderr.contains("A timer of lay \(found.lay) fired: its start was already delivered")
                ? true : nil
        }
        // A fire by hand says so too, and shows nothing twice.
        let again = try await session.ctl([
            "fire", "--lay", String(found.lay), "--runtime-dir", session.runtimeDirectory,
        ])
        #expect(again.stdout.contains("already delivered at its minute (\(rfc3339(minute)))"), "\(again)")

        let history = try await session.history()
        #expect(
            history.filter { $0.event == "delivered" && $0.at == rfc3339(minute) && $0.lay == found.lay }.count == 1,
            "\(history)")
        #expect(try await session.dunstctl(["close-all"]).status == 0)
        let summaries = try await poll("dunst's history to hold the call", timeout: 3) {
            let summaries = try await session.closedSummaries()
            return summaries.isEmpty ? nil : summaries
        }
        #expect(summaries == ["Soup time"])

        // The manager keeps the elapsed entry in TimersCalendar; `pending` lists only those ahead.
        let pending = try await session.ctlJSON(["pending", "--json"] + session.daemonPaths)
        let queued = (pending["pending"]?.arrayValue ?? []).compactMap { $0.objectValue?["at"]?.stringValue }
        #expect(!queued.contains(rfc3339(minute)), "a start that fired is still listed as pending: \(queued)")
        #expect(queued.contains(rfc3339(minute + 86_400)), "\(queued)")

        // The session bus restarts: the daemon reconnects and a `try` reaches dunst again.
        #expect(try await session.status().canDeliver == true)
        try await session.restartSessionBus()
        // The server's name comes from an asynchronous probe a moment after it is known to run.
        let status = try await poll("status to say the daemon can deliver again", timeout: 10) { () -> DaemonStatus? in
            let status = try await session.status()
            return status.canDeliver == true
                && status.notificationServer.name != nil ? status : nil
        }
        #expect(status.notificationServer.name == "dunst", "\(status)")
        #expect(daemon.stderr.contains("Reconnected to the session bus"), "\(daemon.stderr)")
        let sample = try await session.ctl(["try", "--runtime-dir", session.runtimeDirectory])
        #expect(sample.status == 0 && sample.stdout.contains("a sample call is shown"), "\(sample)")
        _ = try await poll("dunst to show the sample call", timeout: 3) {
            try await session.displayedCount() == 1 ? true : nil
        }
        #expect(try await session.status().running == true)
    }

    // MARK: Rule 1: a return stops every timer

    @Test func aReturnStopsEveryDaysomeTimerAlsoDuringALayOrATopUp() async throws {
        let session = try await TestWorld.start(.userManager, daemon: .systemdBackend)
        defer { session.stop() }
        let seed = try fixtureText("seed.json")
        try replaceFile(session.household, seed)
        try await session.startDaemon()
        _ = try await session.waitUntilManagerHoldsThePlan(within: 5)
        #expect(try await session.listedTimers().count == 1)

        // A return with the week laid: `systemctl --user list-timers` lists none within a second.
        let signalled = monotonicSeconds()
        try await session.signal("foreground")
        let took = try await poll("list-timers to list no daysome- timer", timeout: 1, interval: 0.01) {
            try await session.listedTimers().isEmpty ? monotonicSeconds() - signalled : nil
        }
        print("[SystemdIntegrationTests] a return left no daysome- timer after \(milliseconds(took)) ms")
        _ = try await session.waitUntilManagerHoldsNothing(within: 1)
        let laidBeforeTheFlips = try await session.history().filter { $0.event == "laid" }.count

        // A return right behind an away: the lay's StartTransientUnit may still be in flight.
        for _ in 0..<20 {
            try await session.signal("away")
            try await session.signal("foreground")
        }
        let flips = try await session.waitUntilManagerHoldsNothing(within: 2)
        try await expectNoTimerFor(0.5, session)

        // A return right behind a household change while away: the stop of the old lay and the
        // new lay are both in flight when the return arrives.
        try await session.signal("away")
        _ = try await session.waitUntilManagerHoldsThePlan(within: 5)
        for round in 0..<10 {
            try replaceFile(session.household, try replacingOnce(seed, "\"Coffee\"", with: "\"Coffee \(round)\""))
            try await session.signal("foreground")
            try await session.signal("away")
        }
        try await session.signal("foreground")
        let changes = try await session.waitUntilManagerHoldsNothing(within: 2)
        try await expectNoTimerFor(0.5, session)
        let history = try await session.history()
        print(
            "[SystemdIntegrationTests] after 20 flips nothing held in \(milliseconds(flips)) ms; after 10 re-lays "
                + "in \(milliseconds(changes)) ms; \(history.filter { $0.event == "laid" }.count) lays in all")
        #expect(
            history.filter { $0.event == "laid" }.count - laidBeforeTheFlips >= 21,
            "the flips laid nothing: \(session.daemonStderr)")
    }
}

/// Writes systemd/daysomed.service into the session's user unit directory, running the built
/// daysomed on `household` with the systemd backend and the log notifier; returns the directory.
/// Installs the shipped unit with its ExecStart pointed at the built daemon (and a household path,
/// or the default one when nil).
/// With `madeByTmpfiles`, the state directory is left to the package's user-tmpfiles.d entry,
/// installed where this user's manager reads it, as a user whose manager first starts after the
/// install meets it; otherwise it is made here, as that entry would have.
func installUnit(_ session: TestWorld, household: String?, madeByTmpfiles: Bool = false) throws -> String {
    let original = readFile(packageRoot() + "/systemd/daysomed.service")
    let lines = original.split(separator: "\n", omittingEmptySubsequences: false)
    #expect(lines.filter { $0.hasPrefix("ExecStart=") }.count == 1, "one ExecStart= in the unit")
    let unit = lines.map { line in
        line.hasPrefix("ExecStart=")
            ? "ExecStart=\(session.daysomed) --notifier log"
                + (household.map { " --household \($0)" } ?? "") + " --backend systemd"
            : String(line)
    }.joined(separator: "\n")
    let unitDirectory = session.configHome + "/systemd/user"
    try session.directory.makeDirectory("home/.config/systemd")
    try session.directory.makeDirectory("home/.config/systemd/user")
    try writeFile(unitDirectory + "/daysomed.service", unit)
    if madeByTmpfiles {
        try session.directory.makeDirectory("home/.config/user-tmpfiles.d")
        try writeFile(
            session.configHome + "/user-tmpfiles.d/daysome.conf",
            readFile(packageRoot() + "/systemd/daysome-tmpfiles.conf"))
        return unitDirectory
    }
    // What the package's user-tmpfiles.d entry makes when a real user manager starts.
    try session.directory.makeDirectory("home/.local")
    try session.directory.makeDirectory("home/.local/state")
    try session.directory.makeDirectory("home/.local/state/daysome")
    return unitDirectory
}

/// The lay the unit's daemon recorded in its default state directory.
func unitLayRecord(_ session: TestWorld) -> LayRecordView? {
    let text = readFile(session.home + "/.local/state/daysome/lay.json")
    guard let lay = (try? JSONParser.parse(text))?.objectValue?["lay"]?.objectValue,
        let number = lay["number"]?.doubleValue, let from = lay["from"]?.stringValue
    else { return nil }
    return LayRecordView(number: Int(number), from: from)
}

/// Fails if the manager holds a daysome- timer at any moment during the next `seconds`.
func expectNoTimerFor(_ seconds: Double, _ session: TestWorld) async throws {
    let end = monotonicSeconds() + seconds
    repeat {
        let units = try await session.daysomeUnits("daysome-*.timer")
        guard units.isEmpty else {
            throw HarnessError("the manager holds \(units) again: \(session.daemonStderr.suffix(2_000))")
        }
        await pause(0.05)
    } while monotonicSeconds() < end
}
