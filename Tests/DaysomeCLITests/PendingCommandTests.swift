// `daysomectl pending --json` on the wheel prints the queue the daemon wrote as it is, once it has
// read back as a queue (issue 44: no rebuilding of what is already the contract's text); a file
// in another form still comes out in the contract's form, and a file that is not a queue is refused.
// The daemon is stood in for by this process holding the runtime directory's lock.

import DaysomeCLI
import DaysomeCore
import DaysomeFiles
import Glibc
import Testing

private let aQueue = QueueSnapshot(
    backend: "wheel", display: .away, lay: 3, daemonRunning: true,
    publisher: QueueSnapshot.Publisher(pid: 4242, timeZone: "Europe/London"),
    pending: [
        QueueSnapshot.Entry(
            lay: 3, at: Instant(seconds: 1_796_130_000), local: "2026-12-01T13:00:00+00:00",
            itemIds: ["lunch"], title: "Lunch", handle: "wheel:1",
            expiresAt: Instant(seconds: 1_796_132_700))
    ])

@Suite("daysomectl pending --json prints the wheel's published queue", .serialized)
struct PendingCommandTests {
    /// A runtime directory owned by this process as a daemon would own it, and its paths.
    func owned(_ name: String) throws -> (lock: DaemonLock, runtime: String, scratch: String) {
        let scratch = repositoryRoot + "/.testrun/pending-\(name)-\(getpid())"
        let runtime = scratch + "/run/daysome"
        try FileIO.makeDirectories(runtime, mode: 0o700)
        return (try DaemonLock(runtimeDirectory: runtime), runtime, scratch)
    }

    @Test("The queue the daemon wrote is printed byte for byte")
    func publishedBytesArePrinted() throws {
        let (lock, runtime, scratch) = try self.owned("bytes")
        defer {
            _ = lock
            _ = shell("rm -rf '\(scratch)'")
        }
        try FileIO.writeAtomically(runtime + "/queue.json", aQueue.serialized)
        let output = ctl(["pending", "--json", "--runtime-dir", runtime])
        #expect(output.status == .success, "\(output.stderr)")
        #expect(output.stdout == aQueue.serialized)
        #expect(output.stdout == aQueue.json.serialized(pretty: true) + "\n")
    }

    @Test("A queue written compact is printed in the contract's pretty form")
    func compactQueueIsPrintedPretty() throws {
        let (lock, runtime, scratch) = try self.owned("compact")
        defer {
            _ = lock
            _ = shell("rm -rf '\(scratch)'")
        }
        try FileIO.writeAtomically(runtime + "/queue.json", aQueue.json.serialized() + "\n")
        let output = ctl(["pending", "--json", "--runtime-dir", runtime])
        #expect(output.status == .success, "\(output.stderr)")
        #expect(output.stdout == aQueue.serialized)
    }

    @Test("A pretty file that is not a queue is refused, not printed")
    func aPrettyNonQueueIsRefused() throws {
        let (lock, runtime, scratch) = try self.owned("not-queue")
        defer {
            _ = lock
            _ = shell("rm -rf '\(scratch)'")
        }
        var object = try #require(aQueue.json.objectValue)
        object.members.removeAll { $0.key == "pending" }
        try FileIO.writeAtomically(runtime + "/queue.json", JSONValue.object(object).serialized(pretty: true) + "\n")
        let output = ctl(["pending", "--json", "--runtime-dir", runtime])
        #expect(output.status == .failure)
        #expect(output.stdout.isEmpty)
        #expect(output.stderr.contains("cannot be read"), "\(output.stderr)")
    }

    @Test("A pretty queue with an entry missing its handle is refused, not printed")
    func aPrettyQueueWithAnIncompleteEntryIsRefused() throws {
        let (lock, runtime, scratch) = try self.owned("no-handle")
        defer {
            _ = lock
            _ = shell("rm -rf '\(scratch)'")
        }
        let text = aQueue.serialized.replacing(",\n      \"handle\": \"wheel:1\"", with: "")
        #expect(text != aQueue.serialized)
        try FileIO.writeAtomically(runtime + "/queue.json", text)
        let output = ctl(["pending", "--json", "--runtime-dir", runtime])
        #expect(output.status == .failure)
        #expect(output.stdout.isEmpty)
        #expect(output.stderr.contains("handle"), "\(output.stderr)")
    }
}
