import DaysomeCore
import DaysomeFiles
import Glibc
import Testing

@Suite struct ZoneFilesTests {
    @Test(arguments: [
        ("../etc/passwd", false), ("/etc/localtime", false), ("Europe/../../x", false), ("", false),
        ("Europe//London", false), ("Europe/London/", false), ("./UTC", false), ("Europe/.", false),
        ("Europe/London\0", false), ("Europe/London ", false), ("Europe\\London", false), ("Europe/Lond\u{F6}n", false),
        ("zone.tab", false), ("~root", false), (String(repeating: "A", count: 256), false),
        ("Europe/London", true), ("America/Argentina/Buenos_Aires", true), ("Etc/GMT+5", true), ("Etc/GMT-14", true),
        ("UTC", true), ("America/Port-au-Prince", true), (String(repeating: "A", count: 255), true),
    ])
    func nameValidation(name: String, valid: Bool) {
        #expect(ZoneFiles.isValidName(name) == valid)
    }

    @Test func invalidNamesAreRefusedBeforeAnyFileAccess() {
        // The directory does not exist: an attempt to open would report "unknown zone" instead.
        #expect(throws: ZoneLoadError(name: "../etc/passwd", kind: .invalidName)) {
            try ZoneFiles.load(name: "../etc/passwd", tzdir: "/nonexistent")
        }
        let error = ZoneLoadError(name: "a\nb", kind: .invalidName)
        #expect(error.description == "invalid time zone name 'a\\x0ab'")
    }

    @Test func unknownZone() {
        #expect(throws: ZoneLoadError(name: "Europe/Londn", kind: .unknownZone)) {
            try ZoneFiles.load(name: "Europe/Londn")
        }
        #expect(
            ZoneLoadError(name: "Europe/Londn", kind: .unknownZone).description == "unknown time zone 'Europe/Londn'")
        // A directory is not a zone, and neither is a path through a regular file.
        #expect(throws: ZoneLoadError(name: "Europe", kind: .unknownZone)) { try ZoneFiles.load(name: "Europe") }
        #expect(throws: ZoneLoadError(name: "UTC/x", kind: .unknownZone)) { try ZoneFiles.load(name: "UTC/x") }
    }

    @Test func loadsFromAnotherDirectory() throws {
        let directory = makeTemporaryDirectory()
        defer { removeTree(directory) }
        let london = try #require(readBytes("/usr/share/zoneinfo/Europe/London"))
        mkdir(directory + "/Test", 0o755)
        writeBytes(london, to: directory + "/Test/Zone")
        writeBytes(Array("not a zone\n".utf8), to: directory + "/Test/Text")
        writeBytes([UInt8](repeating: 0, count: (1 << 20) + 1), to: directory + "/Test/Huge")
        symlink("Loop", directory + "/Test/Loop")
        #expect(try ZoneFiles.load(name: "Test/Zone", tzdir: directory) == ZoneFiles.load(name: "Europe/London"))
        #expect(try ZoneFiles.load(name: "Test/Zone", tzdir: directory + "/") == ZoneRules(tzif: london))
        #expect(throws: ZoneLoadError(name: "Test/Text", kind: .malformed("not a TZif file (bad magic)"))) {
            try ZoneFiles.load(name: "Test/Text", tzdir: directory)
        }
        #expect(throws: ZoneLoadError(name: "Test/Huge", kind: .malformed("file larger than 1 MiB"))) {
            try ZoneFiles.load(name: "Test/Huge", tzdir: directory)
        }
        #expect(throws: ZoneLoadError(name: "Test/Loop", kind: .unreadable(errno: ELOOP))) {
            try ZoneFiles.load(name: "Test/Loop", tzdir: directory)
        }
        let unreadable = ZoneLoadError(name: "Test/Loop", kind: .unreadable(errno: ELOOP))
        #expect(
            unreadable.description == "cannot read time zone 'Test/Loop': Too many levels of symbolic links (errno 40)")
        let malformed = ZoneLoadError(name: "Test/Text", kind: .malformed("not a TZif file (bad magic)"))
        #expect(malformed.description == "bad time zone file for 'Test/Text': not a TZif file (bad magic)")
    }

    @Test func loadingLondonTakesMicroseconds() throws {
        let clock = ContinuousClock()
        let rounds = 1000
        let elapsed = try clock.measure {
            for _ in 0..<rounds {
                _ = try ZoneFiles.load(name: "Europe/London")
            }
        }
        let microseconds = elapsed / rounds / .microseconds(1)
        #if DEBUG
        let build = "debug"
        #else
        let build = "release"
        #endif
        print("Loading Europe/London: \(microseconds) µs per load (\(build) build)")
        #expect(elapsed / rounds < .milliseconds(1))
    }

    @Test(arguments: [
        (":Europe/London", "Europe/London"), ("Asia/Tokyo", "Asia/Tokyo"), ("", "UTC"), (":", "UTC"),
        (":../../etc/passwd", "UTC"), ("/usr/share/zoneinfo/Europe/Paris", "UTC"),
        ("CET-1CEST,M3.5.0,M10.5.0/3", "UTC"), ("EST5EDT", "EST5EDT"),
        (":right/Europe/London", "Europe/London"), ("posix/Asia/Tokyo", "Asia/Tokyo"),
    ])
    func systemZoneNameFromTZ(tz: String, expected: String) {
        // The files must not be consulted when TZ is set.
        let name = ZoneFiles.systemZoneName(environment: tz, localtime: "/etc/localtime", timezoneFile: "/etc/timezone")
        #expect(name == expected)
    }

    @Test func systemZoneNameFromFiles() {
        let directory = makeTemporaryDirectory()
        defer { removeTree(directory) }
        let link = directory + "/localtime"
        let timezone = directory + "/timezone"
        func name() -> String { ZoneFiles.systemZoneName(environment: nil, localtime: link, timezoneFile: timezone) }

        #expect(name() == "UTC")
        writeBytes(Array(" Europe/Paris \r\nignored\n".utf8), to: timezone)
        #expect(name() == "Europe/Paris")
        symlink("../usr/share/zoneinfo/America/New_York", link)
        #expect(name() == "America/New_York")
        unlink(link)
        // tzdata's alternative trees name the plain zone: right/ would plan an hour early all winter.
        symlink("/usr/share/zoneinfo/posix/Asia/Tokyo", link)
        #expect(name() == "Asia/Tokyo")
        unlink(link)
        symlink("/usr/share/zoneinfo/right/Europe/London", link)
        #expect(name() == "Europe/London")
        unlink(link)
        // A target outside any zoneinfo directory, or an invalid name after it, falls back to /etc/timezone.
        symlink("/opt/zones/Asia/Tokyo", link)
        #expect(name() == "Europe/Paris")
        unlink(link)
        symlink("/usr/share/zoneinfo/../../../etc/passwd", link)
        #expect(name() == "Europe/Paris")
        unlink(link)
        // A regular file (copied zone) is not a link.
        writeBytes(readBytes("/usr/share/zoneinfo/Europe/London") ?? [], to: link)
        #expect(name() == "Europe/Paris")
        writeBytes(Array("../../etc/shadow\n".utf8), to: timezone)
        #expect(name() == "UTC")
    }
}
