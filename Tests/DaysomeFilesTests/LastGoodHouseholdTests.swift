// The kept copy of the last good household: only the members the daemon reads, the file's
// digest with them, and the whole-file copies 0.1.0 wrote still read (and shed at once).

import DaysomeCore
import DaysomeFiles
import DaysomeTestSupport
import Glibc
import Testing

/// The seed household (its supervisor PIN 4071, a note and a menu library among its members).
private func seedBytes() -> [UInt8] {
    readBytesOf(packageRoot() + "/Fixtures/households/seed.json")
}

private func readBytesOf(_ path: String) -> [UInt8] {
    Array(readFile(path).utf8)
}

private func parsed(_ bytes: [UInt8]) -> HouseholdLoad? {
    try? HouseholdFile.parse(bytes, file: "household.json", environment: [:]).get().load
}

@Suite("The last good household, kept")
struct LastGoodHouseholdTests {
    let since = parseUTC("2026-11-30T08:00:00Z")!

    @Test("The kept copy holds only what the daemon reads: no supervisor PIN, no note, no menu library")
    func theKeptCopyHoldsNoPinNoteOrMenuLibrary() throws {
        let file = seedBytes()
        #expect(String(decoding: file, as: UTF8.self).contains("supervisorPin"))
        let copy = try #require(LastGoodHousehold.keeping(fileBytes: file, source: "/h.json", since: self.since))
        let directory = try TestDirectory()
        let path = directory.path + "/household.last-good.json"
        try copy.save(to: path)
        let kept = readFile(path)
        for secret in ["supervisorPin", "4071", "\"note\"", "SECRET-NOTE-7731", "menuLibrary", "Cottage pie"] {
            #expect(!kept.contains(secret), "the kept copy holds \(secret): \(kept)")
        }
        // Every member the daemon reads is there, and lays the same household.
        #expect(parsed(copy.bytes) == parsed(file))
        #expect(copy.fileDigest == fnv1a(file))
    }

    @Test("A kept copy read back is the household the file held, under the file's digest")
    func aKeptCopyReadsBackUnderTheFilesDigest() throws {
        let file = seedBytes()
        let directory = try TestDirectory()
        let path = directory.path + "/household.last-good.json"
        try #require(LastGoodHousehold.keeping(fileBytes: file, source: "/h.json", since: self.since)).save(to: path)
        let (copy, problem) = LastGoodHousehold.load(from: path)
        #expect(problem == nil)
        #expect(copy?.fileDigest == fnv1a(file))
        #expect(copy?.source == "/h.json")
        #expect(copy?.since == self.since)
        #expect(copy?.readFormat == LastGoodHousehold.format)
        #expect(parsed(copy?.bytes ?? []) == parsed(file))
    }

    @Test("A whole-file copy that 0.1.0 kept is still read, under its file's digest, without the app's members")
    func anOlderWholeFileCopyIsStillRead() throws {
        let file = seedBytes()
        let text = String(decoding: file, as: UTF8.self)
        // What 0.1.0 wrote: format 1, the file's exact text, its digest.
        let old = JSONValue.object(
            JSONObject([
                ("format", .number(1)), ("source", .string("/h.json")), ("since", .string("2026-11-30T08:00:00Z")),
                ("digest", .string(String(fnv1a(file), radix: 16))), ("household", .string(text)),
            ]))
        let directory = try TestDirectory()
        let path = directory.path + "/household.last-good.json"
        try writeFile(path, old.serialized() + "\n")
        let (copy, problem) = LastGoodHousehold.load(from: path)
        #expect(problem == nil)
        let kept = try #require(copy)
        #expect(kept.readFormat == 1)
        #expect(kept.fileDigest == fnv1a(file))
        #expect(!String(decoding: kept.bytes, as: UTF8.self).contains("4071"))
        #expect(parsed(kept.bytes) == parsed(file))
    }

    @Test("A copy whose digest does not match, or of a format this daemon does not know, is a problem")
    func untrustedCopiesAreProblems() throws {
        let directory = try TestDirectory()
        let path = directory.path + "/household.last-good.json"
        try writeFile(
            path,
            #"{"format":2,"source":"/h","since":"2026-11-30T08:00:00Z","fileDigest":"1","digest":"0","household":"{}"}"#
        )
        #expect(LastGoodHousehold.load(from: path).problem?.field == "digest")
        try writeFile(path, #"{"format":3,"household":"{}"}"#)
        #expect(LastGoodHousehold.load(from: path).problem?.field == "format")
        unlink(path)
        #expect(LastGoodHousehold.load(from: path).problem == nil)
        #expect(LastGoodHousehold.load(from: path).copy == nil)
    }
}
