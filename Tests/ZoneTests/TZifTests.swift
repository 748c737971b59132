import DaysomeCore
import DaysomeFiles
import Testing

/// TZif decoding on hand-built files: versions, slim files, table/footer hand-over, and errors.
@Suite struct TZifTests {
    @Test func slimFileFooterDrivesFutureYears() throws {
        var builder = TZifBuilder()
        builder.types = [.init(offset: 0, abbreviation: "GMT")]
        builder.footer = "GMT0BST,M3.5.0/1,M10.5.0"
        let slim = try ZoneRules(tzif: builder.bytes())
        #expect(
            slim.transitions(after: utc(2026, 1, 1), through: utc(2027, 1, 1)) == [
                ZoneTransition(at: utc(2026, 3, 29, 1), offsetBefore: 0, offsetAfter: 3600),
                ZoneTransition(at: utc(2026, 10, 25, 1), offsetBefore: 3600, offsetAfter: 0),
            ])
        #expect(slim.abbreviation(at: utc(2300, 7, 1)) == "BST")
        let london = try systemZone("Europe/London")
        let (from, through) = (utc(1997, 1, 1), utc(2400, 1, 1))
        #expect(slim.transitions(after: from, through: through) == london.transitions(after: from, through: through))
    }

    @Test func footerTakesOverAtTheLastTransition() throws {
        var builder = TZifBuilder()
        builder.types = [
            .init(offset: -300, abbreviation: "LMT"), .init(offset: 3600, abbreviation: "AAA"),
            .init(offset: 7200, isDST: true, abbreviation: "BBB"),
        ]
        let last = utc(1970, 3, 29, 1)
        builder.transitions = [(at: -1_000_000, type: 1), (at: last, type: 2)]
        builder.footer = "AAA-1BBB,M3.5.0,M10.5.0/3"
        let rules = try ZoneRules(tzif: builder.bytes())
        #expect(rules.offset(at: -1_000_001) == -300)
        #expect(rules.offset(at: -1_000_000) == 3600)
        #expect(rules.offset(at: last - 1) == 3600)
        #expect(rules.offset(at: last) == 7200)
        #expect(
            rules.transitions(after: Int64.min, through: utc(1971, 1, 1)) == [
                ZoneTransition(at: -1_000_000, offsetBefore: -300, offsetAfter: 3600),
                ZoneTransition(at: last, offsetBefore: 3600, offsetAfter: 7200),
                ZoneTransition(at: utc(1970, 10, 25, 1), offsetBefore: 7200, offsetAfter: 3600),
            ])
    }

    @Test func beforeTheFirstTransitionTypeZeroApplies() throws {
        // RFC 8536 says type 0, even when it is a DST type (glibc would pick the first standard type;
        // zic never writes such files).
        var builder = TZifBuilder()
        builder.types = [
            .init(offset: 7200, isDST: true, abbreviation: "XDT"), .init(offset: 3600, abbreviation: "XST"),
        ]
        builder.transitions = [(at: 0, type: 1)]
        builder.footer = ""
        let rules = try ZoneRules(tzif: builder.bytes())
        #expect(rules.offset(at: -1) == 7200)
        #expect(rules.abbreviation(at: -1) == "XDT")
        #expect(rules.offset(at: 0) == 3600)
    }

    @Test func emptyFooterKeepsTheLastTypeForever() throws {
        var builder = TZifBuilder()
        builder.types = [.init(offset: 0, abbreviation: "LMT"), .init(offset: 19_800, abbreviation: "IST")]
        builder.transitions = [(at: -100, type: 1)]
        builder.footer = ""
        let rules = try ZoneRules(tzif: builder.bytes())
        #expect(rules.offset(at: Int64.max) == 19_800)
        #expect(rules.transitions(after: -100, through: Int64.max).isEmpty)
    }

    @Test func versionOneUsesThe32BitBlockAndNoFooter() throws {
        var builder = TZifBuilder()
        builder.version = 0
        builder.types = [.init(offset: 0, abbreviation: "LMT"), .init(offset: -18_000, abbreviation: "EST")]
        builder.transitions = [(at: -2_000_000_000, type: 1)]
        let rules = try ZoneRules(tzif: builder.bytes())
        #expect(rules.offset(at: -2_000_000_001) == 0)
        #expect(rules.offset(at: utc(2300, 7, 1)) == -18_000)
    }

    @Test(arguments: [UInt8(ascii: "2"), UInt8(ascii: "3"), UInt8(ascii: "4"), UInt8(ascii: "5")])
    func versionTwoAndLaterUseThe64BitBlock(version: UInt8) throws {
        var builder = TZifBuilder()
        builder.version = version
        builder.types = [.init(offset: 0, abbreviation: "AAA"), .init(offset: 3600, abbreviation: "BBB")]
        // Beyond 2038: representable only in the 64-bit block (the 32-bit copy is garbage).
        let late = utc(2100, 1, 1)
        builder.transitions = [(at: late, type: 1)]
        builder.footer = "BBB-1"
        let rules = try ZoneRules(tzif: builder.bytes())
        #expect(rules.offset(at: late - 1) == 0)
        #expect(rules.offset(at: late) == 3600)
    }

    @Test func leapSecondRecordsAreRemovedFromTransitionTimes() throws {
        var builder = TZifBuilder()
        builder.types = [.init(offset: 0, abbreviation: "AAA"), .init(offset: 3600, abbreviation: "BBB")]
        builder.leapSeconds = [(occurrence: 1000, correction: 1), (occurrence: 2001, correction: 2)]
        builder.transitions = [(at: 500, type: 1), (at: 1500, type: 0), (at: 5000, type: 1)]
        builder.footer = ""
        let rules = try ZoneRules(tzif: builder.bytes())
        #expect(rules.transitions(after: 0, through: 10_000).map(\.at) == [500, 1499, 4998])
    }

    @Test func utcAndFixedOffsets() {
        #expect(ZoneRules.utc.offset(at: 0) == 0)
        #expect(ZoneRules.utc.abbreviation(at: Int64.max) == "UTC")
        #expect(ZoneRules(fixedOffset: 0) == ZoneRules.utc)
        #expect(ZoneRules(fixedOffset: 19_800).abbreviation(at: 0) == "+0530")
        #expect(ZoneRules(fixedOffset: -10_800).abbreviation(at: 0) == "-03")
        #expect(ZoneRules(fixedOffset: -10_800).offset(at: Int64.min) == -10_800)
        #expect(ZoneRules(fixedOffset: 3661).abbreviation(at: 0) == "+010101")
        #expect(ZoneRules(fixedOffset: 3600).transitions(after: Int64.min, through: Int64.max).isEmpty)
    }

    // MARK: - Errors

    @Test func badMagic() throws {
        let london = try #require(readBytes("/usr/share/zoneinfo/Europe/London"))
        for bytes in [[], Array("TZjf".utf8) + london.dropFirst(4), Array("#!/bin/sh\n".utf8)] {
            #expect(throws: ZoneRulesError(kind: .badMagic)) { try ZoneRules(tzif: bytes) }
        }
        #expect(ZoneRulesError(kind: .badMagic).description == "not a TZif file (bad magic)")
    }

    @Test func everyProperPrefixIsTruncated() throws {
        let london = try #require(readBytes("/usr/share/zoneinfo/Europe/London"))
        for length in 1..<london.count {
            #expect(throws: ZoneRulesError(kind: .truncated)) { try ZoneRules(tzif: Array(london[..<length])) }
        }
        #expect(ZoneRulesError(kind: .truncated).description == "truncated TZif data")
    }

    @Test func badFooter() throws {
        var builder = TZifBuilder()
        builder.footer = "XYZ"
        #expect(throws: ZoneRulesError(kind: .invalidFooter("XYZ"))) { try ZoneRules(tzif: builder.bytes()) }
        #expect(ZoneRulesError(kind: .invalidFooter("XYZ")).description == "invalid footer TZ string 'XYZ'")
        // Untrusted bytes end up in logs: control characters are escaped.
        builder.footer = "EST\u{1B}[2J"
        do {
            _ = try ZoneRules(tzif: builder.bytes())
            Issue.record("accepted a footer with an escape character")
        } catch {
            #expect(error.description == "invalid footer TZ string 'EST\\x1b[2J'")
        }
    }

    @Test func unsupportedVersion() {
        var builder = TZifBuilder()
        builder.version = UInt8(ascii: "1")
        #expect(throws: ZoneRulesError(kind: .unsupportedVersion(0x31))) { try ZoneRules(tzif: builder.bytes()) }
    }

    @Test func structuralErrors() {
        var builder = TZifBuilder()
        builder.transitions = [(at: 10, type: 1)]
        #expect(throws: ZoneRulesError(kind: .invalidData("bad local time type index"))) {
            try ZoneRules(tzif: builder.bytes())
        }
        builder.types.append(.init(offset: 60, abbreviation: "ONE"))
        builder.transitions = [(at: 10, type: 1), (at: 10, type: 0)]
        #expect(throws: ZoneRulesError(kind: .invalidData("transition times not in ascending order"))) {
            try ZoneRules(tzif: builder.bytes())
        }
        builder.transitions = []
        builder.types = []
        #expect(throws: ZoneRulesError(kind: .invalidData("bad local time type count"))) {
            try ZoneRules(tzif: builder.bytes())
        }
        var missingNewline = TZifBuilder().bytes()
        missingNewline[missingNewline.count - 6] = UInt8(ascii: "X")  // the newline before "UTC0\n"
        #expect(throws: ZoneRulesError(kind: .invalidData("footer does not start with a newline"))) {
            try ZoneRules(tzif: missingNewline)
        }
    }

    @Test func corruptedBytesNeverCrash() throws {
        let london = try #require(readBytes("/usr/share/zoneinfo/Europe/London"))
        var generator = SplitMix64(seed: 2025)
        var accepted = 0
        for round in 0..<20_000 {
            var bytes = london
            let edits = round < london.count ? 1 : 1 + Int(generator.next() % 8)
            for edit in 0..<edits {
                let position = round < london.count && edit == 0 ? round : Int(generator.next() % UInt64(bytes.count))
                bytes[position] = UInt8(truncatingIfNeeded: generator.next())
            }
            if let rules = try? ZoneRules(tzif: bytes) {
                accepted += 1
                _ = rules.offset(at: utc(2026, 6, 1))
                _ = rules.transitions(after: utc(2020, 1, 1), through: utc(2060, 1, 1))
            }
        }
        #expect(accepted > 0)
    }
}

/// A tiny deterministic generator, so the corruption test is reproducible.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
