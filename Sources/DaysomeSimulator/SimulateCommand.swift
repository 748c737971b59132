// `daysome-simulate`: runs seeds (a count, or for a number of seconds) or replays traces, prints
// the throughput as a table, and on a broken rule prints the seed, the rule, the command that
// replays it, and writes the shrunk trace. Exit 0 all held, 1 a rule broke, 2 usage.

import DaysomeCore
import DaysomeFiles
import Glibc

public enum SimulateCommand {
    static let usage = """
        Usage: daysome-simulate [--seeds N | --seconds N | --seed S] [--first-seed S] [--steps K]
                                [--failures DIR]
                                [--embedded]
               daysome-simulate --replay FILE... [--verbose] [--embedded]
               daysome-simulate --explore DEPTH

        Runs the seeded simulator: the daemon's machine and its start-up, lock and state decisions
        against a simulated tablet (display, household, lockers, notification server, disks) with
        random faults, every rule checked after every step.

          --seeds N       run N seeds from --first-seed (default 200)
          --seconds N     run new seeds for N seconds instead
          --seed S        run one seed
          --first-seed S  the first seed (default 1)
          --steps K       steps per seed (default 400)
          --failures DIR  where a failing run's shrunk trace is written (default .build/simulate)
          --replay FILE   run the traces (the corpus's files) instead of seeds
          --verbose       with --replay: print each step, and each post and history line
          --embedded      play each scenario on the real daemon embedded (the Manager on a manual
                          loop, a fake server, a simulated disk that loses what was not synced at a
                          power cut) instead of the model;
                          every scenario plays: the systemd backend's on a fake user manager, full
                          disks as writes the disk refuses
          --explore D     every sequence of the exploration's steps up to depth D, around the night
                          London's clocks go back, each world checked against every rule
          --help          this text
        """

    public static func main(_ arguments: [String]) -> Int32 {
        var seeds: UInt64 = 200
        var seconds: Double?
        var first: UInt64 = 1
        var steps = 400
        var failures = ".build/simulate"
        var replay: [String] = []
        var verbose = false
        var explore: Int?
        var embedded: String?
        var index = 0
        func value() -> String? {
            index += 1
            return index < arguments.count ? arguments[index] : nil
        }
        while index < arguments.count {
            switch arguments[index] {
            case "--help", "-h":
                print(usage)
                return 0
            case "--seeds":
                guard let n = value().flatMap(UInt64.init) else { return bad("--seeds needs a count") }
                seeds = n
            case "--seconds":
                guard let n = value().flatMap(Double.init) else { return bad("--seconds needs a number") }
                seconds = n
            case "--seed":
                guard let n = value().flatMap(UInt64.init) else { return bad("--seed needs a number") }
                first = n
                seeds = 1
            case "--first-seed":
                guard let n = value().flatMap(UInt64.init) else { return bad("--first-seed needs a number") }
                first = n
            case "--steps":
                guard let n = value().flatMap(Int.init), n > 0 else { return bad("--steps needs a count") }
                steps = n
            case "--verbose": verbose = true
            case "--embedded":
                embedded = "\(EmbeddedRun.scratchDirectory(processEnvironment()))/daysome-simulate-\(getpid())"
            case "--explore":
                guard let n = value().flatMap(Int.init), n > 0 else { return bad("--explore needs a depth") }
                explore = n
            case "--failures":
                guard let dir = value() else { return bad("--failures needs a directory") }
                failures = dir
            case "--replay":
                while index + 1 < arguments.count, !arguments[index + 1].hasPrefix("--") {
                    replay.append(arguments[index + 1])
                    index += 1
                }
                if replay.isEmpty { return bad("--replay needs a trace file") }
            default: return bad("unknown option '\(arguments[index])'")
            }
            index += 1
        }
        let began = monotonicSeconds()
        if let depth = explore { return Self.explore(depth: depth, began: began) }
        var total = Totals()
        if !replay.isEmpty {
            for path in replay {
                let scenario: SimScenario
                do {
                    let bytes = try FileIO.read(path, limit: 1 << 22)
                    scenario = try SimScenario(text: String(decoding: bytes, as: UTF8.self))
                } catch {
                    writeText("daysome-simulate: '\(path)': \(error)\n", to: 2)
                    return 2
                }
                guard
                    let result = runOne(scenario, into: &total, label: path, verbose: verbose, embedded: embedded)
                else { return 2 }
                if let violation = result.violation {
                    print("FAIL \(path): \(violation)")
                    return 1
                }
            }
        } else {
            var seed = first
            while seconds.map({ monotonicSeconds() - began < $0 }) ?? (seed < first &+ seeds) {
                let scenario = Simulation.scenario(seed: seed, steps: steps)
                guard let result = runOne(scenario, into: &total, label: "seed \(seed)", embedded: embedded) else {
                    return 2
                }
                if let violation = result.violation {
                    report(
                        violation, seed: seed, steps: steps, scenario: scenario, failures: failures, embedded: embedded)
                    return 1
                }
                seed &+= 1
            }
        }
        total.print(wall: monotonicSeconds() - began)
        return 0
    }

