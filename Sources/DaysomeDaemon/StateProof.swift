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
    ///   - unsaved: a copy kept in the runtime directory was read (and merged): it is the record.
    ///   - sameBoot: a daemon of this boot ran on this runtime directory: it left a copy or a
    ///     marker had lay.json fallen behind.
    static func stateProven(
        _ read: PersistedState, unsaved: Bool, sameBoot: Bool, paths: Paths, writes: StateWrites, now: Instant
    ) -> Bool {
        StateProof.proven(
            unprovenMarker: FileIO.exists(paths.unprovenMarkerFile), unsavedRead: unsaved, sameBoot: sameBoot,
            layToResume: read.lay != nil
        ) {
            writes.persist(read, now: now)
            return !writes.layBehind
        }
    }
}
