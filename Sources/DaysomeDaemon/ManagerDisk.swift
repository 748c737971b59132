// The disk the Manager's files are on: the one its publisher writes through (StateDisk.swift),
// so every read and write of the daemon goes to one disk, the kernel's or a simulated one.

import DaysomeFiles

extension Manager {
    /// Where the daemon's files are read and written.
    var disk: any StateDisk { self.publisher.disk }
}
