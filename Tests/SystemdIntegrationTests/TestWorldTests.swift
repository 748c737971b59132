// The test world's own promise that lets worlds with user managers run side by side: each
// manager runs in a cgroup of its own (managers of one uid started from one cgroup put their
// units in the same cgroups, and stopping a unit in one kills the other's processes), and the
// world removes that cgroup when it stops.

import DaysomeTestSupport
import Glibc
import Testing

@Suite("The test world")
struct TestWorldTests {
    /// The process-tracking line of /proc/<pid>/cgroup (`name=systemd` on v1, `0::` on v2).
    private func cgroup(of pid: pid_t) -> String? {
        let lines = readFile("/proc/\(pid)/cgroup").split(separator: "\n")
        let line = lines.first { $0.contains(":name=systemd:") } ?? lines.first { $0.hasPrefix("0::") }
        return line.map { String($0[$0.index(after: $0.lastIndex(of: ":")!)...]) }
    }

    @Test func userManagersOfTwoWorldsRunInCgroupsOfTheirOwnRemovedWhenTheWorldsStop() async throws {
        async let startedFirst = TestWorld.start(.userManager)
        async let startedSecond = TestWorld.start(.userManager)
        let (first, second) = try await (startedFirst, startedSecond)
        defer {
            first.stop()
            second.stop()
        }
        let firstManager = try #require(first.manager)
        let secondManager = try #require(second.manager)
        let firstGroup = try #require(self.cgroup(of: firstManager.pid))
        let secondGroup = try #require(self.cgroup(of: secondManager.pid))
        #expect(firstGroup != secondGroup, "both managers in \(firstGroup)")
        #expect(firstGroup.hasPrefix("/daysome-test-"), "\(firstGroup)")
        #expect(secondGroup.hasPrefix("/daysome-test-"), "\(secondGroup)")

        let ours =
            directoryEntries("/sys/fs/cgroup/systemd").map(\.name) + directoryEntries("/sys/fs/cgroup").map(\.name)
        let name = String(firstGroup.dropFirst().prefix { $0 != "/" })
        #expect(ours.contains(name), "\(name) not under /sys/fs/cgroup")
        first.stop()
        let left =
            directoryEntries("/sys/fs/cgroup/systemd").map(\.name) + directoryEntries("/sys/fs/cgroup").map(\.name)
        #expect(!left.contains(name), "\(name) left behind after the world stopped")
    }
}
