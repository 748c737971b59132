// A bus peer that went away (the systemd manager restarted, the session bus restarted) is
// tried again on a monotonic timer, never in a loop: one second, doubling to five while it
// stays away. A failed connect costs next to nothing, and what depends on the connection (a
// re-lay, calls reaching the screen) should follow its return within seconds.

import DaysomeCore
import Glibc
import SystemdKit

/// Retries one connection with backoff until `connect` succeeds.
final class Reconnector {
    private let loop: any Loop
    private let logger: Logger
    private let peer: String
    private let connect: () -> Bool
    private var retry: (any LoopSource)?
    private var backoff = RetryBackoff(first: 1_000_000, longest: 5_000_000)

    /// `peer` names what was lost, for the log; `connect` returns whether it connected.
    init(loop: any Loop, logger: Logger, peer: String, connect: @escaping () -> Bool) {
        self.loop = loop
        self.logger = logger
        self.peer = peer
        self.connect = connect
    }

    /// The connection dropped: try again after the current delay.
    func lost() {
        self.begin("Lost the connection to the \(self.peer); reconnecting")
    }

    /// A first connect failed (a socket made but not listening yet): try again after the delay.
    func failed() {
        self.begin("Failed to connect to the \(self.peer); trying again")
    }

    private func begin(_ message: String) {
        self.logger.log(.warning, message)
        self.backoff.reset()
        self.schedule()
    }

    private func schedule() {
        do {
            self.retry = try self.loop.timer(
                clock: CLOCK_MONOTONIC, after: self.backoff.delay, description: "reconnect"
            ) { [weak self] in self?.attempt() }
        } catch {
            self.logger.log(.error, "Failed to arm the retry for the \(self.peer): \(error)")
        }
    }

    private func attempt() {
        if self.connect() {
            self.logger.log(.notice, "Reconnected to the \(self.peer)")
            return
        }
        self.backoff.attempted()
        self.schedule()
    }
}
