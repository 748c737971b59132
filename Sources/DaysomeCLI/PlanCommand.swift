// `daysomectl plan`: what a lay made at an instant contains, as the contract's JSON or as a
// table a tester reads at a glance, a day at a time.

import DaysomeCore
import DaysomeFiles

let planVerb = VerbSpec(
    "plan",
    options: [
        OptionSpec("--household", "PATH", "The household file to plan (required)."),
        OptionSpec("--from", "TIME", "When the lay is made: YYYY-MM-DDTHH:MM[:SS] local, or RFC 3339 (default now)."),
        OptionSpec("--days", "N", "The horizon in days, 1 to 366 (default 7)."),
        OptionSpec("--json", nil, "Print the contract's JSON object instead of a table."),
        OptionSpec("--svg", "FILE", "Also draw the starts as a picture: one row a day, 00:00 to 24:00 local."),
    ],
    summary: "Show the starts a lay would hold: every call of the coming week, by local time.",
    details: """
        Items that cannot be used are named on stderr and the rest are planned (exit 0);
        a household file that cannot be used at all exits 2.
        """)

/// Runs `plan`.
func runPlan(_ command: ParsedCommand, _ context: CommandContext) -> CommandOutput {
    guard let path = command.options["--household"] else {
        return .failure(
            .usage,
            UsageError.missingOption("--household PATH", verb: "plan").description + ". See 'daysomectl plan --help'.")
    }
    var days = Planner.defaultDays
    if let text = command.options["--days"] {
        guard let parsed = Int(text), (1...366).contains(parsed) else {
            return .failure(
                .usage,
                UsageError.invalidValue(option: "--days", value: text, expected: "a whole number of days from 1 to 366")
                    .description)
        }
        days = parsed
    }
    let load: HouseholdLoad
    switch HouseholdFile.load(path, environment: context.environment) {
    case .failure(let error):
        return CommandOutput(
            status: .usage, stderr: (error.problems.map { "daysomectl: \($0)\n" }.joined()) + "daysomectl: \(error)\n")
    case .success(let loaded): load = loaded
    }
    var from = context.now
    if let text = command.options["--from"] {
        guard let parsed = TimeParsing.instant(text, zone: load.household.zone) else {
            return .failure(
                .usage,
                UsageError.invalidValue(
                    option: "--from", value: text, expected: "YYYY-MM-DDTHH:MM[:SS] or an RFC 3339 instant"
                ).description)
        }
        from = parsed
    }
    let plan = Planner.plan(load.household, from: from, days: days)
    var stderr = load.problems.map { "daysomectl: \($0)\n" }.joined()
    if let reason = plan.notLaidReason { stderr += "daysomectl: nothing is laid: \(reason)\n" }
    var output =
        command.has("--json")
        ? CommandOutput(stdout: plan.json(problems: load.problems).serialized(pretty: true) + "\n", stderr: stderr)
        : CommandOutput(stdout: PlanTable.render(plan, zone: load.household.zone), stderr: stderr)
    if let svgPath = command.options["--svg"] {
        output.draw(WeekPicture.plan(plan, zone: load.household.zone, source: baseName(path)), to: svgPath)
    }
    return output
}
