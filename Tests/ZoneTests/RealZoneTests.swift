import DaysomeCore
import DaysomeFiles
import Testing

/// Spot checks against the installed tzdata (2025b); expected values were worked out by hand and
/// cross-checked with glibc and Python's zoneinfo.
@Suite struct RealZoneTests {
    @Test func london2026Transitions() throws {
        let london = try systemZone("Europe/London")
        let spring = utc(2026, 3, 29, 1)
        let autumn = utc(2026, 10, 25, 1)
        #expect(
            london.transitions(after: utc(2026, 1, 1), through: utc(2027, 1, 1)) == [
                ZoneTransition(at: spring, offsetBefore: 0, offsetAfter: 3600),
                ZoneTransition(at: autumn, offsetBefore: 3600, offsetAfter: 0),
            ])
        #expect(london.offset(at: spring - 1) == 0)
        #expect(london.offset(at: spring) == 3600)
        #expect(london.offset(at: autumn - 1) == 3600)
        #expect(london.offset(at: autumn) == 0)
        #expect(london.abbreviation(at: spring - 1) == "GMT")
        #expect(london.abbreviation(at: spring) == "BST")
        // `from` is exclusive and `through` inclusive.
        #expect(london.transitions(after: spring, through: autumn).map(\.at) == [autumn])
        #expect(london.transitions(after: spring - 1, through: spring).map(\.at) == [spring])
        #expect(london.transitions(after: autumn, through: spring).isEmpty)
    }

    @Test func londonBeyondTheTableFollowsTheFooter() throws {
        let london = try systemZone("Europe/London")
        #expect(
            london.transitions(after: utc(2300, 1, 1), through: utc(2301, 1, 1)) == [
                ZoneTransition(at: utc(2300, 3, 25, 1), offsetBefore: 0, offsetAfter: 3600),
                ZoneTransition(at: utc(2300, 10, 28, 1), offsetBefore: 3600, offsetAfter: 0),
            ])
        // Across the end of the fat table (2037) nothing is lost or duplicated.
        let span = london.transitions(after: utc(2036, 1, 1), through: utc(2040, 1, 1))
        #expect(span.count == 8)
        #expect(zip(span, span.dropFirst()).allSatisfy { $0.offsetAfter == $1.offsetBefore && $0.at < $1.at })
    }

    @Test func lordHoweHalfHourDaylightSaving() throws {
        let zone = try systemZone("Australia/Lord_Howe")
        #expect(
            zone.transitions(after: utc(2026, 1, 1), through: utc(2027, 1, 1)) == [
                ZoneTransition(at: utc(2026, 4, 4, 15), offsetBefore: 39_600, offsetAfter: 37_800),
                ZoneTransition(at: utc(2026, 10, 3, 15, 30), offsetBefore: 37_800, offsetAfter: 39_600),
            ])
        #expect(zone.abbreviation(at: utc(2026, 7, 1)) == "+1030")
        #expect(zone.abbreviation(at: utc(2026, 1, 1)) == "+11")
    }

    @Test func stJohnsHalfHourOffset() throws {
        let zone = try systemZone("America/St_Johns")
        #expect(zone.offset(at: utc(2026, 1, 15)) == -12_600)
        #expect(zone.offset(at: utc(2026, 7, 15)) == -9000)
        #expect(zone.abbreviation(at: utc(2026, 1, 15)) == "NST")
        #expect(
            zone.transitions(after: utc(2026, 1, 1), through: utc(2027, 1, 1)) == [
                ZoneTransition(at: utc(2026, 3, 8, 5, 30), offsetBefore: -12_600, offsetAfter: -9000),
                ZoneTransition(at: utc(2026, 11, 1, 4, 30), offsetBefore: -9000, offsetAfter: -12_600),
            ])
    }

    @Test func apiaSkipsDecember30th2011() throws {
        let zone = try systemZone("Pacific/Apia")
        let jump = utc(2011, 12, 30, 10)
        #expect(
            zone.transitions(after: utc(2011, 12, 29), through: utc(2011, 12, 31)) == [
                ZoneTransition(at: jump, offsetBefore: -36_000, offsetAfter: 50_400)
            ])
        // Local 2011-12-29 23:59:59 is followed by local 2011-12-31 00:00:00.
        #expect(jump - 1 + Int64(zone.offset(at: jump - 1)) == utc(2011, 12, 29, 23, 59, 59))
        #expect(jump + Int64(zone.offset(at: jump)) == utc(2011, 12, 31))
    }

    @Test func santiagoSouthernHemisphereWith24HourRuleTimes() throws {
        let zone = try systemZone("America/Santiago")
        let expected2026 = [
            ZoneTransition(at: utc(2026, 4, 5, 3), offsetBefore: -10_800, offsetAfter: -14_400),
            ZoneTransition(at: utc(2026, 9, 6, 4), offsetBefore: -14_400, offsetAfter: -10_800),
        ]
        #expect(zone.transitions(after: utc(2026, 1, 1), through: utc(2027, 1, 1)) == expected2026)
        // Footer "<-04>4<-03>,M9.1.6/24,M4.1.6/24": first Saturday 24:00, i.e. Sunday 00:00 local.
        #expect(
            zone.transitions(after: utc(2050, 1, 1), through: utc(2051, 1, 1)) == [
                ZoneTransition(at: utc(2050, 4, 3, 3), offsetBefore: -10_800, offsetAfter: -14_400),
                ZoneTransition(at: utc(2050, 9, 4, 4), offsetBefore: -14_400, offsetAfter: -10_800),
            ])
        #expect(zone.offset(at: utc(2050, 1, 1)) == -10_800)
    }

    @Test func havanaMidnightTransitions() throws {
        let zone = try systemZone("America/Havana")
        #expect(
            zone.transitions(after: utc(2026, 1, 1), through: utc(2027, 1, 1)) == [
                ZoneTransition(at: utc(2026, 3, 8, 5), offsetBefore: -18_000, offsetAfter: -14_400),
                ZoneTransition(at: utc(2026, 11, 1, 5), offsetBefore: -14_400, offsetAfter: -18_000),
            ])
        #expect(zone.abbreviation(at: utc(2026, 6, 1)) == "CDT")
    }

    @Test func dublinNegativeDaylightSaving() throws {
        // tzdata models Irish Standard Time as standard time and winter "GMT" as negative DST;
        // offsets come out the same as London's.
        let zone = try systemZone("Europe/Dublin")
        #expect(zone.offset(at: utc(2026, 1, 15)) == 0)
        #expect(zone.abbreviation(at: utc(2026, 1, 15)) == "GMT")
        #expect(zone.offset(at: utc(2026, 7, 15)) == 3600)
        #expect(zone.abbreviation(at: utc(2026, 7, 15)) == "IST")
        let london = try systemZone("Europe/London")
        for year: Int32 in [2026, 2037, 2038, 2050, 2300] {
            let (from, through) = (utc(year, 1, 1), utc(year + 1, 1, 1))
            #expect(
                zone.transitions(after: from, through: through) == london.transitions(after: from, through: through))
        }
    }

    @Test func trollTwoHourDaylightSaving() throws {
        let zone = try systemZone("Antarctica/Troll")
        #expect(
            zone.transitions(after: utc(2026, 1, 1), through: utc(2027, 1, 1)) == [
                ZoneTransition(at: utc(2026, 3, 29, 1), offsetBefore: 0, offsetAfter: 7200),
                ZoneTransition(at: utc(2026, 10, 25, 1), offsetBefore: 7200, offsetAfter: 0),
            ])
        #expect(zone.abbreviation(at: utc(2026, 7, 1)) == "+02")
    }

    @Test func kolkataHasNoDaylightSaving() throws {
        let zone = try systemZone("Asia/Kolkata")
        for instant in [utc(1970, 1, 1), utc(2026, 6, 1), utc(2300, 1, 1), Int64.max, Int64.min] {
            #expect(zone.offset(at: instant) == (instant == Int64.min ? 21_208 : 19_800))
        }
        #expect(zone.abbreviation(at: utc(2026, 6, 1)) == "IST")
        #expect(zone.transitions(after: utc(1946, 1, 1), through: utc(2300, 1, 1)).isEmpty)
        #expect(!zone.transitions(after: Int64.min, through: utc(1946, 1, 1)).isEmpty)
    }

    @Test func leapSecondZoneUsesUnixSeconds() throws {
        let right = try systemZone("right/Europe/London")
        let london = try systemZone("Europe/London")
        // Debian's right/ files end at the leap-second table's expiry (2026-06-28) with an empty
        // footer, so after that they keep the last type (BST) forever; glibc agrees. Compare before it.
        for year: Int32 in [1972, 1999, 2025, 2026] {
            let (from, through) = (utc(year, 1, 1), Swift.min(utc(year + 1, 1, 1), utc(2026, 6, 1)))
            #expect(
                right.transitions(after: from, through: through) == london.transitions(after: from, through: through))
        }
    }

    @Test func footerAloneReproducesTheTable() throws {
        // What a slim file would give: the footer alone must match the fat table's 2027-2037
        // transitions, except where tzdata predicts Ramadan-dependent changes no TZ string can express.
        let ramadanZones: Set = ["Africa/Casablanca", "Africa/El_Aaiun", "Asia/Gaza", "Asia/Hebron"]
        var differing: Set<String> = []
        for name in try installedZoneNames() {
            let bytes = try #require(readBytes("/usr/share/zoneinfo/" + name))
            let footer = String(decoding: bytes.dropLast().reversed().prefix { $0 != 0x0A }.reversed(), as: UTF8.self)
            let (fat, slim) = (try systemZone(name), try ZoneRules(posixTZ: footer))
            let (from, through) = (utc(2027, 1, 1), utc(2038, 1, 1))
            if fat.transitions(after: from, through: through) != slim.transitions(after: from, through: through) {
                differing.insert(name)
            }
        }
        #expect(differing.isSubset(of: ramadanZones), "\(differing.subtracting(ramadanZones).sorted())")
    }

    @Test func extremeInstantsDoNotTrap() throws {
        for name in ["Europe/London", "America/Santiago", "Australia/Lord_Howe", "UTC"] {
            let zone = try systemZone(name)
            for instant in [Int64.min, Int64.min + 1, -1, 0, Int64.max - 1, Int64.max] {
                _ = zone.offset(at: instant)
                _ = zone.abbreviation(at: instant)
            }
            _ = zone.transitions(after: Int64.max - 400 * 31_556_952, through: Int64.max)
            _ = zone.transitions(after: Int64.min, through: Int64.min + 400 * 31_556_952)
        }
    }
}
