// Bounded exhaustive exploration: from one world, every sequence of steps from a small alphabet
// up to a depth, breadth first, each world reached checked against every rule, and a world
// already seen (by its whole state, written canonically: the same count on every run) not
// explored twice. Where seeds sample, this covers: every interleaving of the alphabet's steps around a DST change, to the depth given.

import DaysomeCore

/// What an exploration reached.
public struct ExplorationResult: Sendable {
    /// Distinct worlds reached, and the steps applied to reach them (including repeats).
    public let states: Int
    public let transitions: Int
    public let depth: Int
    /// The first rule broken, with the steps that broke it.
    public let violation: (SimViolation, [SimStep])?
}

public enum Exploration {
    /// The night the clocks go back in London: 01:30 local comes twice (00:30Z and 01:30Z), and
    /// the household calls "night" at 01:30.
    public static let zone = "Europe/London"
    public static let start = Instant(seconds: 1_792_886_400)  // 2026-10-25T00:00:00Z

    /// The alphabet: time passing to and past each start, her leaving and coming back, a lock,
    /// a request, the server's restart and hang, a full disk, a kill and a start.
    public static let alphabet: [SimStep] = [
        .advance(seconds: 1_800), .advance(seconds: 20), .display(.away), .display(.foreground),
        .locker(.gnomeScreenSaver, true), .locker(.gnomeScreenSaver, false), .lockRequest(true, answered: false),
        .server(.restart), .server(.hang), .server(.wake), .diskFull(true), .kill, .start,
    ]

    public static func explore(
        depth: Int, alphabet: [SimStep] = Self.alphabet
    ) throws(SimTraceError)
        -> ExplorationResult
    {
        let first = SimWorld(
            zone: try Households.zone(Self.zone), start: Self.start, busTimesOut: true, backend: .wheel)
        var seen: Set<String> = [first.fingerprint]
        var frontier: [(world: SimWorld, path: [SimStep])] = [(first, [])]
        var transitions = 0
        for level in 0..<depth {
            var next: [(world: SimWorld, path: [SimStep])] = []
            for (world, path) in frontier {
                for step in alphabet {
                    var child = world
                    transitions += 1
                    if let violation = child.apply(step, index: level) {
                        return ExplorationResult(
                            states: seen.count, transitions: transitions, depth: level + 1,
                            violation: (violation, path + [step]))
                    }
                    if seen.insert(child.fingerprint).inserted { next.append((child, path + [step])) }
                }
            }
            frontier = next
        }
        return ExplorationResult(states: seen.count, transitions: transitions, depth: depth, violation: nil)
    }
}

extension SimWorld {
    /// The whole world as canonical text (CanonicalText.swift): two worlds with the same
    /// fingerprint behave the same from here, and equal worlds have the same fingerprint in every
    /// process, whatever order their dictionaries and sets were filled in. The step counter and
    /// the figures are left out, and so are the constants every world of one exploration shares
    /// (its zone, its machine's configuration, its bus's timeout).
    var fingerprint: String {
        var copy = self
        copy.stepIndex = 0
        copy.events = 0
        copy.posts = 0
        copy.log = []
        return CanonicalText.of(copy, leaving: ["zone", "config", "busTimesOut"])
    }
}
