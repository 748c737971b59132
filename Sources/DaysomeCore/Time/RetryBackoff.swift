// How long to wait before trying again something that failed (a state write, a bus connection):
// a first delay, doubling after each attempt up to a longest, back to the first once it worked.
// Pure, in microseconds as sd-event's timers take them; the daemon arms its one timer with it.

/// The delay before the next attempt of a retry.
public struct RetryBackoff: Sendable, Equatable {
    /// The delay before the first attempt, in microseconds.
    public let first: UInt64
    /// The delay it never grows past, in microseconds.
    public let longest: UInt64
    /// Attempts made since the last reset.
    public private(set) var attempts = 0
    /// When the one armed retry fires, nil while none is armed: what `status` shows as the next
    /// attempt, for every failure it will retry.
    public private(set) var nextAttempt: Instant?

    public init(first: UInt64, longest: UInt64) {
        precondition(first > 0 && first <= longest, "a backoff needs 0 < first <= longest")
        self.first = first
        self.longest = longest
    }

    /// The delay before the next attempt, in microseconds.
    public var delay: UInt64 { Self.delay(first: self.first, longest: self.longest, afterAttempts: self.attempts) }

    /// An attempt is made: the next waits twice as long, up to `longest`.
    public mutating func attempted() {
        // Counting stops at the longest delay: a failure that lasts a year never overflows.
        if self.delay < self.longest { self.attempts += 1 }
    }

    /// It worked (or a new loss begins): the next retry waits `first` again, and none is armed.
    public mutating func reset() {
        self.attempts = 0
        self.nextAttempt = nil
    }

    /// Something failed at `now`. Returns the delay to arm the one retry timer with, or nil when it
    /// is armed already; either way `nextAttempt` is then when that timer fires. A failure between
    /// two retries never moves the next one: the timer armed before it fires first.
    public mutating func failed(now: Instant) -> UInt64? {
        guard self.nextAttempt == nil else { return nil }
        let delay = self.delay
        // Delays are whole seconds in practice; a part of one rounds up, never to a time already past.
        self.nextAttempt = Instant(seconds: now.seconds + Int64(delay / 1_000_000 + (delay % 1_000_000 > 0 ? 1 : 0)))
        return delay
    }

    /// The armed retry fired: the next failure arms one that waits twice as long.
    public mutating func fired() {
        self.nextAttempt = nil
        self.attempted()
    }

    /// The timer `failed` asked for could not be armed: no attempt is due until the next failure.
    public mutating func notArmed() {
        self.nextAttempt = nil
    }

    /// `first` doubled once per attempt, never past `longest`.
    public static func delay(first: UInt64, longest: UInt64, afterAttempts attempts: Int) -> UInt64 {
        var delay = first
        for _ in 0..<max(0, attempts) {
            guard delay < longest else { break }
            delay = delay > longest / 2 ? longest : delay * 2
        }
        return min(delay, longest)
    }
}
