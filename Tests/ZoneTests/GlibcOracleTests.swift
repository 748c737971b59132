import DaysomeCore
import DaysomeFiles
import Glibc
import Testing

/// Compares every installed zone with glibc's `localtime_r`.
///
/// Serialized: it changes TZ in the process environment. Other tests never read TZ (they inject it).
@Suite(.serialized) struct GlibcOracleTests {
    static func glibc(_ instant: Int64) -> (offset: Int32, abbreviation: String) {
        var time = time_t(instant)
        var fields = tm()
        guard localtime_r(&time, &fields) != nil else { return (Int32.min, "") }
        return (Int32(fields.tm_gmtoff), fields.tm_zone.map { String(cString: $0) } ?? "")
    }

    @Test func everyZoneMatchesGlibcLocaltime() throws {
        let names = try installedZoneNames()
        #expect(names.count > 590)
        let savedTZ = getenv("TZ").map { String(cString: $0) }
        defer {
            if let savedTZ {
                setenv("TZ", savedTZ, 1)
            } else {
                unsetenv("TZ")
            }
            tzset()
        }

        let (start1900, end2100) = (utc(1900, 1, 1), utc(2100, 1, 1))
        let (start1970, end2040) = (utc(1970, 1, 1), utc(2040, 1, 1))
        var probes = 0
        var abbreviationProbes = 0
        var transitionCount = 0
        var mismatchCount = 0
        var mismatches: [String] = []  // the first 50, for the log
        func record(_ mismatch: String) {
            mismatchCount += 1
            if mismatches.count < 50 {
                mismatches.append(mismatch)
            }
        }
        for name in names {
            let rules: ZoneRules
            do {
                rules = try ZoneFiles.load(name: name)
            } catch {
                record(error.description)
                continue
            }
            setenv("TZ", ":" + name, 1)
            tzset()

            func check(_ instant: Int64, abbreviation: Bool) {
                let expected = Self.glibc(instant)
                probes += 1
                let offset = rules.offset(at: instant)
                if offset != expected.offset {
                    record("\(name) at \(instant): offset \(offset), glibc \(expected.offset)")
                }
                if abbreviation {
                    abbreviationProbes += 1
                    let ours = rules.abbreviation(at: instant)
                    if ours != expected.abbreviation {
                        record("\(name) at \(instant): abbreviation \(ours), glibc \(expected.abbreviation)")
                    }
                }
            }
            let transitions = rules.transitions(after: start1900 - 1, through: end2100)
            transitionCount += transitions.count
            for transition in transitions {
                check(transition.at, abbreviation: true)
                check(transition.at - 1, abbreviation: true)
            }
            // Regular sampling catches transitions that `transitions(after:through:)` missed.
            for instant in stride(from: start1970, to: end2040, by: 6 * 3600) {
                check(instant, abbreviation: false)
            }
            for instant in stride(from: start1900, through: end2100, by: 30 * 86_400) {
                check(instant, abbreviation: true)
            }
        }
        print(
            "glibc oracle: \(names.count) zones, \(transitionCount) transitions, \(probes) offset probes "
                + "(\(abbreviationProbes) also comparing abbreviations), \(mismatchCount) mismatches")
        for mismatch in mismatches {
            print("  mismatch: \(mismatch)")
        }
        #expect(mismatchCount == 0)
    }
}