    struct Totals {
        var runs = 0
        var steps = 0
        var simulated: Int64 = 0
        var events = 0
        var posts = 0
        /// Scenarios the embedded world cannot play (none: `EmbeddedRun.plays`).
        var skipped = 0

        func print(wall: Double) {
            let days = Double(self.simulated) / 86_400
            Swift.print("runs  steps   simulated days  daemon events  posts   wall s  days/s   steps/s  events/s")
            Swift.print(
                [
                    pad(self.runs, 4), pad(self.steps, 7), pad(fixed(days, 1), 14), pad(self.events, 13),
                    pad(self.posts, 6), pad(fixed(wall, 2), 7), pad(fixed(days / wall, 0), 7),
                    pad(fixed(Double(self.steps) / wall, 0), 8), pad(fixed(Double(self.events) / wall, 0), 8),
                ].joined(separator: "  "))
            if self.skipped > 0 { Swift.print("skipped \(self.skipped) scenarios the embedded world cannot play") }
        }
    }

    static func runOne(
        _ scenario: SimScenario, into total: inout Totals, label: String, verbose: Bool = false,
        embedded: String? = nil
    )
        -> SimResult?
    {
        do {
            let result: SimResult
            if let root = embedded {
                guard EmbeddedRun.plays(scenario) else {
                    total.skipped += 1
                    return SimResult(violation: nil, simulatedSeconds: 0, events: 0, posts: 0, steps: 0)
                }
                result = try EmbeddedRun.run(scenario, root: root, verbose: verbose)
            } else {
                result = try Simulation.run(scenario, verbose: verbose)
            }
            total.runs += 1
            total.steps += result.steps
            total.simulated += result.simulatedSeconds
            total.events += result.events
            total.posts += result.posts
            return result
        } catch {
            writeText("daysome-simulate: \(label): \(error)\n", to: 2)
            return nil
        }
    }

    static func report(
        _ violation: SimViolation, seed: UInt64, steps: Int, scenario: SimScenario, failures: String, embedded: String?
    ) {
        print("FAIL seed \(seed): \(violation)")
        print("replay: scripts/simulate --seed \(seed) --steps \(steps)\(embedded == nil ? "" : " --embedded")")
        // The whole run first: a long shrink (the embedded world's) may be stopped before it ends.
        try? FileIO.makeDirectories(failures, mode: 0o755)
        try? FileIO.writeAtomically("\(failures)/seed-\(seed).full.trace", scenario.text, mode: 0o644)
        let shrunk =
            embedded.map { EmbeddedRun.shrink(scenario, rule: violation.rule, root: $0) }
            ?? Simulation.shrink(scenario, rule: violation.rule)
        let path = "\(failures)/seed-\(seed).trace"
        let header = "# seed \(seed), \(steps) steps, shrunk to \(shrunk.steps.count): \(violation.rule)\n"
        do {
            try FileIO.makeDirectories(failures, mode: 0o755)
            try FileIO.writeAtomically(path, header + shrunk.text, mode: 0o644)
            print("shrunk to \(shrunk.steps.count) steps: \(path) (scripts/simulate --replay \(path))")
        } catch {
            print("shrunk to \(shrunk.steps.count) steps; could not write \(path): \(error)")
            print(shrunk.text)
        }
    }

    static func explore(depth: Int, began: Double) -> Int32 {
        let result: ExplorationResult
        do {
            result = try Exploration.explore(depth: depth)
        } catch {
            writeText("daysome-simulate: \(error)\n", to: 2)
            return 2
        }
        let wall = monotonicSeconds() - began
        print("depth  alphabet  states  transitions  wall s  transitions/s")
        print(
            [
                pad(result.depth, 5), pad(Exploration.alphabet.count, 8), pad(result.states, 6),
                pad(result.transitions, 11), pad(fixed(wall, 2), 6),
                pad(fixed(Double(result.transitions) / wall, 0), 13),
            ].joined(separator: "  "))
        if let (violation, path) = result.violation {
            print("FAIL \(violation)")
            print("steps: " + path.map(\.line).joined(separator: "; "))
            return 1
        }
        return 0
    }

    static func bad(_ message: String) -> Int32 {
        writeText("daysome-simulate: \(message)\n\(usage)\n", to: 2)
        return 2
    }
}

func monotonicSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

func pad(_ value: some CustomStringConvertible, _ width: Int) -> String {
    let text = value.description
    return String(repeating: " ", count: max(0, width - text.count)) + text
}

func fixed(_ value: Double, _ places: Int) -> String {
    guard value.isFinite else { return "-" }
    var scale = 1.0
    for _ in 0..<places { scale *= 10 }
    let rounded = (value * scale).rounded() / scale
    var text = String(rounded)
    if places == 0, text.hasSuffix(".0") { text.removeLast(2) }
    return text
}
