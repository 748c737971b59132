// Security of the wheel backend's daemon: its directories are created 0700 and links planted in
// them are never followed (a runtime directory another user could write is refused: that is
// DaemonPathsTests', beside daysomed's other refusals), and nothing from a household (labels full
// of shell metacharacters, command substitutions and unit-name-hostile text) ever reaches a shell
// or a command line: the programs the daemon runs (the chime player, the program that brings the
// day back) are recorded with their argv and environment. The same daemon's next call, a label of
// markup, reaches the server whole and is shown escaped (rule 4: only the family's words).

import DaysomeCore
import DaysomeTestSupport
import Glibc
import Testing

/// Labels that would do harm if they ever reached a shell, a command line or a unit name; each
/// holds HOSTILE so that any copy of one is found.
let hostileLabels = [
    "HOSTILE $(touch @MARK@/dollar)", "HOSTILE `touch @MARK@/backtick`", "HOSTILE; touch @MARK@/semicolon #",
    "HOSTILE' \" \\ | & > @MARK@/redirect", "HOSTILE daysome-lay1.timer ../../evil.service %h %n ${HOME} $PATH",
    "HOSTILE\nExecStart=/bin/sh -c 'touch @MARK@/newline'",
]

/// The mode bits of a path (without following a final symlink), or nil.
func modeBits(_ path: String) -> mode_t? {
    var info = stat()
    guard lstat(path, &info) == 0 else { return nil }
    return info.st_mode & 0o7777
}

@Suite(
    "SecurityTests: a private runtime directory, and no household text on a command line (wheel)",
    .serialized, .timeLimit(.minutes(4)))
struct SecurityTests {
    /// The daemon's files, from its first start: its directories are made 0700 and its files
    /// readable by no one else; links planted where its files go are never followed; and a named
    /// pipe renamed over the display state file does not block it.
    // real-process twin of EmbeddedTests.BadInputTests.aSymlinkPlantedAsTheDisplayStateIsRefusedNotFollowed
    @Test
    func theDaemonCreatesItsDirectories0700FollowsNoPlantedLinkAndANamedPipeAsTheDisplayStateDoesNotBlockIt()
        async throws
    {
        let session = try await TestWorld.start([.sessionBus, .notificationServer])
        defer { session.stop() }
        try replaceFile(session.household, try farAwayHousehold())
        #expect(modeBits(session.runtimeDirectory) == nil)
        let driver = try StormDriver(displayState: session.displayState, state: "away")
        try await session.startDaemon()
        #expect(modeBits(session.runtimeDirectory) == 0o700, "runtime directory")
        #expect(modeBits(session.stateDirectory) == 0o700, "state directory")
        #expect(modeBits(session.directory.path + "/display") == 0o700, "display state directory")
        for file in ["queue.json", "status.json", "daemon.lock"] {
            let mode = modeBits(session.runtimeDirectory + "/" + file)
            #expect(
                mode.map { $0 & 0o077 == 0 } == true, "\(file) is readable by others: \(String(mode ?? 0, radix: 8))")
        }

        // Links to a victim planted where the daemon's files go, while it is down.
        try await session.killDaemon()
        let victim = try session.directory.write("victim", "do not touch\n")
        let planted = [
            session.stateDirectory + "/lay.json", session.stateDirectory + "/history.jsonl",
            session.runtimeDirectory + "/queue.json", session.runtimeDirectory + "/status.json",
            session.runtimeDirectory + "/bell.wav",
        ]
        for path in planted {
            try plantSymlink(path, to: victim)
        }
        let daemon = try await session.startDaemon().process
        try await session.waitUntilQueueHoldsThePlan(within: settleBesideParallelTests)
        try driver.write("foreground")
        try await session.waitUntilNothing(within: settleBesideParallelTests)
        try driver.write("away")
        try await session.waitUntilQueueHoldsThePlan(within: settleBesideParallelTests)
        #expect(readFile(victim) == "do not touch\n", "a planted link was followed: \(readFile(victim).prefix(200))")

