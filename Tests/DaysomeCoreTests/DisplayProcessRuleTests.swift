// The display-pid rule on times the tests choose: a `foreground pid=N` line counts while N lives,
// and once N has exited a line written before that exit stays away even when N is reused.

import DaysomeCore
import Testing

/// Nanoseconds of a made-up wall clock: `second(3)` is 3 s after its epoch.
private func second(_ value: Double) -> Int64 { Int64(value * 1_000_000_000) }

private let foreground42 = DisplayStateLine(state: .foreground, pid: 42)

/// A rule that read `foreground pid=42` written at 1 s, and found 42 running.
private func watching42() -> DisplayProcessRule {
    var rule = DisplayProcessRule()
    _ = rule.read(foreground42, writtenAt: second(1))
    _ = rule.found(.running, 42, at: second(1))
    return rule
}

@Suite struct DisplayProcessRuleTests {
    @Test func aForegroundLineWithALivePidCountsAndItsProcessIsWatched() {
        var rule = DisplayProcessRule()
        #expect(rule.read(foreground42, writtenAt: second(1)) == .lookAt(42))
        #expect(rule.found(.running, 42, at: second(1)) == (.foreground, nil))
        #expect(rule.watched == 42)
        // Read again (the file touched): decided at once, the watch kept.
        #expect(rule.read(foreground42, writtenAt: second(2)) == .decided(.foreground, note: nil))
        #expect(rule.watched == 42)
    }

    @Test func theDisplaysProcessExitingInTheForegroundMakesTheDisplayAway() {
        var rule = watching42()
        let note = rule.watchedExited(42, at: second(5), last: foreground42)
        #expect(note?.contains("exited in the foreground") == true)
        #expect(rule.watched == nil)
    }

    @Test func aProcessExitingAfterTheDisplayWroteAwayChangesNothing() {
        var rule = watching42()
        #expect(rule.read(DisplayStateLine(state: .away, pid: 42), writtenAt: second(2)) == .decided(.away, note: nil))
        #expect(rule.watched == nil)
        #expect(rule.watchedExited(42, at: second(3), last: DisplayStateLine(state: .away, pid: 42)) == nil)
    }

    @Test func aLineLeftByACrashedDisplayStaysAwayWhenItsPidIsReused() {
        var rule = watching42()
        _ = rule.watchedExited(42, at: second(5), last: foreground42)
        // Another process takes 42; the file, unchanged since 1 s, is read again (a restart of
        // the daemon's watch, an inotify event): away, and no process is looked at.
        guard case .decided(.away, let note) = rule.read(foreground42, writtenAt: second(1)) else {
            Issue.record("a line written before its process exited was not decided away")
            return
        }
        #expect(note?.contains("exited earlier") == true)
        #expect(rule.watched == nil)
    }

    @Test func aLineWrittenAfterTheExitIsTheDisplaysNewWordEvenWithTheSamePid() {
        var rule = watching42()
        _ = rule.watchedExited(42, at: second(5), last: foreground42)
        #expect(rule.read(foreground42, writtenAt: second(5.000_001)) == .lookAt(42))
        #expect(rule.found(.running, 42, at: second(6)) == (.foreground, nil))
        #expect(rule.exited.isEmpty)
    }

