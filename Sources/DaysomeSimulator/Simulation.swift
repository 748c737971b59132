// Seeded runs: a seed makes a scenario (a zone near a DST change, a bus, a few hundred steps of
// display flips, edits, locks, server faults, full disks, kills, power cuts and clock steps),
// every step is checked against the rules, and a failing scenario shrinks to the fewest steps
// that still break the same rule.

import DaysomeCore

/// What one run did.
public struct SimResult: Sendable {
    public let violation: SimViolation?
    /// Virtual seconds the run covered.
    public let simulatedSeconds: Int64
    /// Events the daemon's machine handled (timers, the bus, the files, the lockers), and posts it made.
    public let events: Int
    public let posts: Int
    public let steps: Int
}

public enum Simulation {
    /// The scenario a seed names.
    public static func scenario(seed: UInt64, steps count: Int) -> SimScenario {
        var random = SimRandom(seed: seed)
        let change = SimScenario.changes[Int.random(in: 0..<SimScenario.changes.count, using: &random)]
        let utc = Zone(name: "UTC", rules: .utc)
        let at = TimeParsing.instant(change.at, zone: utc) ?? Instant(seconds: 0)
        let start = at.adding(seconds: -Int64.random(in: 0...(36 * 3_600), using: &random))
        let busTimesOut = random.chance(50)
        let backend: StartStore = random.chance(30) ? .systemd : .wheel
        let steps = (0..<count).map { _ in Self.step(&random, backend: backend) }
        return SimScenario(zone: change.zone, start: start, busTimesOut: busTimesOut, backend: backend, steps: steps)
    }

    /// One random step, weighted toward time passing and the display flipping.
    static func step(_ random: inout SimRandom, backend: StartStore) -> SimStep {
        let roll = Int.random(in: 0..<100, using: &random)
        switch roll {
        case 37..<40: return SimStep.edge(&random)
        case 0..<37:
            let span = Int.random(in: 0..<10, using: &random)
            let seconds: Int64 =
                span < 5
                ? Int64.random(in: 1...120, using: &random)
                : span < 8
                    ? Int64.random(in: 120...1_800, using: &random) : Int64.random(in: 3_600...28_800, using: &random)
            return .advance(seconds: seconds)
        case 53: return .displayExits
        case 40..<53:
            let words: [SimStep.FileWord] = [
                .foreground, .foreground, .away, .away, .foreground, .away, .missing, .garbage, .foregroundPid,
                .foregroundPid, .deadPid,
            ]
            let word = words[Int.random(in: 0..<words.count, using: &random)]
            return word != .missing && random.chance(20) ? .displayInPlace(word) : .display(word)
        case 54..<58:
            return .household(random.chance(50) ? 0 : Int.random(in: 1..<Households.count, using: &random))
        case 63: return .systemBus(up: random.chance(50))
        case 58..<63:
            let source = LockSource.lockers[Int.random(in: 0..<LockSource.lockers.count, using: &random)]
            return .locker(source, random.chance(12) ? nil : random.chance(50))
        case 64..<68:
            return .lockRequest(random.chance(60), answered: random.chance(50))
        case 75: return .sessionBus(up: random.chance(50))
        case 68..<75:
            let changes: [SimStep.ServerChange] = [
                .restart, .restartAtOnce, .stop, .begin, .begin, .hang, .wake, .wake, .takeOver, .replacedExits,
                .doNotDisturbOn, .doNotDisturbOff,
            ]
            return .server(changes[Int.random(in: 0..<changes.count, using: &random)])
        case 76..<79: return .click
        case 79..<83: return .diskFull(random.chance(50))
        case 83..<85: return .runtimeFull(random.chance(50))
        case 85..<89: return .kill
        case 89..<96: return .start
        case 96..<97: return .powerCut(tear: random.chance(75) ? random.next() : nil)
        case 97..<98:
            guard backend == .systemd && random.chance(60) else {
                return .suspend(seconds: Int64.random(in: 60...36_000, using: &random))
            }
            return random.chance(50) ? .managerRestart : .managerSlow
        default:
            let seconds = Int64.random(in: 30...7_200, using: &random)
            return .clockStep(seconds: random.chance(50) ? seconds : -seconds)
        }
    }

    /// Runs a scenario to its end or its first broken rule.
    /// With `verbose`, each step and what the daemon did is printed.
    public static func run(_ scenario: SimScenario, verbose: Bool = false) throws(SimTraceError) -> SimResult {
        try self.play(scenario, verbose: verbose).result
    }

    /// Runs a scenario, and keeps the world it ends in (a test reads the fake server's cards).
    static func play(
        _ scenario: SimScenario, verbose: Bool = false
    ) throws(SimTraceError) -> (
        result: SimResult, world: SimWorld
    ) {
        var world = SimWorld(
            zone: try Households.zone(scenario.zone), start: scenario.start, busTimesOut: scenario.busTimesOut,
            backend: scenario.backend)
        world.verbose = verbose
        var violation = world.violation
        var done = 0
        for (index, step) in scenario.steps.enumerated() where violation == nil {
            violation = world.apply(step, index: index)
            done = index + 1
            if verbose {
                print("\(index + 1). \(step.line)  [\(world.now.rfc3339)]")
                for line in world.log { print(line) }
                world.log = []
            }
        }
        let result = SimResult(
            violation: violation, simulatedSeconds: world.now.seconds - scenario.start.seconds, events: world.events,
            posts: world.posts, steps: done)
        return (result, world)
    }

    /// The fewest steps (found greedily) that still break `rule`: chunks of the trace are dropped
    /// while the run still fails on the same rule. `run` plays a trial: the model, or the real
    /// daemon embedded (EmbeddedRun). With `seconds`, it stops trying once they are spent and
    /// returns the shortest trace found by then: a test's budget is not spent shrinking (a debug
    /// build's embedded run of 300 steps can take an hour), and its seed replays the whole run.
    public static func shrink(
        _ scenario: SimScenario, rule: String, seconds: Double? = nil,
        running run: (SimScenario) -> SimResult? = { try? Simulation.run($0) }
    ) -> SimScenario {
        let began = monotonicSeconds()
        let spent = { seconds.map { monotonicSeconds() - began >= $0 } ?? false }
        var best = scenario
        var chunk = max(1, best.steps.count / 2)
        while chunk >= 1 && !spent() {
            var start = 0
            var removed = false
            while start < best.steps.count && !spent() {
                var trial = best
                trial.steps.removeSubrange(start..<min(start + chunk, trial.steps.count))
                if let result = run(trial), result.violation?.rule == rule {
                    best = trial
                    removed = true
                } else {
                    start += chunk
                }
            }
            if !removed { chunk /= 2 }
        }
        // What remains after the failing step plays no part.
        if let result = run(best), let step = result.violation?.step {
            best.steps = Array(best.steps.prefix(step + 1))
        }
        return best
    }
}
