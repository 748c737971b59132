// Rule 9, bad input never crashes the daemon. What the fuzzers (scripts/fuzz) saved under
// Fixtures/fuzz-found, and every file under Fixtures/bad so that the test never passes on
// nothing, goes through the household parser the daemon uses and returns: a household, which is
// then planned, or a HouseholdFileError naming the file. A trap would end the test run.
// A reproducer is saved as Fixtures/fuzz-found/<target>-<short>.bin; adding one raises the count.

import DaysomeCore
import DaysomeFiles
import Glibc
import Testing

@Suite("Fuzz-found inputs")
struct FuzzFoundTests {
    /// Fixtures/fuzz-found: tzif-coinciding-rule.bin.
    static let fuzzFoundCount = 1
    static let badCount = 14

    @Test("Rule 9: every fuzz reproducer and every bad fixture returns a household or a named error, never a trap")
    func everyFileReturns() throws {
        let found = fuzzFixtureFiles("fuzz-found")
        let bad = fuzzFixtureFiles("bad")
        #expect(found.count == Self.fuzzFoundCount, "files in Fixtures/fuzz-found: \(found)")
        #expect(bad.count == Self.badCount, "files in Fixtures/bad: \(bad)")

        var usable: [String: Int] = [:]
        var failures: [String: HouseholdFileError.Reason] = [:]
        for name in found + bad {
            let path = fuzzFixtureRoot + name
            let bytes = try FileIO.read(path, limit: 2 * HouseholdParser.sizeLimit)
            let result = HouseholdParser.parse(
                bytes, file: path, zones: { try? ZoneFiles.load(name: $0) }, systemZoneName: "Europe/London")
            switch result {
            case .success(let load):
                usable[name] = startsPlanned(load.household, name)
            case .failure(let error):
                #expect(error.file == path)
                #expect(error.description.hasPrefix(path + ": "))
                failures[name] = error.reason
            }
        }
        // Of the bad fixtures only mixed-items.json is usable (its valid items are laid); the rest fail whole.
        #expect(usable.keys.filter { $0.hasPrefix("bad/") } == ["bad/mixed-items.json"])
        #expect(usable["bad/mixed-items.json", default: 0] > 0, "the usable items of mixed-items.json are laid")
        #expect(failures.keys.filter { $0.hasPrefix("bad/") }.count == Self.badCount - 1)
        #expect(usable.count + failures.count == Self.fuzzFoundCount + Self.badCount)
        #expect(failures["bad/version-2.json"] == .badVersion)
        #expect(failures["bad/unknown-zone.json"] == .unknownTimeZone("Europe/Londn"))
        #expect(failures["bad/all-items-invalid.json"] == .noValidItems(count: 2))
        for name in ["bad/invalid-utf8.json", "bad/truncated.json", "bad/nul-byte.json", "bad/deeply-nested.json"] {
            guard case .notJSON(let why)? = failures[name] else {
                Issue.record("\(name): \(String(describing: failures[name])), expected notJSON")
                continue
            }
            #expect(!why.isEmpty)
        }
    }

    /// Found by the `tzif` target: the footer `<-03>3<-02>,M1.5.0/-2,M1.4.0/-1` starts and ends summer time
    /// at the same instant in Januaries with four Sundays. The offset then changed as a UTC year began
    /// (1901-01-01) with no transition listed there, so rule 8 read local times on that day from a list
    /// that missed an offset.
    @Test("Fuzz-found TZif: every change of offset is a listed transition, even where the rule's start and end meet")
    func coincidingRuleListsEveryChange() throws {
        let bytes = try FileIO.read(fuzzFixtureRoot + "fuzz-found/tzif-coinciding-rule.bin", limit: 1 << 16)
        let rules = try ZoneRules(tzif: bytes)
        let newYear1901: Int64 = -2_177_452_800
        #expect(rules.offset(at: newYear1901 - 1) != rules.offset(at: newYear1901))
        let around = rules.transitions(after: newYear1901 - 86_400, through: newYear1901 + 86_400)
        #expect(around.map(\.at) == [newYear1901])
        // Two-year ranges from 1900 to 2100, offsets sampled weekly against the listed transitions.
        var unlisted: [Int64] = []
        var first: Int64 = -2_208_988_800
        while first < 4_102_444_800 {
            let last = first + 2 * 366 * 86_400
            let transitions = rules.transitions(after: first, through: last)
            var sample = first + 1
            while sample <= last {
                let listed = transitions.last { $0.at <= sample }?.offsetAfter
                let expected = listed ?? transitions.first?.offsetBefore ?? rules.offset(at: first + 1)
                if rules.offset(at: sample) != expected { unlisted.append(sample) }
                sample += 7 * 86_400
            }
            first = last
        }
        #expect(unlisted.count == 0, "offsets that changed with no transition listed, first: \(unlisted.prefix(3))")
    }

    /// Plans a usable household for 8 days, notifications on, as the household fuzz target does,
    /// checks the plan's invariants and returns how many starts it has.
    private func startsPlanned(_ parsed: Household, _ name: String) -> Int {
        var household = parsed
        household.settings.notifyInOtherApps = true
        let from = Instant(seconds: 1_792_839_600)
        let plan = Planner.plan(household, from: from, days: 8)
        var previous = from
        for start in plan.starts {
            #expect(start.at > previous, "\(name): \(start.at) is not after \(previous)")
            #expect(start.at <= from.adding(seconds: 8 * 86_400), "\(name): \(start.at) is past the window")
            #expect(start.expiresAt > start.at, "\(name): \(start.at) expires at \(start.expiresAt)")
            previous = start.at
        }
        return plan.starts.count
    }
}

/// The repository's Fixtures/ directory, with its trailing slash.
private let fuzzFixtureRoot: String = {
    let components = #filePath.split(separator: "/").dropLast(3)
    return "/" + components.joined(separator: "/") + "/Fixtures/"
}()

/// The regular files of a directory under Fixtures/, as `directory/name`, sorted; none when it is absent.
private func fuzzFixtureFiles(_ directory: String) -> [String] {
    guard let stream = opendir(fuzzFixtureRoot + directory) else { return [] }
    defer { closedir(stream) }
    var names: [String] = []
    while let entry = readdir(stream) {
        var name = entry.pointee.d_name
        let text = withUnsafePointer(to: &name) {
            String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self))
        }
        if entry.pointee.d_type == UInt8(DT_REG) { names.append(directory + "/" + text) }
    }
    return names.sorted()
}
