// Pidfd: opening, signalling, and the processExists helper.

import DaysomeTestSupport
import Glibc
import Testing

@testable import SystemdKit

@Suite struct PidfdTests {
    @Test func openingMissingProcessThrowsNoSuchProcess() {
        // Above /proc/sys/kernel/pid_max's ceiling (2^22), so it can never exist.
        #expect(throws: Errno.noSuchProcess) { try Pidfd.open(pid: 0x7fff_fff0) }
    }

    @Test func processExistsForUsAndNotForImpossiblePid() {
        #expect(Pidfd.processExists(getpid()))
        #expect(!Pidfd.processExists(0x7fff_fff0))
    }

    @Test func sendSignalEndsTheProcess() throws {
        let sleep = try SpawnedProcess(try findExecutable("sleep", package: "coreutils"), ["30"], environment: [:])
        let pidfd = try Pidfd.open(pid: sleep.pid)
        #expect(pidfd.pid == sleep.pid)
        #expect(!pidfd.hasExited)
        try pidfd.sendSignal(SIGKILL)
        let deadline = monotonicUsec() + 2_000_000
        while !pidfd.hasExited && monotonicUsec() < deadline {
            usleep(5_000)
        }
        #expect(pidfd.hasExited)
        // Exited but not reaped: a zombie still exists.
        #expect(Pidfd.processExists(sleep.pid))
        #expect(sleep.wait(seconds: 1))
        #expect(!Pidfd.processExists(sleep.pid))
    }
}
