// The atomic replace with its contents in pieces (a dense week's queue.json is written as it is
// made): the same steps as the whole write, and a piece the disk refuses leaves the old file whole
// and no temporary file behind.

import DaysomeFiles
import DaysomeSimDisk
import Glibc
import Testing

@Suite struct PiecewiseWriteTests {
    /// The simulated disk's calls, refusing the `refused`th write with ENOSPC.
    private struct RefusingWrite: FileCalls {
        final class Count { var writes = 0 }
        let calls: SimDisk.Calls
        let refused: Int
        let count = Count()

        func openForWriting(_ path: String, mode: mode_t, append: Bool) throws(Errno) -> SimDisk.Calls.File {
            try self.calls.openForWriting(path, mode: mode, append: append)
        }
        func openDirectory(_ path: String) throws(Errno) -> SimDisk.Calls.File { try self.calls.openDirectory(path) }
        func size(of file: SimDisk.Calls.File) throws(Errno) -> Int { try self.calls.size(of: file) }
        func write(_ file: SimDisk.Calls.File, _ bytes: ArraySlice<UInt8>) throws(Errno) {
            self.count.writes += 1
            if self.count.writes == self.refused { throw Errno(rawValue: ENOSPC) }
            try self.calls.write(file, bytes)
        }
        func sync(_ file: SimDisk.Calls.File, dataOnly: Bool) throws(Errno) {
            try self.calls.sync(file, dataOnly: dataOnly)
        }
        func truncate(_ file: SimDisk.Calls.File, to size: Int) { self.calls.truncate(file, to: size) }
        func close(_ file: SimDisk.Calls.File) { self.calls.close(file) }
        func rename(_ from: String, _ to: String) throws(Errno) { try self.calls.rename(from, to) }
        func unlink(_ path: String) { self.calls.unlink(path) }
    }

    private let pieces: [[UInt8]] = [Array("{\n  \"pending\": [".utf8), Array("1, 2".utf8), Array("]\n}\n".utf8)]

    @Test func aFileWrittenInPiecesHoldsThemInOrder() throws {
        let disk = SimDisk()
        disk.installDirectory("/run/daysome")
        try WriteSteps.writeAtomically(
            RefusingWrite(calls: SimDisk.Calls(disk: disk), refused: 0), "/run/daysome/queue.json", mode: 0o600,
            durable: false, pid: 7
        ) { emit in self.pieces.forEach { emit($0[...]) } }
        #expect(disk.contents("/run/daysome/queue.json") == self.pieces.flatMap { $0 })
        #expect(disk.names(in: "/run/daysome") == ["queue.json"])
    }

    @Test func aPieceTheDiskRefusesLeavesTheOldFileWholeAndNoTemporaryFile() throws {
        let disk = SimDisk()
        disk.installDirectory("/run/daysome")
        disk.install("/run/daysome/queue.json", text: "the queue before\n")
        let calls = RefusingWrite(calls: SimDisk.Calls(disk: disk), refused: 2)
        #expect(throws: FileError.self) {
            try WriteSteps.writeAtomically(calls, "/run/daysome/queue.json", mode: 0o600, durable: false, pid: 7) {
                emit in self.pieces.forEach { emit($0[...]) }
            }
        }
        #expect(calls.count.writes == 2, "a piece after the refused one was written")
        #expect(disk.contents("/run/daysome/queue.json") == Array("the queue before\n".utf8))
        #expect(disk.names(in: "/run/daysome") == ["queue.json"])
    }
}
