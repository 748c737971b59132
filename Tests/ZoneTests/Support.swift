import DaysomeCore
import DaysomeFiles
import Glibc
import Testing

/// Builds TZif files by hand: one local time type list and transition table, written as a
/// version 1 block (32-bit times) and, for version 2+, again as a 64-bit block plus the footer.
struct TZifBuilder {
    struct TimeType {
        var offset: Int32
        var isDST = false
        var abbreviation: String
    }

    var version: UInt8 = UInt8(ascii: "2")
    var types: [TimeType] = [TimeType(offset: 0, abbreviation: "UTC")]
    var transitions: [(at: Int64, type: UInt8)] = []
    var leapSeconds: [(occurrence: Int64, correction: Int32)] = []
    /// Written between the two newlines after the 64-bit block.
    var footer = "UTC0"

    func bytes() -> [UInt8] {
        var output = block(timeSize: 4)
        if version != 0 {
            output += block(timeSize: 8)
            output += Array("\n\(footer)\n".utf8)
        }
        return output
    }

    private func block(timeSize: Int) -> [UInt8] {
        var designations: [UInt8] = []
        var designationIndex: [Int] = []
        for type in types {
            designationIndex.append(designations.count)
            designations += Array(type.abbreviation.utf8) + [0]
        }
        var output = Array("TZif".utf8) + [version] + [UInt8](repeating: 0, count: 15)
        for count in [0, 0, leapSeconds.count, transitions.count, types.count, designations.count] {
            output += bigEndian(Int64(count), size: 4)
        }
        for transition in transitions {
            output += bigEndian(transition.at, size: timeSize)
        }
        output += transitions.map(\.type)
        for (index, type) in types.enumerated() {
            output += bigEndian(Int64(type.offset), size: 4) + [type.isDST ? 1 : 0, UInt8(designationIndex[index])]
        }
        output += designations
        for leap in leapSeconds {
            output += bigEndian(leap.occurrence, size: timeSize) + bigEndian(Int64(leap.correction), size: 4)
        }
        return output
    }

    private func bigEndian(_ value: Int64, size: Int) -> [UInt8] {
        (0..<size).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }
}

/// Unix seconds of a UTC date and time, via the C library (an independent calendar implementation).
func utc(
    _ year: Int32, _ month: Int32, _ day: Int32, _ hour: Int32 = 0, _ minute: Int32 = 0, _ second: Int32 = 0
)
    -> Int64
{
    var fields = tm()
    fields.tm_year = year - 1900
    fields.tm_mon = month - 1
    fields.tm_mday = day
    fields.tm_hour = hour
    fields.tm_min = minute
    fields.tm_sec = second
    return Int64(timegm(&fields))
}

/// The contents of a file, or `nil` when it cannot be read.
func readBytes(_ path: String) -> [UInt8]? {
    guard let file = fopen(path, "rb") else { return nil }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
        let count = fread(&buffer, 1, buffer.count, file)
        if count == 0 {
            break
        }
        bytes += buffer[..<count]
    }
    return bytes
}

func writeBytes(_ bytes: [UInt8], to path: String) {
    let file = fopen(path, "wb")!
    _ = fwrite(bytes, 1, bytes.count, file)
    fclose(file)
}

/// A fresh directory under /tmp, removed by `removeTree` when done.
func makeTemporaryDirectory() -> String {
    var template = Array("/tmp/zones-test-XXXXXX".utf8CString)
    let path = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
    return path
}

func removeTree(_ path: String) {
    _ = system("rm -rf '\(path)'")
}

/// Loads a system zone, failing the test with the load error's description when that fails.
func systemZone(_ name: String) throws -> ZoneRules {
    try ZoneFiles.load(name: name)
}

/// Zones ("Z") and links ("L") of tzdata.zi, plus zone1970.tab and zone.tab.
func installedZoneNames() throws -> [String] {
    let zoneinfo = "/usr/share/zoneinfo"
    var names = Set<String>()
    let zi = try #require(readBytes(zoneinfo + "/tzdata.zi"))
    for line in zi.split(separator: UInt8(ascii: "\n")) {
        let fields = line.split(separator: UInt8(ascii: " ")).map { String(decoding: $0, as: UTF8.self) }
        if fields.first == "Z", fields.count > 1 {
            names.insert(fields[1])
        } else if fields.first == "L", fields.count > 2 {
            names.insert(fields[2])
        }
    }
    for table in ["zone1970.tab", "zone.tab"] {
        let text = try #require(readBytes(zoneinfo + "/" + table))
        for line in text.split(separator: UInt8(ascii: "\n")) where line.first != UInt8(ascii: "#") {
            let fields = line.split(separator: UInt8(ascii: "\t"))
            if fields.count > 2 {
                names.insert(String(decoding: fields[2], as: UTF8.self))
            }
        }
    }
    return names.sorted()
}
