// A trace reads back as it was written, and a line that is no step is named.

import DaysomeCore
import Testing

@testable import DaysomeSimulator

@Suite struct TraceTests {
    @Test func aSeedsScenarioReadsBackFromItsText() throws {
        let scenario = Simulation.scenario(seed: 42, steps: 500)
        #expect(try SimScenario(text: scenario.text) == scenario)
    }

    @Test func aLineThatIsNoStepIsRefusedWithItsLineNumber() {
        #expect(throws: SimTraceError.self) {
            try SimScenario(text: "zone UTC\nstart 2026-12-03T00:00:00Z\nadvance soon\n")
        }
        do {
            _ = try SimScenario(text: "zone UTC\nstart 2026-12-03T00:00:00Z\nadvance soon\n")
        } catch {
            #expect(error.description == "line 3 is not a step: 'advance soon'")
        }
    }

    @Test func theSameSeedMakesTheSameRun() throws {
        let first = try Simulation.run(Simulation.scenario(seed: 7, steps: 300))
        let second = try Simulation.run(Simulation.scenario(seed: 7, steps: 300))
        #expect(first.events == second.events && first.posts == second.posts)
        #expect(first.posts > 0)
    }

    /// A stand-in run that breaks rule "x" at the step `advance 12345`, wherever it is.
    static func failsAtTheMarkedStep(_ scenario: SimScenario) -> SimResult? {
        let step = scenario.steps.firstIndex(of: .advance(seconds: 12_345))
        return SimResult(
            violation: step.map { SimViolation(rule: "x", message: "marked", step: $0) }, simulatedSeconds: 0,
            events: 0, posts: 0, steps: scenario.steps.count)
    }

    @Test func aShrinkKeepsOnlyTheStepsThatBreakTheRuleAndStopsWhenItsBudgetIsSpent() {
        var scenario = Simulation.scenario(seed: 3, steps: 40)
        scenario.steps[10] = .advance(seconds: 12_345)
        let shrunk = Simulation.shrink(scenario, rule: "x", running: Self.failsAtTheMarkedStep)
        #expect(shrunk.steps == [.advance(seconds: 12_345)])
        // No time to try: the trace up to its failing step, as the run found it.
        let unshrunk = Simulation.shrink(scenario, rule: "x", seconds: 0, running: Self.failsAtTheMarkedStep)
        #expect(unshrunk.steps == Array(scenario.steps.prefix(11)))
    }
}
