// The daemon's retries (a state write a full disk refused, a bus peer that went away) wait one
// second, doubling up to their longest: quick after a short fault, never a busy loop after a long one.

import DaysomeCore
import Testing

@Suite struct RetryBackoffTests {
    /// The delays, in whole seconds, before each of `count` attempts in a row.
    func seconds(_ backoff: RetryBackoff, count: Int) -> [UInt64] {
        var backoff = backoff
        return (0..<count).map { _ in
            defer { backoff.attempted() }
            return backoff.delay / 1_000_000
        }
    }

    @Test func aStateWriteIsRetriedAfterOneSecondThenDoublingUpToAMinute() {
        let backoff = RetryBackoff(first: 1_000_000, longest: 60_000_000)
        #expect(self.seconds(backoff, count: 9) == [1, 2, 4, 8, 16, 32, 60, 60, 60])
    }

    @Test func aReconnectWaitsOneSecondThenDoublingUpToFive() {
        let backoff = RetryBackoff(first: 1_000_000, longest: 5_000_000)
        #expect(self.seconds(backoff, count: 5) == [1, 2, 4, 5, 5])
    }

    @Test func onceItWorkedTheNextFaultIsRetriedAfterTheFirstDelayAgain() {
        var backoff = RetryBackoff(first: 1_000_000, longest: 60_000_000)
        for _ in 0..<20 { backoff.attempted() }
        #expect(backoff.delay == 60_000_000)
        backoff.reset()
        #expect(backoff.delay == 1_000_000)
        #expect(backoff.attempts == 0)
    }

    @Test func aFaultThatLastsAYearNeverOverflowsTheDelay() {
        var backoff = RetryBackoff(first: 1_000_000, longest: 60_000_000)
        for _ in 0..<600_000 { backoff.attempted() }
        #expect(backoff.delay == 60_000_000)
        #expect(RetryBackoff.delay(first: 1_000_000, longest: 60_000_000, afterAttempts: Int.max) == 60_000_000)
        #expect(RetryBackoff.delay(first: 3, longest: UInt64.max, afterAttempts: 200) == UInt64.max)
        #expect(RetryBackoff.delay(first: 1_000_000, longest: 60_000_000, afterAttempts: -1) == 1_000_000)
    }

    @Test func theNextAttemptShownIsWhenTheArmedRetryFiresAlsoAfterAFailureBetweenRetries() {
        var backoff = RetryBackoff(first: 1_000_000, longest: 60_000_000)
        #expect(backoff.nextAttempt == nil)
        #expect(backoff.failed(now: Instant(seconds: 100)) == 1_000_000)
        #expect(backoff.nextAttempt == Instant(seconds: 101))
        backoff.fired()
        #expect(backoff.failed(now: Instant(seconds: 101)) == 2_000_000)
        backoff.fired()
        #expect(backoff.failed(now: Instant(seconds: 103)) == 4_000_000)
        #expect(backoff.nextAttempt == Instant(seconds: 107))
        // A write of a step fails two seconds later: the retry armed at 103 still fires at 107, not at 109.
        #expect(backoff.failed(now: Instant(seconds: 105)) == nil)
        #expect(backoff.nextAttempt == Instant(seconds: 107))
        backoff.fired()
        #expect(backoff.nextAttempt == nil)
        #expect(backoff.failed(now: Instant(seconds: 107)) == 8_000_000)
        #expect(backoff.nextAttempt == Instant(seconds: 115))
    }

    @Test func aRetryThatCouldNotBeArmedShowsNoNextAttemptAndOneThatWorkedStartsOver() {
        var backoff = RetryBackoff(first: 1_000_000, longest: 60_000_000)
        _ = backoff.failed(now: Instant(seconds: 100))
        backoff.notArmed()
        #expect(backoff.nextAttempt == nil)
        #expect(backoff.failed(now: Instant(seconds: 102)) == 1_000_000)
        backoff.fired()
        _ = backoff.failed(now: Instant(seconds: 103))
        backoff.reset()
        #expect(backoff.nextAttempt == nil)
        #expect(backoff.failed(now: Instant(seconds: 200)) == 1_000_000)
        #expect(backoff.nextAttempt == Instant(seconds: 201))
        // A part of a second rounds up: the time shown is never before the retry.
        var odd = RetryBackoff(first: 1_500_000, longest: 60_000_000)
        #expect(odd.failed(now: Instant(seconds: 10)) == 1_500_000)
        #expect(odd.nextAttempt == Instant(seconds: 12))
    }
}