        // A named pipe as the display state file: still answering, a return is seen at once.
        mkfifo(session.displayState + ".fifo", 0o600)
        rename(session.displayState + ".fifo", session.displayState)
        await pause(0.5)
        try driver.write("foreground")
        try await session.waitUntilNothing(within: settleBesideParallelTests)
        #expect(!daemon.poll(), "daysomed exited: \(session.daemonStderr.suffix(800))")
    }

    @Test func hostileLabelsNeverReachAShellOrTheProgramsTheDaemonRunsAndMarkupReachesTheServerIntactAndEscaped()
        async throws
    {
        let session = try await TestWorld.start([.sessionBus, .notificationServer])
        defer { session.stop() }
        let marks = try session.directory.makeDirectory("marks")
        let log = session.directory.path + "/exec.log"
        // A player and a bring-back program that record how they were run, and nothing else.
        let recorder = try session.directory.write(
            "recorder",
            """
            #!/bin/sh
            { printf 'argv:'; for a in "$0" "$@"; do printf ' [%s]' "$a"; done; printf '\\n'; env; } >> '\(log)'

            """)
        chmod(recorder, 0o700)
        let minute = nextMinute(leaving: 6)
        let time = try clockTime(minute, zone: "UTC")
        var items = hostileLabels.enumerated().map { index, label in
            TestItem(
                id: "hostile-\(index)", label: label.replacing("@MARK@", with: marks),
                detail: label.replacing("@MARK@", with: marks), time: time)
        }
        // Fixtures/households/hostile-labels.json's markup item, a minute later: a call of its own.
        items.append(
            TestItem(
                id: "markup", label: "<b>Fish & chips</b> <i>", detail: "a < b > c & d",
                time: try clockTime(minute + 60, zone: "UTC")))
        var text = householdText(items: items)
        text = try replacingOnce(
            text, "\"notifyInOtherApps\": true", with: "\"notifyInOtherApps\": true, \"bringDayBack\": true")
        try replaceFile(session.household, text)
        let daemon = try await session.startDaemon(arguments: ["--player", recorder, "--display-command", recorder])
            .process
        _ = try await poll("the start at \(rfc3339(minute)) to be laid", timeout: 5) { () -> Bool? in
            (try? await session.pending())?.starts.contains { $0.at == rfc3339(minute) } == true ? true : nil
        }
        await pause(untilWall: Double(minute))
        // The call, its bell and, three seconds later, the day brought back.
        _ = try await poll("the player and the bring-back program to run", timeout: 10) { () -> Bool? in
            readFile(log).split(separator: "\n").filter { $0.hasPrefix("argv:") }.count >= 2 ? true : nil
        }
        let shown = try await poll("the call to be shown", timeout: 5) { () -> [ShownNotification]? in
            _ = try await session.dunstctl(["close-all"])
            let shown = try await session.shownHistory().filter { $0.appName == "Daysome" }
            return shown.isEmpty ? nil : shown
        }
        let recorded = readFile(log)
        let runs = recorded.split(separator: "\n").filter { $0.hasPrefix("argv:") }
        print("[SecurityTests] the daemon ran: \(runs)")
        #expect(!recorded.contains("HOSTILE"), "household text reached a program the daemon runs: \(recorded)")
        #expect(runs.allSatisfy { $0.hasPrefix("argv: [\(recorder)]") }, "\(runs)")
        let leftovers = directoryEntries(marks).map(\.name)
        #expect(leftovers.isEmpty, "a label ran as a command: \(leftovers)")
        // The labels reached the server whole, as text.
        #expect(shown.first?.summary.contains("HOSTILE $(touch") == true, "\(shown)")

        // The markup label at the next minute: dunst gets it literally and shows it escaped.
        try await session.expectQueued(at: minute + 60)
        let planned = try await session.plannedStart(at: minute + 60)
        #expect(planned.itemIds == ["markup"])
        await pause(untilWall: Double(minute + 60))
        _ = try await poll("the markup call to be shown", timeout: 10) {
            try await session.displayedCount() > 0 ? true : nil
        }
        try await session.signal("foreground")
        let markup = try await poll("dunst's history to hold the markup call", timeout: 3) {
            try await session.shownHistory().first { $0.appName == "Daysome" && !$0.summary.contains("HOSTILE") }
        }
        #expect(markup.summary == "<b>Fish & chips</b> <i>")
        let visible = try #require(markup.visibleText, "dunst could not render the markup: \(markup.message)")
        #expect(visible == "<b>Fish & chips</b> <i>\n\(planned.heading)\na < b > c & d", "\(markup.message)")
        #expect(!readFile(log).contains("HOSTILE"), "household text reached a program the daemon runs")
        #expect(!daemon.poll(), "daysomed exited: \(session.daemonStderr)")
    }
}
