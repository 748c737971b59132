// How the machine takes a household read from the file or the kept copy: rule 9 keeps the
// last good one, and a settings value the new file cannot read keeps its last good value.

extension DaemonMachine {
    // MARK: Household

    mutating func acceptHousehold(
        _ result: Result<LoadedHousehold, HouseholdFileError>, now: Instant
    ) -> (changed: Bool, actions: [MachineAction]) {
        switch result {
        case .failure(let error):
            self.householdError = error
            var actions = ProblemCap.logActions(error.problems)
            let keeping =
                self.household == nil ? "nothing is laid until it is fixed" : "keeping the last good household"
            actions.append(.log(.error, "Invalid household file: \(error); \(keeping)"))
            return (false, actions)
        case .success(let read):
            self.householdError = nil
            let changed = self.household?.digest != read.digest
            // Rule 9: a settings value this file could not read keeps the last good one.
            let loaded = self.household.map { read.keepingSettings(of: $0.load.household.settings) } ?? read
            self.household = loaded
            var actions = ProblemCap.logActions(loaded.load.problems)
            if changed {
                actions.append(.log(.info, "Loaded household with \(loaded.load.household.items.count) items"))
            }
            return (changed, actions)
        }
    }
}
