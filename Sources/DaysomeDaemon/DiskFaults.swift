// The state files' fault seam: every write the daemon's state depends on (lay.json, history, the
// runtime copy of an unsaved state, the last good household, the state directory itself) asks
// here first. In production nothing is ever refused and the kernel's own errors are the only
// ones; the embedded world fills a disk with it (ENOSPC, EROFS, EIO) without needing one.

import DaysomeFiles

/// Directories whose writes fail, and with which error.
package final class DiskFaults {
    /// Each failing directory, with the errno its writes get.
    private(set) var failing: [String: Int32] = [:]

    package init() {}

    /// Writes under `directory` fail with `errno` from now on; nil makes them succeed again.
    package func fail(_ directory: String, with errno: Int32?) {
        self.failing[directory] = errno
    }

    /// Throws the error a write to `path` gets, when its directory is failing.
    func check(_ path: String, operation: String = "write") throws(FileError) {
        for (directory, errno) in self.failing where path == directory || path.hasPrefix(directory + "/") {
            throw FileError(path: path, errno: errno, operation: operation)
        }
    }
}
