// A state directory lost under the daemon and made again (by the daemon's own retry, or by
// someone's `rm -rf` and `mkdir`) is a new, empty directory: it holds no last good household
// and no lock. Rule 9 needs the household kept there whenever one is in force (a broken file and
// a restart would otherwise lay nothing), and one daemon per state needs the new directory held.

import DaysomeFiles
import Glibc

extension Manager {
    /// After lay.json was written: the directory it went to is the one this daemon holds, and
    /// it keeps the last good household. One stat of each, no more, per write.
    func checkStateDirectory() {
        guard !self.writes.layBehind else { return }
        if let lock = self.stateLock, !lock.holds(self.options.paths.stateDirectory) {
            self.stateDirectoryCameBack()
        } else if self.stateLock == nil && !self.stateLockFailed {
            self.stateDirectoryCameBack()
        } else {
            self.keepLastGoodAgain()
        }
    }

    /// The state directory exists again: hold it, and keep the household in force in it.
    func stateDirectoryCameBack() {
        do {
            self.stateLock = try self.disk.lockStateDirectory(self.options.paths.stateDirectory, standingIn: false)
            self.stateLockFailed = false
        } catch .taken(let taken) {
            // Another daemon took the new directory first: two would each call every start.
            self.logger.log(.error, taken.description)
            try? self.loop.exit(code: 1)
            return
        } catch {
            // Said once: tried again only when the daemon makes the directory anew.
            self.logger.log(.error, "\(error); the state directory is not locked")
            self.stateLock = nil
            self.stateLockFailed = true
        }
        self.keepLastGoodAgain()
    }

    /// Writes the kept household again where its file is gone, whether the household in force came
    /// from the app's file or from the kept copy itself.
    func keepLastGoodAgain() {
        let path = LastGoodHousehold.path(in: self.options.paths)
        guard let copy = self.keptCopy, !self.disk.exists(path) else { return }
        do {
            try self.publisher.faults.check(path)
            try copy.save(to: path, disk: self.disk)
            self.logger.log(.notice, "Kept the last good household again in '\(path)': the state directory had lost it")
            self.writes.kept(path, nil, now: self.now())
        } catch {
            self.writes.kept(path, error, now: self.now())
        }
    }
}
