// Corrupt state files, on the embedded daemon: a lay.json and a history line no daemon could have
// written are set aside and named in status, the daemon starts cleanly, lay numbers only grow, and
// daysomectl (run in-process on the same files) still reads the history.

import DaysomeCore
import DaysomeDaemon
import DaysomeFiles
import Glibc
import Testing

@Suite("Corrupt state files, on the embedded daemon")
struct CorruptStateTests {
    @Test func aCorruptLayFileAndHistoryLineStartTheDaemonCleanly() throws {
        let tablet = try tablet("corrupt-state", at: "2026-06-01T10:00:00Z")
        defer { tablet.remove() }
        let lay = try #require(try tablet.queue().lay)
        tablet.killDaemon()
        let state = tablet.paths.stateDirectory
        let layFile = state + "/lay.json"
        try FileIO.writeAtomically(
            layFile,
            #"{"format": 2, "layCounter": 1e300, "lay": {"number": 1e20}, "delivered": [{"lay": -1}], "called": []}"#)
        let history = state + "/history.jsonl"
        let fd = open(history, O_WRONLY | O_APPEND | O_CLOEXEC)
        #expect(fd >= 0)
        let line =
            #"{"time":"2026-06-01T09:00:00Z","event":"laid","lay":1e20,"at":null,"itemIds":[],"reason":null}"# + "\n"
        _ = line.withCString { write(fd, $0, strlen($0)) }
        close(fd)

        try tablet.startDaemon()
        var names: [String] = []
        if let directory = opendir(state) {
            while let entry = readdir(directory) {
                names.append(
                    withUnsafeBytes(of: entry.pointee.d_name) {
                        String(cString: $0.bindMemory(to: CChar.self).baseAddress!)
                    })
            }
            closedir(directory)
        }
        #expect(names.contains { $0.hasPrefix("lay.json.corrupt-") }, "\(names)")
        let errors = try tablet.status().household.errors
        #expect(errors.contains { $0.file == layFile && $0.field == "layCounter" }, "\(errors)")
        #expect(errors.contains { $0.file == history && $0.message.contains("1 unreadable line") }, "\(errors)")
        // Lay numbers only grow: the history still names the lay before the corruption.
        let relaid = try #require(try tablet.queue().lay)
        #expect(relaid > lay)
        let read = tablet.ctl(["history", "--json"])
        #expect(read.status == .success, "\(read)")
    }
}
