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
}
