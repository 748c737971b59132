// ManualLoop: the loop seam's virtual twin. What the daemon relies on from sd-event holds on it,
// and one scenario written against `Loop` runs the same on both loops.

import DaysomeWorld
import Glibc
import Testing

@testable import SystemdKit

@Suite struct ManualLoopTests {
    let start: UInt64 = 1_796_256_000_000_000  // 2026-12-03T00:00:00Z

    @Test func timersFireAtTheirTimesInOrderAsVirtualTimeAdvances() throws {
        let loop = ManualLoop(realtime: self.start)
        var fired: [(String, UInt64)] = []
        let later = try loop.timer(clock: CLOCK_REALTIME, at: self.start + 3_000_000, accuracy: 1_000, description: "b")
        {
            fired.append(("b", loop.now(CLOCK_REALTIME)))
        }
        let sooner = try loop.timer(
            clock: CLOCK_MONOTONIC, at: loop.now(CLOCK_MONOTONIC) + 1_000_000, accuracy: 1_000, description: "a"
        ) { fired.append(("a", loop.now(CLOCK_REALTIME))) }
        loop.advance(by: 2_000_000)
        #expect(fired.map(\.0) == ["a"])
        loop.advance(by: 60_000_000)
        #expect(fired.map(\.0) == ["a", "b"])
        #expect(fired.map(\.1) == [self.start + 1_000_000, self.start + 3_000_000])
        _ = (later, sooner)
    }

    @Test func aOneshotTimerTurnsItselfOffUntilArmedAgainInPlace() throws {
        let loop = ManualLoop(realtime: self.start)
        var count = 0
        let timer = try loop.timer(clock: CLOCK_REALTIME, at: self.start + 1_000, accuracy: 1_000, description: "t") {
            count += 1
        }
        loop.advance(by: 10_000_000)
        #expect(count == 1)
        try timer.setTime(self.start + 20_000_000)
        try timer.setEnabled(.oneshot)
        loop.advance(by: 5_000_000)
        #expect(count == 1)
        loop.advance(by: 5_000_000)
        #expect(count == 2)
        timer.cancel()
        try? timer.setEnabled(.oneshot)
        loop.advance(by: 3_600_000_000)
        #expect(count == 2)
    }

    @Test func aRealtimeJumpFiresTheClockJumpWatchAndMovesNoMonotonicTimer() throws {
        let loop = ManualLoop(realtime: self.start)
        var jumps = 0
        var monotonicFired = false
        let watch = try loop.clockJumps(description: "clock-jump") { jumps += 1 }
        let timer = try loop.timer(
            clock: CLOCK_MONOTONIC, at: loop.now(CLOCK_MONOTONIC) + 1_000_000, accuracy: 1_000, description: "m"
        ) { monotonicFired = true }
        let monotonic = loop.now(CLOCK_MONOTONIC)
        loop.jumpRealtime(to: self.start + 7_200_000_000)
        #expect(jumps == 1)
        #expect(loop.now(CLOCK_REALTIME) == self.start + 7_200_000_000)
        #expect(loop.now(CLOCK_MONOTONIC) == monotonic)
        #expect(!monotonicFired)
        _ = (watch, timer)
    }

    @Test func aDeferredSourceRunsOnceAtTheNextIterationAndAgainWhenEnabled() throws {
        let loop = ManualLoop(realtime: self.start)
        var runs = 0
        let reload = try loop.deferred(description: "reload") { runs += 1 }
        loop.runPending()
        loop.runPending()
        #expect(runs == 1)
        try reload.setEnabled(.oneshot)
        loop.runPending()
        #expect(runs == 2)
    }

    @Test func inotifyAndPidfdTriggersReachOnlyTheirOwnSources() throws {
        let loop = ManualLoop(realtime: self.start)
        var seen: [String] = []
        let display = try loop.inotify(path: "/run/d", mask: [.closeWrite, .movedTo], description: "display") {
            seen.append("display \($0.name ?? "-")")
        }
        let household = try loop.inotify(path: "/home/h", mask: [.closeWrite], description: "household") {
            seen.append("household \($0.name ?? "-")")
        }
        let pid = try loop.pidfdExit(42, description: "display-pid") { seen.append("exited") }
        loop.changed(path: "/run/d", InotifyEvent(mask: .movedTo, name: "display-state"))
        loop.changed(path: "/run/d", InotifyEvent(mask: .delete, name: "display-state"))
        loop.exited(pidfd: 41)
        loop.exited(pidfd: 42)
        loop.exited(pidfd: 42)
        #expect(seen == ["display display-state", "exited"])
        _ = (display, household, pid)
    }

