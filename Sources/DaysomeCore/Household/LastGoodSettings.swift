// Rule 9 for the settings: a household file whose `settings` (or one of its values) cannot be
// read is still used, but the value it could not read keeps what the last good household said,
// not the default. The default of `notifyInOtherApps` is off (rule 7), so falling back to it
// would let a broken value silence lunch. With no earlier household the defaults stand.
// The household's `words` are deliberately not kept this way: a malformed word falls back to
// English (WordsReader.swift says why), and an unusable file keeps the whole last good household.

extension LoadedHousehold {
    /// This household with every settings value its file could not read taken from `previous`,
    /// and its problems reworded to say so.
    public func keepingSettings(of previous: Settings) -> LoadedHousehold {
        var settings = self.load.household.settings
        var kept: [String] = []
        var problems: [HouseholdProblem] = []
        for problem in self.load.problems {
            guard problem.itemId == nil, let field = problem.field, let value = settings.take(field, from: previous)
            else {
                problems.append(problem)
                continue
            }
            kept.append(field)
            let what = problem.message.split(separator: ";", maxSplits: 1).first.map(String.init) ?? problem.message
            problems.append(
                HouseholdProblem(
                    file: problem.file, itemId: nil, field: field,
                    message: "\(what); keeping the last good household's \(value)"))
        }
        guard !kept.isEmpty else { return self }
        var household = self.load.household
        household.settings = settings
        let load = HouseholdLoad(household: household, problems: problems)
        return LoadedHousehold(
            load: load, digest: self.digest, loadedAt: self.loadedAt, fromKeptCopy: self.fromKeptCopy)
    }
}

extension Settings {
    /// Copies the value of `field` (`settings` for all of them) from `previous`; returns how it
    /// reads, or nil for a field that is not a setting.
    fileprivate mutating func take(_ field: String, from previous: Settings) -> String? {
        switch field {
        case "settings":
            self = previous
            return
                "settings (notifyInOtherApps \(previous.notifyInOtherApps), bringDayBack \(previous.bringDayBack), "
                + "exactAlarms \(previous.exactAlarms), chime \(previous.chime.rawValue))"
        case "settings.notifyInOtherApps":
            self.notifyInOtherApps = previous.notifyInOtherApps
            return "value, \(previous.notifyInOtherApps)"
        case "settings.bringDayBack":
            self.bringDayBack = previous.bringDayBack
            return "value, \(previous.bringDayBack)"
        case "settings.exactAlarms":
            self.exactAlarms = previous.exactAlarms
            return "value, \(previous.exactAlarms)"
        case "settings.chime":
            self.chime = previous.chime
            return "value, \(previous.chime.rawValue)"
        case "settings.respectDoNotDisturb":
            self.respectDoNotDisturb = previous.respectDoNotDisturb
            return "value, \(previous.respectDoNotDisturb.map { String($0) } ?? "the daemon's --dnd")"
        default:
            return nil
        }
    }
}
