// Every interleaving of the exploration's steps, to a depth, keeps every rule.

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
}
