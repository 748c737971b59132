// ClockJumpWatch: setting CLOCK_REALTIME to its own current value (needs CAP_SYS_TIME; these
// tests run as root) is enough to cancel a TFD_TIMER_CANCEL_ON_SET timerfd.

import DaysomeTestSupport
import Glibc
import Testing

@testable import SystemdKit

/// Steps the realtime clock by (almost exactly) nothing: reads it and sets it again.
private func stepClockByZero() throws {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    guard clock_settime(CLOCK_REALTIME, &now) == 0 else {
        throw HarnessError("clock_settime needs CAP_SYS_TIME: \(Errno(rawValue: errno))")
    }
}

// Serialized: three of these tests step the clock, and the quiet one must not count its siblings.
@Suite(.serialized) struct ClockJumpWatchTests {
    @Test func settingTheClockCallsTheHandlerEachTime() throws {
        let loop = try EventLoop()
        var jumps = 0
        var stepError: (any Error)?
        let watch = try ClockJumpWatch(loop: loop) {
            jumps += 1
            if jumps == 2 {
                try? loop.exit(code: 0)
                return
            }
            // The watch was re-armed before this call: a second jump must be seen too.
            do { try stepClockByZero() } catch { stepError = error }
        }
        let kick = try loop.addDefer { _ in
            do { try stepClockByZero() } catch { stepError = error }
        }
        #expect(try runLoop(loop) == 0)
        #expect(stepError == nil)
        #expect(jumps == 2)
        _ = (watch, kick)
    }

    @Test func quietClockDoesNotCallTheHandler() throws {
        let loop = try EventLoop()
        var jumps = 0
        let watch = try ClockJumpWatch(loop: loop) { jumps += 1 }
        let stop = try loop.addTimer(clock: CLOCK_MONOTONIC, after: 100_000) { _ in try? loop.exit(code: 0) }
        #expect(try runLoop(loop) == 0)
        // Another test may step the clock meanwhile; tolerate that, but no spurious storm.
        #expect(jumps <= 2)
        _ = (watch, stop)
    }

    @Test func cancelledWatchStaysQuiet() throws {
        let loop = try EventLoop()
        var jumps = 0
        let watch = try ClockJumpWatch(loop: loop) { jumps += 1 }
        watch.cancel()
        let kick = try loop.addDefer { _ in try? stepClockByZero() }
        let stop = try loop.addTimer(clock: CLOCK_MONOTONIC, after: 50_000) { _ in try? loop.exit(code: 0) }
        #expect(try runLoop(loop) == 0)
        #expect(jumps == 0)
        _ = (kick, stop)
    }
}
