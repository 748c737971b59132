// EventSource: lifetime (drop, cancel, floating), enablement and descriptions.

import Glibc
import Testing

@testable import SystemdKit

/// Something a handler can capture, to see when the handler box is released.
private final class Token {}

@Suite struct EventSourceTests {
    @Test func droppingTheSourceFreesItAndItsHandler() throws {
        let loop = try EventLoop()
        weak var weakToken: Token?
        var ran = false
        do {
            let token = Token()
            weakToken = token
            let source = try loop.addDefer { _ in
                _ = token
                ran = true
            }
            _ = source
        }
        #expect(weakToken == nil, "the destroy callback must release the handler box")
        let stop = try loop.addTimer(clock: CLOCK_MONOTONIC, after: 20_000) { _ in try? loop.exit(code: 0) }
        #expect(try runLoop(loop) == 0)
        #expect(!ran)
        _ = stop
    }

    @Test func cancelledSourceNeverDispatches() throws {
        let loop = try EventLoop()
        var ran = false
        let timer = try loop.addTimer(clock: CLOCK_MONOTONIC, after: 1_000) { _ in ran = true }
        timer.cancel()
        timer.cancel()
        #expect(timer.isCancelled)
        let stop = try loop.addTimer(clock: CLOCK_MONOTONIC, after: 50_000) { _ in try? loop.exit(code: 0) }
        #expect(try runLoop(loop) == 0)
        #expect(!ran)
        _ = stop
    }

    @Test func floatingSourceOutlivesItsObject() throws {
        let loop = try EventLoop()
        var ran = false
        // A floating source's handler must not capture the loop strongly: the loop owns it.
        try loop.addDefer { [weak loop] _ in
            ran = true
            try? loop?.exit(code: 3)
        }.setFloating(true)
        #expect(try runLoop(loop) == 3)
        #expect(ran)
    }

    @Test func disabledSourceWaitsUntilEnabled() throws {
        let loop = try EventLoop()
        var order: [String] = []
        let late = try loop.addDefer { _ in
            order.append("late")
            try? loop.exit(code: 0)
        }
        try late.setEnabled(.off)
        #expect(try late.enabled == .off)
        let first = try loop.addDefer { _ in
            order.append("first")
            try? late.setEnabled(.oneshot)
        }
        #expect(try runLoop(loop) == 0)
        #expect(order == ["first", "late"])
        _ = first
    }

    @Test func timerCanBeMovedBeforeItFires() throws {
        let loop = try EventLoop()
        let start = loop.now(CLOCK_MONOTONIC)
        var firedAt: UInt64 = 0
        let timer = try loop.addTimer(clock: CLOCK_MONOTONIC, after: 5_000_000) { _ in
            firedAt = loop.now(CLOCK_MONOTONIC)
            try? loop.exit(code: 0)
        }
        try timer.setTimeRelative(30_000)
        try timer.setAccuracy(1)
        #expect(try runLoop(loop) == 0)
        #expect(firedAt >= start + 30_000 && firedAt < start + 1_000_000)
    }

    @Test func descriptionRoundTrips() throws {
        let loop = try EventLoop()
        let source = try loop.addDefer { _ in }
        #expect(try source.sourceDescription == nil)
        try source.setDescription("state-file-watch")
        #expect(try source.sourceDescription == "state-file-watch")
    }

    @Test func handlerGetsAnObjectForTheSameSource() throws {
        let loop = try EventLoop()
        var seen: String?
        let source = try loop.addDefer(description: "same") { source in
            seen = try? source.sourceDescription
            try? loop.exit(code: 0)
        }
        #expect(try runLoop(loop) == 0)
        #expect(seen == "same")
        _ = source
    }
}
