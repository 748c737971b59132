// A loop for tests that drive the daemon's parts by hand: it runs nothing, and refuses every
// source (ENOSYS), as a loop that cannot arm one would.

import Glibc
import SystemdKit

/// A loop that runs nothing: StateWrites asks it only for its retry timer, which a cut disk
/// cannot use anyway.
final class StillLoop: Loop {
    func now(_ clock: clockid_t) -> UInt64 { 0 }
    func timer(
        clock: clockid_t, at usec: UInt64, accuracy: UInt64, description: String, _ handler: @escaping () -> Void
    ) throws(Errno) -> any LoopSource { throw Errno(rawValue: ENOSYS) }
    func deferred(description: String, _ handler: @escaping () -> Void) throws(Errno) -> any LoopSource {
        throw Errno(rawValue: ENOSYS)
    }
    func inotify(
        path: String, mask: InotifyMask, description: String, _ handler: @escaping (InotifyEvent) -> Void
    ) throws(Errno) -> any LoopSource { throw Errno(rawValue: ENOSYS) }
    func io(
        fd: Int32, events: IOEvents, description: String, _ handler: @escaping (IOEvents) -> Void
    ) throws(Errno) -> any LoopSource { throw Errno(rawValue: ENOSYS) }
    func pidfdExit(
        _ pidfd: Int32, description: String, _ handler: @escaping () -> Void
    ) throws(Errno) -> any LoopSource { throw Errno(rawValue: ENOSYS) }
    func clockJumps(description: String, _ handler: @escaping () -> Void) throws(Errno) -> AnyObject {
        throw Errno(rawValue: ENOSYS)
    }
    func exit(code: Int32) throws(Errno) {}
}
