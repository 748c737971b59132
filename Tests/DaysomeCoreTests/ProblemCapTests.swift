// Household problems where a person reads them: the first few listed, all counted, so 5,000
// invalid items neither make status.json a megabyte nor the journal 5,000 lines per load.

import DaysomeCore
import Testing

@Suite struct ProblemCapTests {
    func problems(_ count: Int) -> [HouseholdProblem] {
        (0..<count).map {
            HouseholdProblem(file: "/h.json", itemId: "bad-\($0)", field: "time", message: "not a time; item skipped")
        }
    }

    @Test func aLoadsProblemsAreLoggedByTheFirstTwentyThenOneLineCountingTheRest() {
        let actions = ProblemCap.logActions(self.problems(5_000))
        #expect(actions.count == ProblemCap.journal + 1)
        #expect(actions.first == .log(.warning, self.problems(1)[0].description))
        let summary = "'/h.json': ... and 4980 more problems (5000 in all; daysomectl status lists the first 50)"
        #expect(actions.last == .log(.warning, summary))
        // Twenty or fewer are each logged, with no summary.
        #expect(ProblemCap.logActions(self.problems(20)).count == 20)
        #expect(ProblemCap.logActions([]).isEmpty)
    }

    @Test func statusListsTheFirstFiftyProblemsAndCountsThemAll() throws {
        let all = self.problems(5_000)
        let (listed, more) = ProblemCap.capped(all, limit: ProblemCap.status)
        #expect(listed == Array(all.prefix(50)) && more == 4_950)
        #expect(ProblemCap.capped(self.problems(3), limit: 50) == (self.problems(3), 0))
        let household = StatusSnapshot.HouseholdStatus(
            path: "/h.json", loadedAt: nil, items: 1, errors: listed, errorCount: all.count)
        var status = StatusSnapshot.noDaemon(householdPath: "/h.json")
        status.household = household
        let json = status.json
        #expect(json.objectValue?["household"]?.objectValue?["errorCount"] == .number(5_000))
        #expect(try StatusSnapshot(json: json).household == household)
        // A status from before the key counts what it lists.
        var object = try #require(json.objectValue)
        var inner = try #require(object["household"]?.objectValue)
        inner.members.removeAll { $0.key == "errorCount" }
        let index = try #require(object.members.firstIndex { $0.key == "household" })
        object.members[index].value = .object(inner)
        #expect(try StatusSnapshot(json: .object(object)).household.errorCount == 50)
    }
}
