// Never twice across a restart whose state directory refused writes. A call is kept in lay.json
// before its Notify; when lay.json cannot be written (a full or read-only disk) the state goes to
// the runtime directory instead (StateWrites), which outlives the daemon but not the boot. At
// start-up the daemon decides whether what it read is on record with everything called before:
// only then does it deliver what it owes from before the restart (rule 2); otherwise it drops
// it, recorded, rather than risk calling it a second time.

import DaysomeCore
import DaysomeFiles
import Glibc

extension Manager {
    /// Whether the state read at start-up holds every call made before the restart.
    /// - Parameters:
    ///   - kept: where the earlier daemon of this boot recorded its calls kept (its lock file's
    ///     record), for this state directory; nil where it left none.
    ///   - legacyMarker: an older daemon's `lay.unproven`, a plain file.
    ///   - unsaved: a copy kept in the runtime directory was read (and merged).
    ///   - sameBoot: a daemon of this boot ran on this runtime directory with this state directory.
    static func stateProven(
        _ read: PersistedState, kept: CallsKept?, legacyMarker: Bool, unsaved: Bool, sameBoot: Bool,
        writes: StateWrites, now: Instant
    ) -> Bool {
        StateProof.proven(
            kept: kept, legacyMarker: legacyMarker, unsavedRead: unsaved, sameBoot: sameBoot,
            layToResume: read.lay != nil
        ) {
            writes.persist(read, now: now)
            return !writes.layBehind
        }
    }

    /// Whether an older daemon left its `lay.unproven` marker (an empty plain file). Anything else
    /// there is no marker: named in `status` and set aside, so it never stands for a lost call
    /// (a directory there would otherwise outlive every restart of the boot).
    static func legacyMarker(
        _ paths: Paths, disk: any StateDisk, logger: Logger, now: Instant
    ) -> (Bool, HouseholdProblem?) {
        let marker = paths.unprovenMarkerFile
        guard disk.exists(marker) else { return (false, nil) }
        if disk.isRegularFile(marker) { return (true, nil) }
        let aside =
            (try? disk.setAside(marker, now: now)).map { "set aside as '\($0)'" }
            ?? ((try? disk.removeDirectory(marker)) != nil || (try? disk.removeFile(marker)) != nil
                ? "removed" : "could not be set aside")
        let problem = HouseholdProblem(
            file: marker, itemId: nil, field: nil,
            message: "is not the empty file a daemon leaves there, so it proves nothing; \(aside)")
        logger.log(.warning, problem.description)
        return (false, problem)
    }
}
