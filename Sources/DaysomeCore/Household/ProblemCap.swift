// How many household problems are listed where a person reads them: a file with 5,000 invalid
// items made status.json 1.1 MB and put 5,000 lines in the journal at every load. The first few
// name the mistake as well as all of them do; the count says how many there are.

/// The caps on listed household problems, and the lists they leave.
public enum ProblemCap {
    /// Problems listed in `status.json`'s `household.errors` (`household.errorCount` counts all).
    public static let status = 50
    /// Problems logged per load of the household, before one summary line.
    public static let journal = 20

    /// The first `limit` of `problems`, and how many are left out.
    public static func capped<T>(_ problems: [T], limit: Int) -> (listed: [T], more: Int) {
        guard problems.count > limit else { return (problems, 0) }
        return (Array(problems.prefix(max(0, limit))), problems.count - max(0, limit))
    }

    /// The journal's lines for one load's problems: the first `journal` of them, then one line
    /// saying how many more there are and where to read the first `status` of them.
    public static func logActions(_ problems: [HouseholdProblem]) -> [MachineAction] {
        let (listed, more) = self.capped(problems, limit: self.journal)
        var actions = listed.map { MachineAction.log(.warning, $0.description) }
        if more > 0, let file = problems.first?.file {
            actions.append(
                .log(
                    .warning,
                    "'\(file)': ... and \(more) more problems (\(problems.count) in all; "
                        + "daysomectl status lists the first \(self.status))"))
        }
        return actions
    }
}
