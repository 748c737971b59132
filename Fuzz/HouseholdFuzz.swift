// Fuzz target `household`: any bytes as a household file (rule 9: bad input never crashes the
// daemon). What parses is planned for 8 days across London's and Havana's autumn changes, and
// the plan must keep its invariants and write JSON that parses back.

import DaysomeCore

private let zones = loadZones(["Europe/London", "UTC", "Australia/Lord_Howe", "America/Havana"])

/// 2026-10-24T11:00:00Z: the window holds London's clocks going back (25 Oct) and Havana's (1 Nov).
private let from = Instant(seconds: 1_792_839_600)
private let days = 8

@_cdecl("LLVMFuzzerTestOneInput")
public func householdFuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzInput(data, size)
    let result = HouseholdParser.parse(
        bytes, file: "household.json", zones: { zones[$0] }, systemZoneName: "Europe/London")
    switch result {
    case .failure(let error):
        // The error line and its problems are what the daemon logs: build them too.
        require(!error.description.isEmpty, "empty error line")
        for problem in error.problems { require(!problem.description.isEmpty, "empty problem line") }
    case .success(let load):
        let until = from.adding(seconds: Int64(days) * 86_400)
        var household = load.household
        let plan = Planner.plan(household, from: from, days: days)
        checkPlan(plan, household, after: from, through: until)
        // Whatever the switch says, plan as if a carer turned notifications on.
        household.settings.notifyInOtherApps = true
        let laid = Planner.plan(household, from: from, days: days)
        checkPlan(laid, household, after: from, through: until)
        let json = laid.json(problems: load.problems)
        let text = json.serialized()
        require((try? JSONParser.parse(text)) == json, "plan JSON does not parse back to itself")
    }
    return 0
}
