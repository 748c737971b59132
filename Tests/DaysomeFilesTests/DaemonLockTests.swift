// DaemonLock in one process: OFD locks belong to the open file description, so a second open of
// the same file in this process conflicts exactly as another process's would.

import DaysomeFiles
import Glibc
import Testing

@Suite("The runtime directory's lock")
struct DaemonLockTests {
    @Test func isHeldWhileADaemonHoldsTheLockAndNotAfter() throws {
        let directory = scratchDirectory()
        #expect(!DaemonLock.isHeld(runtimeDirectory: directory), "no lock file yet")
        var lock: DaemonLock? = try DaemonLock(runtimeDirectory: directory)
        #expect(DaemonLock.isHeld(runtimeDirectory: directory))
        withExtendedLifetime(lock) {}
        lock = nil
        #expect(!DaemonLock.isHeld(runtimeDirectory: directory), "the lock file stays, the lock goes")
    }

    @Test func aSecondDaemonIsRefusedWithEWOULDBLOCK() throws {
        let directory = scratchDirectory()
        let first = try DaemonLock(runtimeDirectory: directory)
        defer { withExtendedLifetime(first) {} }
        let refused = #expect(throws: FileError.self) { try DaemonLock(runtimeDirectory: directory) }
        #expect(refused?.errno == EWOULDBLOCK, "\(String(describing: refused))")
    }

    @Test func probingNeverTakesTheLockFromAStartingDaemon() async throws {
        let directory = scratchDirectory()
        // Taken and dropped at once: it leaves the lock file for the probes to open.
        _ = try DaemonLock(runtimeDirectory: directory)
        // Probes run throughout while daemons start and stop; a probe that took the lock for a
        // moment would make one of these starts fail.
        let probes = Task.detached {
            for _ in 0..<20_000 { _ = DaemonLock.isHeld(runtimeDirectory: directory) }
        }
        var started = 0
        for _ in 0..<2_000 {
            let lock = try DaemonLock(runtimeDirectory: directory)
            withExtendedLifetime(lock) { started += 1 }
        }
        await probes.value
        #expect(started == 2_000)
    }
}

/// A fresh private directory under /tmp.
func scratchDirectory() -> String {
    var template = Array("/tmp/daysome-files-XXXXXX".utf8CString)
    return template.withUnsafeMutableBufferPointer { buffer in
        guard let made = mkdtemp(buffer.baseAddress!) else { preconditionFailure("mkdtemp failed") }
        return String(cString: made)
    }
}
