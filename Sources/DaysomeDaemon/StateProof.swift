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
        // The marker wins over a copy: a copy written before a later one failed is older than
        // what was called last.
        if FileIO.exists(paths.unprovenMarkerFile) { return false }
        if unsaved || sameBoot { return true }
        // A new boot: the runtime directory's records are gone with it. Nothing to resume needs
        // no proof; a lay to resume is trusted where the state directory takes a write now. One
        // that refuses it may have refused the last call's record too.
        guard read.lay != nil else { return true }
        writes.persist(read, now: now)
        return !writes.layBehind
    }
}
