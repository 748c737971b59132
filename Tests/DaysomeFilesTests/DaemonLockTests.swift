// DaemonLock in one process: OFD locks belong to the open file description, so a second open of
// the same file in this process conflicts exactly as another process's would.

import DaysomeCore
import DaysomeFiles
import DaysomeTestSupport
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

    /// A process that spawns children (the daemon's bell and bring-back, or another test in this
    /// one) lends each a copy of every descriptor until its exec: a dropped lock must be free at
    /// once all the same. Before the lock was released by name, a third of these starts failed.
    @Test func aDroppedLockIsFreeAtOnceWhileAnotherThreadSpawnsChildren() throws {
        let directory = scratchDirectory()
        // Both sides run for the same half second, so that every start meets spawns. The spawns
        // run on a thread of their own: a task could wait behind the suite's other tests.
        let shared = UnsafeMutablePointer<Double>.allocate(capacity: 2)
        defer { shared.deallocate() }
        shared[0] = monotonicSeconds() + 0.5
        shared[1] = 0
        var thread = pthread_t()
        let created = pthread_create(
            &thread, nil,
            { raw in
                let shared = raw!.assumingMemoryBound(to: Double.self)
                while monotonicSeconds() < shared[0] {
                    spawnTrueAndWait()
                    shared[1] += 1
                }
                return nil
            }, shared)
        try #require(created == 0)
        var tried = 0
        var refused = 0
        var firstRefusal = ""
        while monotonicSeconds() < shared[0] {
            tried += 1
            do {
                let lock = try DaemonLock(runtimeDirectory: directory)
                withExtendedLifetime(lock) {}
            } catch {
                if refused == 0 { firstRefusal = "\(error)" }
                refused += 1
            }
        }
        pthread_join(thread, nil)
        #expect(shared[1] > 0 && tried > 0, "\(shared[1]) spawns, \(tried) starts")
        #expect(refused == 0, "\(refused) of \(tried) starts refused, the first: \(firstRefusal)")
    }
}

/// The monotonic clock, in seconds.
private func monotonicSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

/// Spawns /bin/true and waits for it.
private func spawnTrueAndWait() {
    var pid: pid_t = 0
    let arguments: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/true"), nil]
    defer { free(arguments[0]) }
    guard posix_spawn(&pid, "/bin/true", nil, nil, arguments, environ) == 0 else { return }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
}

/// A fresh private directory under /tmp.
func scratchDirectory() -> String {
    var template = Array("/tmp/daysome-files-XXXXXX".utf8CString)
    return template.withUnsafeMutableBufferPointer { buffer in
        guard let made = mkdtemp(buffer.baseAddress!) else { preconditionFailure("mkdtemp failed") }
        return String(cString: made)
    }
}

@Suite("The record a daemon keeps in its lock file")
struct RuntimeRecordTests {
    @Test func aRecordIsKeptInPlaceAndTheNextDaemonOfTheBootReadsIt() throws {
        let directory = try TestDirectory()
        let runtime = try directory.makeDirectory("run")
        var lock: DaemonLock? = try DaemonLock(runtimeDirectory: runtime)
        #expect(lock?.earlierRecord.isEmpty == true)
        let identity = FileIdentity.of(directory.path)
        #expect(lock?.keepRecord(RuntimeRecord(kept: .nowhere, stateDirectory: identity).bytes) == true)
        var info = stat()
        #expect(stat(DaemonLock.path(in: runtime), &info) == 0)
        #expect(Int(info.st_size) == DaemonLock.recordSize, "the record's space was not reserved")
        lock = nil
        let next = try DaemonLock(runtimeDirectory: runtime)
        let read = try #require(RuntimeRecord(bytes: next.earlierRecord))
        #expect(read.kept == .nowhere)
        #expect(read.stateDirectory.isSame(as: identity))
        // A torn record proves nothing.
        #expect(
            RuntimeRecord(bytes: Array(RuntimeRecord(kept: .layFile, stateDirectory: identity).bytes.dropLast(5)))
                == nil)
    }
}
