// FileError: the system's errno and the two refusals of our own, each with the text a person
// reads in the household errors and the logs.

import DaysomeFiles
import Glibc
import Testing

@Suite("File errors")
struct FileErrorTests {
    @Test func aMissingFileCarriesTheSystemsErrnoAndText() {
        let path = scratchDirectory() + "/missing.json"
        let error = #expect(throws: FileError.self) { try FileIO.read(path, limit: 10) }
        #expect(error?.cause == .system(.noSuchFileOrDirectory))
        #expect(error?.errno == ENOENT)
        #expect(error?.description == "Failed to read '\(path)': No such file or directory")
    }

    @Test func aFileOverTheLimitIsTooLargeWithNoErrno() throws {
        let path = scratchDirectory() + "/big.json"
        try FileIO.writeAtomically(path, String(repeating: "x", count: 100), mode: 0o600)
        let error = #expect(throws: FileError.self) { try FileIO.read(path, limit: 10) }
        #expect(error?.cause == .tooLarge)
        #expect(error?.errno == nil)
        #expect(error?.reason == "file too large")
    }

    @Test func aNamedPipeIsNotARegularFile() {
        let path = scratchDirectory() + "/pipe.json"
        #expect(mkfifo(path, 0o600) == 0)
        let error = #expect(throws: FileError.self) { try FileIO.read(path, limit: 10, regularOnly: true) }
        #expect(error?.cause == .notRegularFile)
        #expect(error?.errno == nil)
        #expect(error?.reason == "not a regular file (a pipe, socket or device)")
    }
}