    @Test func theNewestExitOfAPidDecides() {
        var rule = DisplayProcessRule()
        _ = rule.found(.exited, 42, at: second(1))
        _ = rule.found(.exited, 42, at: second(9))
        // Written between the two exits: still before the newest, so away.
        #expect(
            rule.read(foreground42, writtenAt: second(5))
                == .decided(.away, note: "The display's process 42 exited earlier; the display is away"))
    }

    @Test func aZombieOrAMissingProcessIsAway() {
        var rule = DisplayProcessRule()
        _ = rule.read(foreground42, writtenAt: second(1))
        #expect(rule.found(.exited, 42, at: second(1)).0 == .away)
        #expect(rule.exited == [.init(pid: 42, at: second(1))])
        _ = rule.read(DisplayStateLine(state: .foreground, pid: 7), writtenAt: second(2))
        let (state, note) = rule.found(.gone("No such process"), 7, at: second(2))
        #expect(state == .away)
        #expect(note == "The display's process 7 is gone (No such process); the display is away")
        #expect(rule.watched == nil)
    }

    @Test func aFileWhoseTimeCannotBeToldKeepsAnExitedPidAway() {
        var rule = DisplayProcessRule()
        _ = rule.found(.exited, 42, at: second(1))
        #expect(
            rule.read(foreground42, writtenAt: nil)
                == .decided(.away, note: "The display's process 42 exited earlier; the display is away"))
    }

    @Test func aLineWithoutAPidIsTakenAsItSaysAndDropsTheWatch() {
        var rule = watching42()
        #expect(
            rule.read(DisplayStateLine(state: .foreground), writtenAt: second(2)) == .decided(.foreground, note: nil))
        #expect(rule.watched == nil)
    }

    @Test func onlyTheNewestExitsAreRemembered() {
        var rule = DisplayProcessRule()
        for pid in 1...Int32(DisplayProcessRule.remembered + 1) {
            _ = rule.found(.exited, pid, at: second(Double(pid)))
        }
        #expect(rule.exited.count == DisplayProcessRule.remembered)
        #expect(rule.exited.first?.pid == 2)
        // The forgotten pid is looked at again, as any new pid.
        #expect(rule.read(DisplayStateLine(state: .foreground, pid: 1), writtenAt: second(0)) == .lookAt(1))
    }

    @Test func aRestartedDaemonRemembersTheExitsItsPredecessorKeptAndSkipsATornLine() {
        var before = watching42()
        _ = before.watchedExited(42, at: second(5), last: DisplayStateLine(state: .foreground, pid: 42))
        _ = before.found(.exited, 7, at: second(6))
        let kept = before.exitsText + "43 12\n99\n-1 4\nx y\n"
        var after = DisplayProcessRule(remembering: DisplayProcessRule.exits(fromText: kept))
        #expect(after.exited.map(\.pid) == [42, 7, 43])
        // The line the crashed display left, read by the new daemon while another process has 42.
        #expect(
            after.read(DisplayStateLine(state: .foreground, pid: 42), writtenAt: second(1))
                == .decided(.away, note: "The display's process 42 exited earlier; the display is away"))
    }

    /// The display crashed (its line left), the wall clock stepped back 108 minutes, and the
    /// display started again with the same pid: its new line is older by the clock than the exit.
    /// Found by the simulator (embedded seed 1801400000150).
    @Test(
        "A line the display writes after its exit is its new word though the clock stepped back between, and the crash's own line stays away"
    )
    func aNewLineAfterAClockStepBackIsTheDisplaysNewWord() {
        let crashed = DisplayFileStamp(inode: 10, modified: second(100))
        var rule = DisplayProcessRule()
        _ = rule.read(foreground42, writtenAt: crashed.modified, file: crashed)
        _ = rule.found(.running, 42, at: second(100))
        _ = rule.watchedExited(42, at: second(160), last: foreground42, file: crashed)
        // The crash's own line, read again after the step (a restart, a program closing the file
        // unwritten): the same file, away.
        #expect(rule.read(foreground42, writtenAt: crashed.modified, file: crashed).isAway)
        // The relaunched display's line: a new file, written "before" the exit by the stepped clock.
        let relaunched = DisplayFileStamp(inode: 11, modified: second(160 - 6_480))
        #expect(rule.read(foreground42, writtenAt: relaunched.modified, file: relaunched) == .lookAt(42))
        // Kept across a restart in the same boot, the stamp still tells them apart.
        var kept = DisplayProcessRule()
        _ = kept.watchedExited(42, at: second(160), last: foreground42, file: crashed)
        var after = DisplayProcessRule(remembering: DisplayProcessRule.exits(fromText: kept.exitsText))
        #expect(after.exited.first?.file == crashed)
        #expect(after.read(foreground42, writtenAt: crashed.modified, file: crashed).isAway)
        #expect(after.read(foreground42, writtenAt: relaunched.modified, file: relaunched) == .lookAt(42))
    }
}

extension DisplayProcessRule.Reading {
    fileprivate var isAway: Bool {
        if case .decided(.away, _) = self { return true }
        return false
    }
}
