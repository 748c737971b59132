import DaysomeCore
import DaysomeFiles
import Testing

/// Footer rules on hand-written TZ strings. Expected instants were cross-checked with glibc.
@Suite struct PosixTZTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let tz: String
        let year: Int32
        /// (UTC month, day, hour, minute, offset before, offset after)
        let expected: [(Int32, Int32, Int32, Int32, Int32, Int32)]
        /// Seconds past the minute of each expected transition.
        var seconds: [Int64] = [0, 0]
        var testDescription: String { "\(tz) in \(year)" }
    }

    static let cases: [Case] = [
        Case(
            tz: "EST5EDT,M3.2.0,M11.1.0", year: 2050,
            expected: [(3, 13, 7, 0, -18_000, -14_400), (11, 6, 6, 0, -14_400, -18_000)]),
        Case(
            tz: "EST5EDT,M3.2.0,M11.1.0", year: 2300,
            expected: [(3, 11, 7, 0, -18_000, -14_400), (11, 4, 6, 0, -14_400, -18_000)]),
        // No rules: the US rules are assumed.
        Case(tz: "EST5EDT", year: 2050, expected: [(3, 13, 7, 0, -18_000, -14_400), (11, 6, 6, 0, -14_400, -18_000)]),
        // Negative rule times (RFC 8536 extension; America/Nuuk uses them).
        Case(
            tz: "<-03>3<-02>,M3.5.0/-2,M10.5.0/-1", year: 2050,
            expected: [(3, 27, 1, 0, -10_800, -7200), (10, 30, 1, 0, -7200, -10_800)]),
        Case(
            tz: "<-03>3<-02>,M3.5.0/-2,M10.5.0/-1", year: 2300,
            expected: [(3, 25, 1, 0, -10_800, -7200), (10, 28, 1, 0, -7200, -10_800)]),
        // Rule times beyond 24 hours (Asia/Gaza).
        Case(
            tz: "EET-2EEST,M3.4.4/50,M10.4.4/50", year: 2050,
            expected: [(3, 26, 0, 0, 7200, 10_800), (10, 28, 23, 0, 10_800, 7200)]),
        Case(
            tz: "EET-2EEST,M3.4.4/50,M10.4.4/50", year: 2300,
            expected: [(3, 24, 0, 0, 7200, 10_800), (10, 26, 23, 0, 10_800, 7200)]),
        // Southern hemisphere: DST ends in April, starts in October.
        Case(
            tz: "AEST-10AEDT,M10.1.0,M4.1.0/3", year: 2050,
            expected: [(4, 2, 16, 0, 39_600, 36_000), (10, 1, 16, 0, 36_000, 39_600)]),
        Case(
            tz: "AEST-10AEDT,M10.1.0,M4.1.0/3", year: 2300,
            expected: [(3, 31, 16, 0, 39_600, 36_000), (10, 6, 16, 0, 36_000, 39_600)]),
        // Half-hour DST amount with explicit DST offset (Australia/Lord_Howe).
        Case(
            tz: "<+1030>-10:30<+11>-11,M10.1.0,M4.1.0", year: 2050,
            expected: [(4, 2, 15, 0, 39_600, 37_800), (10, 1, 15, 30, 37_800, 39_600)]),
        // Negative DST (Europe/Dublin): standard time is the summer time.
        Case(
            tz: "IST-1GMT0,M10.5.0,M3.5.0/1", year: 2300, expected: [(3, 25, 1, 0, 0, 3600), (10, 28, 1, 0, 3600, 0)]),
        // DST offset defaults to one hour ahead of standard time.
        Case(
            tz: "AAA-1BBB,M3.5.0,M10.5.0/3", year: 2050,
            expected: [(3, 27, 1, 0, 3600, 7200), (10, 30, 1, 0, 7200, 3600)]),
        // Jn never counts February 29; n does (2048 is a leap year, 2050 and 2300 are not).
        Case(
            tz: "XXX3YYY,J60/2,J300/2", year: 2048,
            expected: [(3, 1, 5, 0, -10_800, -7200), (10, 27, 4, 0, -7200, -10_800)]),
        Case(
            tz: "XXX3YYY,J60/2,J300/2", year: 2300,
            expected: [(3, 1, 5, 0, -10_800, -7200), (10, 27, 4, 0, -7200, -10_800)]),
        Case(
            tz: "XXX3YYY,59/2,299/2", year: 2048,
            expected: [(2, 29, 5, 0, -10_800, -7200), (10, 26, 4, 0, -7200, -10_800)]),
        Case(
            tz: "XXX3YYY,59/2,299/2", year: 2050,
            expected: [(3, 1, 5, 0, -10_800, -7200), (10, 27, 4, 0, -7200, -10_800)]),
        Case(
            tz: "XXX3YYY,59/2,299/2", year: 2300,
            expected: [(3, 1, 5, 0, -10_800, -7200), (10, 27, 4, 0, -7200, -10_800)]),
        // Seconds in offsets and times.
        Case(
            tz: "LMT-0:30:15DDD-1:30:15,M4.1.1/0:00:01,M9.5.6/23:59:59", year: 2050,
            expected: [(4, 3, 23, 29, 1815, 5415), (9, 24, 22, 29, 5415, 1815)], seconds: [46, 44]),
    ]

    @Test(arguments: cases) func transitionsFromTheFooter(_ testCase: Case) throws {
        let expected = zip(testCase.expected, testCase.seconds).map { time, second in
            let (month, day, hour, minute, before, after) = time
            let at = utc(testCase.year, month, day, hour, minute) + second
            return ZoneTransition(at: at, offsetBefore: before, offsetAfter: after)
        }
        let (from, through) = (utc(testCase.year, 1, 1), utc(testCase.year + 1, 1, 1))
        let rules = try ZoneRules(posixTZ: testCase.tz)
        let found = rules.transitions(after: from, through: through)
        #expect(found == expected)
        for transition in found {
            #expect(rules.offset(at: transition.at - 1) == transition.offsetBefore)
            #expect(rules.offset(at: transition.at) == transition.offsetAfter)
        }
        // The same string as the footer of a slim TZif file behaves identically.
        var builder = TZifBuilder()
        builder.footer = testCase.tz
        let slim = try ZoneRules(tzif: builder.bytes())
        #expect(slim.transitions(after: from, through: through) == found)
    }

    @Test func abbreviations() throws {
        let rules = try ZoneRules(posixTZ: "<-03>3<-02>,M3.5.0/-2,M10.5.0/-1")
        #expect(rules.abbreviation(at: utc(2050, 1, 1)) == "-03")
        #expect(rules.abbreviation(at: utc(2050, 7, 1)) == "-02")
        let troll = try ZoneRules(posixTZ: "<+00>0<+02>-2,M3.5.0/1,M10.5.0/3")
        #expect(troll.abbreviation(at: utc(2050, 7, 1)) == "+02")
        #expect(troll.offset(at: utc(2050, 7, 1)) == 7200)
    }

    @Test(arguments: [
        ("<+0530>-5:30", 19_800, "+0530"), ("UTC0", 0, "UTC"), ("<+0330>-3:30", 12_600, "+0330"),
        ("<-0930>9:30", -34_200, "-0930"), ("HST10", -36_000, "HST"),
    ])
    func footersWithoutDaylightSaving(tz: String, offset: Int32, abbreviation: String) throws {
        let rules = try ZoneRules(posixTZ: tz)
        for instant in [Int64.min, utc(1900, 1, 1), utc(2050, 7, 1), utc(2300, 1, 1), Int64.max] {
            #expect(rules.offset(at: instant) == offset)
            #expect(rules.abbreviation(at: instant) == abbreviation)
        }
        #expect(rules.transitions(after: utc(1900, 1, 1), through: utc(2300, 1, 1)).isEmpty)
    }

    @Test func daylightSavingAllYear() throws {
        // DST from January 1 00:00 to December 31 25:00 (24:00 plus the DST amount) never ends.
        // glibc disagrees for the first hours of each UTC year, because it evaluates the rule for
        // the UTC year only; RFC 8536 and tzcode treat this as DST all year.
        let rules = try ZoneRules(posixTZ: "EST5EDT,0/0,J365/25")
        for year: Int32 in [2048, 2050, 2300] {
            for instant in [
                utc(year, 1, 1), utc(year, 1, 1, 4, 59, 59), utc(year, 1, 1, 5), utc(year, 7, 1), utc(year, 12, 31, 23),
            ] {
                #expect(rules.offset(at: instant) == -14_400)
                #expect(rules.abbreviation(at: instant) == "EDT")
            }
            #expect(rules.transitions(after: utc(year, 1, 1) - 86_400, through: utc(year + 1, 1, 2)).isEmpty)
        }
    }

    @Test(arguments: [
        "", "XYZ", "EST", "EST5EDT,M3.2.0", "EST5EDT,M13.1.0,M11.1.0", "EST5EDT,M3.0.0,M11.1.0",
        "EST5EDT,M3.6.0,M11.1.0",
        "EST5EDT,M3.2.7,M11.1.0", "EST5EDT,J0,J365", "EST5EDT,366,J1", "EST5EDT,M3.2.0/168,M11.1.0", "EST5:60",
        "EST5x", "EST5EDT,M3.2.0,M11.1.0,", "<AB>3", "<+0330-3:30", "AB3", "EST168", "EST5EDT4,M3.2.0", "5EST",
        "EST5EDT,M3.2.0/,M11.1.0", "EST+", "EST5EDT,M3.2.0,M11.1.0/2:3:", "E\u{E9}T5",
    ])
    func malformedStringsAreRejected(tz: String) {
        #expect(throws: ZoneRulesError.self) { try ZoneRules(posixTZ: tz) }
    }

    @Test func rejectionNamesTheString() {
        #expect(throws: ZoneRulesError(kind: .invalidTZString("XYZ"))) { try ZoneRules(posixTZ: "XYZ") }
        #expect(ZoneRulesError(kind: .invalidTZString("XYZ")).description == "invalid TZ string 'XYZ'")
    }

    @Test(arguments: ["EST5EDT,M3.2.0/167,M11.1.0/-167", "EST167", "EST-167", "EST5EDT,J365/0,0/0", "<A-1>1"])
    func extremeButValidStrings(tz: String) throws {
        let rules = try ZoneRules(posixTZ: tz)
        _ = rules.transitions(after: utc(2040, 1, 1), through: utc(2060, 1, 1))
        _ = rules.offset(at: utc(2050, 1, 1))
    }
}
