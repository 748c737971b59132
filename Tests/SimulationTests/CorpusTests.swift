// Every trace in the corpus keeps every rule, and a fixed budget of new seeds does too.

import DaysomeCore
import Glibc
import Testing

@testable import DaysomeSimulator

@Suite struct CorpusTests {
    @Test func theCorpusHoldsTheTracesItWasGiven() {
        #expect(corpusTraces.count >= 12, "the corpus at \(corpusDirectory) holds \(corpusTraces.count) traces")
    }

    @Test(arguments: corpusTraces)
    func everyTraceInTheCorpusKeepsEveryRule(_ name: String) throws {
        _ = try play(name)
    }

    /// New seeds on every run (the first one from the clock, or DAYSOME_SIM_FIRST_SEED): a broken
    /// rule prints its seed and the command that replays it.
    @Test func aFixedBudgetOfNewSeedsKeepsEveryRule() throws {
        let first =
            getenv("DAYSOME_SIM_FIRST_SEED").flatMap { UInt64(String(cString: $0)) }
            ?? UInt64(time(nil)) &* 1_000
        let seeds: UInt64 = 150
        let steps = 300
        var stepsRun = 0
        for seed in first..<(first + seeds) {
            let scenario = Simulation.scenario(seed: seed, steps: steps)
            let result = try Simulation.run(scenario)
            stepsRun += result.steps
            if let violation = result.violation {
                let shrunk = Simulation.shrink(scenario, rule: violation.rule)
                Issue.record(
                    """
                    seed \(seed): \(violation)
                    replay: scripts/simulate --seed \(seed) --steps \(steps)
                    shrunk to \(shrunk.steps.count) steps:
                    \(shrunk.text)
                    """)
                return
            }
        }
        print("simulated seeds \(first)..<\(first + seeds), \(stepsRun) steps: every rule held")
    }
}
