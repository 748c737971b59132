// The one place the daemon builds its status: what `daysomectl status` reads back through the
// same `StatusSnapshot` type. A new key is a property of the snapshot type and one line here
// (or in ServerStatus.swift for the notification server's part).

import DaysomeCore
import DaysomeFiles
import Glibc

extension Manager {
    /// The status as published in `status.json`.
    package func statusSnapshot() -> StatusSnapshot {
        let machine = self.machine
        let paths = self.options.paths
        let settings = machine.household?.load.household.settings
        let server = self.notifier?.server ?? ServerInfo(name: nil, present: false, capabilities: [])
        let daemon = StatusSnapshot.Daemon(
            notifier: self.options.notifier.rawValue, notLaidReason: machine.notLaidReason,
            pending: machine.laidCount, delivered: machine.persisted.delivered.count,
            grace: Int(self.options.grace), displayStatePath: paths.displayState,
            runtimeDirectory: paths.runtimeDirectory, stateDirectory: paths.stateDirectory,
            chime: StatusSnapshot.Chime(
                on: settings?.chime != .off, player: self.chimePlayer?.player, file: self.chimePlayer?.file),
            bringDayBack: StatusSnapshot.BringDayBack(
                on: settings?.bringDayBack == true, means: self.returner?.means,
                ready: settings?.bringDayBack == true && self.returner?.means != nil),
            doNotDisturb: self.respectsDoNotDisturb ? "respect" : "override", lock: self.lockStatus,
            wakeSystem: .underAUserManager, stateWriteErrors: self.writes.errors,
            displayFileProblem: self.displayFileProblem, controlSocketAtLimit: self.control?.atDescriptorLimit)
        return StatusSnapshot(
            pid: UInt64(getpid()), display: machine.display, lay: machine.currentLay?.number,
            backend: self.options.backend.rawValue, notifyInOtherApps: machine.notifyInOtherApps,
            notificationServer: server.status(
                lastRefusal: self.lastRefusal, respectDoNotDisturb: self.respectsDoNotDisturb),
            canDeliver: machine.canDeliver(serverPresent: server.present),
            laidUntil: machine.currentLay?.laidUntil,
            nextStart: machine.nextLaid.map { StatusSnapshot.NextStart(at: $0.at, title: $0.title) },
            household: self.householdStatus(), daemon: daemon)
    }

    /// `household`: the file, its errors (state files set aside first, then the file's own), and
    /// which household the daemon lays from: the file, or its kept copy of the last good one.
    func householdStatus() -> StatusSnapshot.HouseholdStatus {
        let machine = self.machine
        let paths = self.options.paths
        var errors = self.stateProblems
        if let error = machine.householdError {
            errors.append(
                HouseholdProblem(
                    file: error.file, itemId: nil, field: error.field,
                    message: error.message + (machine.household == nil ? "" : "; keeping the last good household")))
            errors += error.problems
        }
        errors += machine.household?.load.problems ?? []
        // The first few name the mistake; the count says how many (status.json stays small).
        let listed = ProblemCap.capped(errors, limit: ProblemCap.status).listed
        return StatusSnapshot.HouseholdStatus(
            path: paths.household, loadedAt: machine.household?.loadedAt,
            items: machine.household?.load.household.items.count ?? 0,
            timeZone: machine.household?.load.household.zone.name, errors: listed, errorCount: errors.count,
            inForce: machine.household.map { household in
                StatusSnapshot.InForce(
                    source: household.fromKeptCopy ? .keptCopy : .file,
                    path: household.fromKeptCopy ? LastGoodHousehold.path(in: paths) : paths.household,
                    since: household.loadedAt)
            })
    }
}
