// ReliabilitySupport: what the wheel's bad-input and security tests plant and read; the queue's
// views shared with the systemd backend's tests are in DaysomeTestSupport/QueueView.swift.

import DaysomeCore
import DaysomeTestSupport
import Glibc

/// Puts a symlink to `target` at `path` by rename, as an attacker would plant it.
func plantSymlink(_ path: String, to target: String) throws {
    let temporary = path + ".link"
    unlink(temporary)
    guard symlink(target, temporary) == 0, rename(temporary, path) == 0 else {
        throw HarnessError("planting a symlink at \(path) failed: \(errnoText(errno))")
    }
}

/// A pid that no process has: a child that has exited and been reaped.
func deadPid() async throws -> pid_t {
    let child = try SpawnedProcess(
        try findExecutable("true", package: "coreutils"), [], environment: ["PATH": childPath])
    guard await child.exit(within: 5) else {
        throw HarnessError("`true` did not exit")
    }
    return child.pid
}

extension TestWorld {
    /// `status --json`'s household errors.
    func householdErrors() async throws -> [HouseholdProblem] {
        try await self.status().household.errors
    }
}
