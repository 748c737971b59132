// Every interleaving of the exploration's steps, to a depth, keeps every rule; and the
// exploration keys worlds canonically, so the same depth reaches the same count on every run.

import DaysomeCore
import Testing

@testable import DaysomeSimulator

@Suite struct ExplorationTests {
    @Test func everyInterleavingAroundTheNightTheClocksGoBackKeepsEveryRule() throws {
        let result = try Exploration.explore(depth: 4)
        if let (violation, path) = result.violation {
            Issue.record("\(violation) after: \(path.map(\.line).joined(separator: "; "))")
        }
        #expect(result.states > 1_000, "the exploration reached only \(result.states) worlds")
        print("explored \(result.states) worlds by \(result.transitions) steps to depth \(result.depth)")
    }

    /// Two equal worlds whose sets and dictionaries were filled in different orders, and into
    /// tables of different sizes (so their storage orders differ), have one fingerprint.
    @Test func equalWorldsFilledInDifferentOrdersHaveTheSameFingerprint() throws {
        let zone = try Households.zone(Exploration.zone)
        let keys = (1...200).map {
            DeliveryKey(lay: UInt64($0 % 7 + 1), at: Exploration.start.adding(seconds: $0 * 60))
        }
        var forwards = SimWorld(zone: zone, start: Exploration.start, busTimesOut: true, backend: .wheel)
        var backwards = forwards
        var roomy = Set<DeliveryKey>()
        roomy.reserveCapacity(4_096)
        backwards.unreachable = roomy
        var bells: [DeliveryKey: Int] = [:]
        bells.reserveCapacity(4_096)
        backwards.bells = bells
        for (index, key) in keys.enumerated() {
            forwards.unreachable.insert(key)
            forwards.bells[key] = index
        }
        for (index, key) in keys.enumerated().reversed() {
            backwards.unreachable.insert(key)
            backwards.bells[key] = index
        }
        for source in [LockSource.logind, .screenSaver, .gnomeScreenSaver] { forwards.lockers[source] = true }
        for source in [LockSource.gnomeScreenSaver, .screenSaver, .logind] { backwards.lockers[source] = true }
        #expect(forwards.unreachable == backwards.unreachable && forwards.bells == backwards.bells)
        #expect(forwards.fingerprint == backwards.fingerprint)
        // Different worlds stay apart.
        backwards.bells[keys[0]] = -1
        #expect(forwards.fingerprint != backwards.fingerprint)
    }

    /// The same depth reaches the same worlds by the same steps, run after run.
    @Test func theSameDepthReachesTheSameCountEveryRun() throws {
        let first = try Exploration.explore(depth: 2)
        let second = try Exploration.explore(depth: 2)
        #expect(first.violation == nil && second.violation == nil)
        #expect((first.states, first.transitions) == (second.states, second.transitions))
        #expect((first.states, first.transitions) == (Self.depthTwo.states, Self.depthTwo.transitions))
    }

    /// What depth 2 reaches from the exploration's first world.
    static let depthTwo = (states: 74, transitions: 143)
}
