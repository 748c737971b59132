// The corpus and new seeds played on the real daemon embedded (EmbeddedRun): the Manager's own
// sequencing, not SimWorld's model of it, against the same rules. Each run's files live in a
// scratch directory under .testrun/, removed after.

import DaysomeCore
import Glibc
import Testing

@testable import DaysomeSimulator

private let scratch: String = {
    let file = #filePath
    return "/" + file.split(separator: "/").dropLast(3).joined(separator: "/") + "/.testrun/embedded-run-\(getpid())"
}()

@Suite struct EmbeddedRunTests {
    @Test(arguments: corpusTraces)
    func everyTraceInTheCorpusKeepsEveryRuleOnTheRealDaemon(_ name: String) throws {
        let scenario = try corpusScenario(name)
        try #require(EmbeddedRun.plays(scenario), "\(name) is of a backend the embedded world does not run")
        let result = try EmbeddedRun.run(scenario, root: "\(scratch)-\(name)")
        #expect(result.violation == nil, "\(name): \(result.violation.map(String.init(describing:)) ?? "")")
        #expect(result.steps == scenario.steps.count)
    }

    /// `--help` says what `--embedded` plays: every scenario, the systemd backend's and full
    /// disks' among them (the corpus's traces of both play above), none skipped.
    @Test func theHelpSaysEveryScenarioPlaysEmbeddedAsItDoes() throws {
        let help = SimulateCommand.usage
        #expect(help.contains("every scenario plays: the systemd backend's on a fake user manager, full"), "\(help)")
        #expect(!help.contains("skipped") && !help.contains("not played"), "\(help)")
        let systemdAndFullDisks = try corpusScenario(
            "edits-neither-disk-could-keep-then-a-kill-and-a-broken-file.trace")
        #expect(systemdAndFullDisks.backend == .systemd)
        #expect(systemdAndFullDisks.steps.contains { if case .diskFull(true) = $0 { true } else { false } })
        #expect(EmbeddedRun.plays(systemdAndFullDisks))
    }

    /// How long a failing seed is shrunk here before its trace is reported as it stands: no new
    /// trial starts after it (the one under way, and one last run to cut the trace at its failing
    /// step, still finish).
    static let shrinkSeconds = 180.0

    /// New seeds on every run, as the model's budget (CorpusTests) but far fewer: the real daemon
    /// writes and publishes its files on a simulated disk at every change (a full disk's retry
    /// each minute, a debug build's JSON), a few seconds per seed here; `scripts/simulate --embedded --seconds N` runs
    /// more, built for speed. The first seed comes from the clock, or DAYSOME_SIM_FIRST_SEED.
    @Test func aFixedBudgetOfNewSeedsKeepsEveryRuleOnTheRealDaemon() throws {
        let first =
            getenv("DAYSOME_SIM_FIRST_SEED").flatMap { UInt64(String(cString: $0)) }
            ?? UInt64(time(nil)) &* 1_000
        let seeds: UInt64 = 4
        let steps = 300
        var stepsRun = 0
        var played = 0
        for seed in first..<(first + seeds) {
            let scenario = Simulation.scenario(seed: seed, steps: steps)
            guard EmbeddedRun.plays(scenario) else { continue }
            played += 1
            let result = try EmbeddedRun.run(scenario, root: "\(scratch)-seed")
            stepsRun += result.steps
            if let violation = result.violation {
                // Bounded: a debug build's embedded shrink of 300 steps can outlast CI's job.
                let shrunk = EmbeddedRun.shrink(
                    scenario, rule: violation.rule, root: "\(scratch)-seed", seconds: Self.shrinkSeconds)
                Issue.record(
                    """
                    seed \(seed): \(violation)
                    replay: scripts/simulate --seed \(seed) --steps \(steps) --embedded
                    shrunk to \(shrunk.steps.count) steps (no trial begun after \(Int(Self.shrinkSeconds)) s):
                    \(shrunk.text)
                    """)
                return
            }
        }
        #expect(played > 0)
        print("embedded: seeds \(first)..<\(first + seeds), \(played) played, \(stepsRun) steps: every rule held")
    }

    /// The embedded run's oracle sees a card over the day: a server that hangs before her return
    /// keeps the card up, and once it wakes the close goes through (not a violation while hung).
    /// Issue 43's kill variant on the real daemon: lunch, due while she was locked after a return
    /// and a lock no daemon read, is called by the start inside grace (it was neither posted nor named).
    @Test func aReturnThenALockWhileTheDaemonWasStoppedCallsLunchOnTheRealDaemon() throws {
        let name = "a-return-then-a-lock-while-the-daemon-was-stopped-calls-lunch-due-while-locked.trace"
        let result = try EmbeddedRun.run(try corpusScenario(name), root: "\(scratch)-kill-variant")
        #expect(result.violation == nil, "\(result.violation.map(String.init(describing:)) ?? "")")
        #expect(result.posts == 1, "lunch neither posted nor named")
    }

    @Test func aCardAServerHeldWhileItHungIsTakenDownOnceItWakes() throws {
        let scenario = try SimScenario(
            text: """
                zone UTC
                start 2026-12-03T12:29:00Z
                busTimesOut false
                advance 90
                server hang
                display foreground
                server wake
                """)
        let result = try EmbeddedRun.run(scenario, root: "\(scratch)-hang")
        #expect(result.violation == nil, "\(result.violation.map(String.init(describing:)) ?? "")")
        #expect(result.posts == 1)
    }
}
