// What holds of the machine's state after every step, written once: the simulator checks it
// after each step of the model (SimWorld), of the real daemon embedded (EmbeddedRun) and of every
// interleaving the exploration reaches. Each line names the part that broke, for a failing trace.

extension DaemonMachine {
    /// Every invariant the state breaks now; empty when all hold.
    public func invariantViolations() -> [String] {
        var broken: [String] = []
        let laid = self.laidStarts
        // Nothing waits to call her while the day is in front (rule 1): a return clears the lay.
        if self.display == .foreground && !laid.isEmpty {
            broken.append("\(laid.count) start(s) laid while the display is in front")
        }
        // Lay numbers only grow: the counter is at or above the lay in force.
        if let lay = self.persisted.lay, lay.number > self.persisted.layCounter {
            broken.append("lay \(lay.number) is above the lay counter \(self.persisted.layCounter)")
        }
        // A lay covers what it laid: nothing past its end.
        if let lay = self.persisted.lay, let last = laid.last, last.at > lay.laidUntil {
            broken.append("a start at \(last.at.rfc3339) is laid past the lay's end \(lay.laidUntil.rfc3339)")
        }
        // A start is laid once, in order.
        if zip(laid, laid.dropFirst()).contains(where: { $0.at >= $1.at }) {
            broken.append("the laid starts are not in strictly increasing order")
        }
        // The wheel holds one start timer, at the first laid start's minute, while any is laid.
        if self.config.startsLiveIn == .wheel {
            let held = self.wheel.sortedEntries().filter { entry in
                if case .start = entry.payload { return true }
                return false
            }
            if let first = laid.first {
                if held.count != 1 || held[0].id != self.laid.wheelHeadTimer || held[0].payload != .start(first)
                    || held[0].deadline < first.at.seconds
                {
                    broken.append("the wheel holds \(held.count) start timer(s), not one at the first laid start")
                }
            } else if !held.isEmpty {
                broken.append("the wheel holds \(held.count) start timer(s) with nothing laid")
            }
        }
        // A call is delivered once: one record per call.
        let keys = self.persisted.delivered.map(\.key)
        if Set(keys).count != keys.count {
            broken.append("a delivered call is recorded twice")
        }
        // A start already delivered is never still laid.
        let deliveredAt = Set(keys.map(\.at))
        if let again = laid.first(where: { deliveredAt.contains($0.at) && self.persisted.lay != nil }),
            keys.contains(where: { $0.at == again.at && $0.lay == self.persisted.lay?.number })
        {
            broken.append("the start at \(again.at.rfc3339) is laid again after its call was delivered")
        }
        broken += self.inHand.invariantViolations(delivered: self.persisted.delivered)
        return broken
    }
}
