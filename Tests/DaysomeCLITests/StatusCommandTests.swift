// `daysomectl status` reads what the daemon published through the daemon's own type: what it
// wrote comes out the same, and a status with a key the tool does not know is refused by name.
// The daemon is stood in for by this process holding the runtime directory's lock.

import DaysomeCLI
import DaysomeCore
import DaysomeFiles
import Glibc
import Testing

@Suite("daysomectl status reads the daemon's status through the snapshot type", .serialized)
struct StatusCommandTests {
    /// A runtime directory owned by this process as a daemon would own it, and its paths.
    func owned(_ name: String) throws -> (lock: DaemonLock, runtime: String, scratch: String) {
        let scratch = repositoryRoot + "/.testrun/status-\(name)-\(getpid())"
        let runtime = scratch + "/run/daysome"
        try FileIO.makeDirectories(runtime, mode: 0o700)
        return (try DaemonLock(runtimeDirectory: runtime), runtime, scratch)
    }

    @Test("status --json prints what the daemon published, read back through the same type")
    func statusReadsThePublishedSnapshot() throws {
        let (lock, runtime, scratch) = try self.owned("read")
        defer {
            _ = lock
            _ = shell("rm -rf '\(scratch)'")
        }
        try FileIO.writeAtomically(runtime + "/status.json", aRunningStatus().json.serialized(pretty: true) + "\n")
        let json = ctl(["status", "--json", "--runtime-dir", runtime])
        #expect(json.status == .success, "\(json.stderr)")
        #expect(try StatusSnapshot(json: JSONParser.parse(json.stdout)) == aRunningStatus())
        let text = ctl(["status", "--runtime-dir", runtime])
        #expect(text.stdout.hasPrefix("daysomed: running (pid 4242)\nDisplay: away\nLock: unlocked;"), "\(text)")
        #expect(text.stdout.contains("\nCan deliver: yes\n"))
    }

    @Test("A status with a key renamed by the daemon is refused, naming the key the tool needs")
    func aRenamedKeyIsNamed() throws {
        let (lock, runtime, scratch) = try self.owned("renamed")
        defer {
            _ = lock
            _ = shell("rm -rf '\(scratch)'")
        }
        var object = try #require(aRunningStatus().json.objectValue)
        let index = try #require(object.members.firstIndex { $0.key == "canDeliver" })
        object.members[index].key = "canDeliverNow"
        try FileIO.writeAtomically(runtime + "/status.json", JSONValue.object(object).serialized() + "\n")
        let output = ctl(["status", "--json", "--runtime-dir", runtime])
        #expect(output.status == .failure)
        #expect(output.stdout.isEmpty)
        #expect(output.stderr.contains("'status.canDeliver' is missing"), "\(output.stderr)")
    }

    @Test("A daemon that has not published yet is shown as unable to deliver, not as an error")
    func aStartingDaemonCannotDeliverYet() throws {
        let (lock, runtime, scratch) = try self.owned("starting")
        defer {
            _ = lock
            _ = shell("rm -rf '\(scratch)'")
        }
        let json = ctl(["status", "--json", "--runtime-dir", runtime])
        #expect(json.status == .success)
        #expect(try StatusSnapshot(json: JSONParser.parse(json.stdout)).canDeliver == false)
        let text = ctl(["status", "--runtime-dir", runtime])
        #expect(text.stdout.hasPrefix("daysomed: starting, nothing published yet"), "\(text)")
    }
}
