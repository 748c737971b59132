// What a fake peer has on its way to one daemon's connection: replies and signals, each run on
// that daemon's loop (its next iteration, or after a delay) while the connection is open, as a
// bus delivers them. A killed daemon's connection closes, and nothing reaches it any more.

import Glibc
import SystemdKit

/// One connection's deliveries on the daemon's loop.
final class BusDelivery {
    private let loop: any Loop
    /// False once the daemon's process died.
    var open = true
    /// What is on its way: the loop holds a source only while it is kept.
    private var inFlight: [any LoopSource] = []

    init(loop: any Loop) {
        self.loop = loop
    }

    /// Runs `work` on the loop's next iteration, or `after` µs, while the connection is open.
    @discardableResult
    func onLoop(after usec: UInt64? = nil, description: String, _ work: @escaping () -> Void) -> (any LoopSource)? {
        guard self.open else { return nil }
        // `inFlight` owns the source; the source's closure must not, or neither is ever freed.
        let box = WeakSource()
        let run = { [weak self] in
            guard let self else { return }
            if let source = box.source { self.forget(source) }
            if self.open { work() }
        }
        let source: (any LoopSource)?
        if let usec {
            source = try? self.loop.timer(clock: CLOCK_MONOTONIC, after: usec, description: description, run)
        } else {
            source = try? self.loop.deferred(description: description, run)
        }
        box.source = source
        if let source { self.inFlight.append(source) }
        return source
    }

    /// A delivery cancelled before it ran.
    func forget(_ source: any LoopSource) {
        self.inFlight.removeAll { $0 === source }
    }

    final class WeakSource {
        weak var source: (any LoopSource)?
    }
}

@available(*, unavailable)
extension BusDelivery: Sendable {}