    /// As sd-event hands the kernel's IN_Q_OVERFLOW to every source of the overflowing instance
    /// (one instance per priority), whatever its mask and directory.
    @Test func anOverflowReachesEveryInotifySourceOfThatPriorityNameless() throws {
        let loop = ManualLoop(realtime: self.start)
        var seen: [String] = []
        let display = try loop.inotify(path: "/run/d", mask: [.movedTo], description: "display") {
            seen.append("display \($0.name ?? "-") \($0.mask.contains(.queueOverflow))")
        }
        try display.setPriority(-10)
        let other = try loop.inotify(path: "/run/other", mask: [.closeWrite], description: "other") {
            seen.append("other \($0.name ?? "-") \($0.mask.contains(.queueOverflow))")
        }
        try other.setPriority(-10)
        let household = try loop.inotify(path: "/home/h", mask: [.closeWrite], description: "household") {
            seen.append("household \($0.name ?? "-")")
        }
        loop.overflowed(path: "/run/d")
        #expect(seen == ["display - true", "other - true"])
        _ = household
    }

    @Test func sourcesReadyTogetherRunByPriorityThenInTheOrderTheyWereAdded() throws {
        let loop = ManualLoop(realtime: self.start)
        var order: [String] = []
        let wheel = try loop.timer(
            clock: CLOCK_REALTIME, at: self.start + 1_000_000, accuracy: 1_000, description: "wheel"
        ) {
            order.append("wheel")
        }
        let display = try loop.timer(
            clock: CLOCK_REALTIME, at: self.start + 1_000_000, accuracy: 1_000, description: "display"
        ) {
            order.append("display")
        }
        // The display's return is seen before a start due in the same iteration.
        try display.setPriority(-10)
        loop.advance(by: 1_000_000)
        #expect(order == ["display", "wheel"])
        _ = wheel
    }

    /// Many timers armed out of order, some moved, some cancelled, some dropped, one turned off,
    /// on both clocks: each fires once at its own time, in time order, ties by priority and then
    /// by the order they were added in (the loop keeps them in heaps, never sorting them all).
    @Test func manyTimersFireInTimeOrderThenPriorityThenTheOrderAddedWhateverWasChanged() throws {
        let loop = ManualLoop(realtime: self.start)
        var fired: [(name: Int, at: UInt64)] = []
        var timers: [Int: any LoopSource] = [:]
        var expected: [(name: Int, at: UInt64, priority: Int64)] = []
        var random: UInt64 = 0x2545_f491_4f6c_dd1d
        func next(_ bound: UInt64) -> UInt64 {
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return (random >> 33) % bound
        }
        for name in 0..<300 {
            let realtime = name % 2 == 0
            let clock = realtime ? CLOCK_REALTIME : CLOCK_MONOTONIC
            // Whole seconds, so many share a time.
            let offset = (1 + next(120)) * 1_000_000
            let timer = try loop.timer(
                clock: clock, at: loop.now(clock) + offset, accuracy: 1, description: "\(name)"
            ) { fired.append((name, loop.now(CLOCK_MONOTONIC))) }
            let priority = Int64(next(3)) - 1
            try timer.setPriority(priority)
            var at = loop.now(CLOCK_MONOTONIC) + offset
            switch name % 10 {
            case 3:
                let moved = (1 + next(120)) * 1_000_000
                try timer.setTime(loop.now(clock) + moved)
                at = loop.now(CLOCK_MONOTONIC) + moved
            case 5: timer.cancel()
            case 7: try timer.setEnabled(.off)
            default: break
            }
            if name % 10 != 9 { timers[name] = timer }
            if ![5, 7, 9].contains(name % 10) { expected.append((name, at, priority)) }
        }
        loop.advance(by: 200_000_000)
        expected.sort { ($0.at, $0.priority, $0.name) < ($1.at, $1.priority, $1.name) }
        #expect(fired.map(\.name) == expected.map(\.name))
        #expect(fired.map(\.at) == expected.map(\.at))
        #expect(loop.liveSources == timers.count - 30)
        _ = timers
    }

    /// One scenario written against `Loop`: a deferred reload, then a timer 20 ms on that stops.
    static func scenario(
        _ loop: any Loop, stop: @escaping () -> Void
    ) throws -> (log: () -> [String], keep: [AnyObject]) {
        final class Log { var lines: [String] = [] }
        let log = Log()
        let reload = try loop.deferred(description: "reload") { log.lines.append("reload") }
        let timer = try loop.timer(
            clock: CLOCK_MONOTONIC, at: loop.now(CLOCK_MONOTONIC) + 20_000, accuracy: 1_000, description: "wheel"
        ) {
            log.lines.append("wheel")
            stop()
        }
        return ({ log.lines }, [reload, timer])
    }

    @Test func oneScenarioRunsTheSameOnSdEventAndOnTheManualLoop() throws {
        let real = try EventLoop()
        let (realLog, realKeep) = try Self.scenario(real) { try? real.exit(code: 0) }
        #expect(try runLoop(real) == 0)
        let manual = ManualLoop(realtime: self.start)
        let (manualLog, manualKeep) = try Self.scenario(manual) {}
        manual.advance(by: 20_000)
        #expect(realLog() == ["reload", "wheel"])
        #expect(manualLog() == realLog())
        _ = (realKeep, manualKeep)
    }
}
