/// One change of UTC offset.
public struct ZoneTransition: Equatable, Sendable {
    /// Unix seconds: the first instant at which `offsetAfter` is in force.
    public let at: Int64
    /// The UTC offset (seconds east of UTC) in force just before `at`.
    public let offsetBefore: Int32
    /// The UTC offset (seconds east of UTC) in force from `at` on.
    public let offsetAfter: Int32

    /// Creates a transition at `at` from `offsetBefore` to `offsetAfter`.
    public init(at: Int64, offsetBefore: Int32, offsetAfter: Int32) {
        self.at = at
        self.offsetBefore = offsetBefore
        self.offsetAfter = offsetAfter
    }
}

/// A local time type: what a zone's clocks show during one stretch of time.
struct LocalTimeType: Equatable, Sendable {
    /// Seconds east of UTC.
    let offset: Int32
    let isDST: Bool
    let abbreviation: String
}

/// The time zone rules of one zone, read from TZif data (RFC 8536) or a POSIX TZ string.
///
/// Pure value: no I/O, no clock, no global state. Lookups are a binary search over the
/// transition table plus a constant-time evaluation of the footer rule.
public struct ZoneRules: Sendable, Equatable {
    /// Transition instants in Unix seconds, strictly ascending.
    let times: [Int64]
    /// `types[typeIndices[i]]` is in force from `times[i]` until the next transition.
    let typeIndices: [UInt8]
    /// Local time types; type 0 applies before the first transition.
    let types: [LocalTimeType]
    /// Rule for instants at or after the last transition (or for all instants without transitions).
    let footer: PosixTZ?

    /// Coordinated Universal Time: offset 0, abbreviation "UTC", no transitions.
    public static let utc = ZoneRules(fixedOffset: 0)

    /// Rules with a constant offset of `seconds` east of UTC and no transitions.
    ///
    /// The abbreviation is "UTC" for 0, otherwise numeric in the tzdata style ("+0530", "-03").
    public init(fixedOffset seconds: Int32) {
        let name = seconds == 0 ? "UTC" : numericAbbreviation(seconds)
        self.init(
            times: [], typeIndices: [], types: [LocalTimeType(offset: seconds, isDST: false, abbreviation: name)],
            footer: nil)
    }

    /// Rules given entirely by a POSIX TZ string such as "CET-1CEST,M3.5.0,M10.5.0/3".
    ///
    /// Accepts the RFC 8536 extensions (rule times from -167 to 167 hours, DST all year).
    public init(posixTZ string: String) throws(ZoneRulesError) {
        guard let rule = PosixTZ(parsing: Array(string.utf8)) else {
            throw ZoneRulesError(kind: .invalidTZString(printableBytes(string.utf8)))
        }
        self.init(times: [], typeIndices: [], types: [rule.standard], footer: rule)
    }

    init(times: [Int64], typeIndices: [UInt8], types: [LocalTimeType], footer: PosixTZ?) {
        self.times = times
        self.typeIndices = typeIndices
        self.types = types
        self.footer = footer
    }

    /// The UTC offset (seconds east of UTC) in force at `unixSeconds`.
    public func offset(at unixSeconds: Int64) -> Int32 {
        localTimeType(at: unixSeconds).offset
    }

    /// The time zone abbreviation in force at `unixSeconds`, e.g. "BST" or "+0530".
    public func abbreviation(at unixSeconds: Int64) -> String {
        localTimeType(at: unixSeconds).abbreviation
    }

    /// Every transition with `from < at <= through`, in order, from the table and then generated
    /// from the footer rule (bounded: stop at `through`).
    ///
    /// Only changes of UTC offset are reported; table entries that change just the abbreviation or
    /// the DST flag are skipped. Footer transitions are generated year by year, so the cost grows
    /// with the length of the range.
    public func transitions(after from: Int64, through: Int64) -> [ZoneTransition] {
        guard from < through else { return [] }
        var candidates: [Int64] = []
        var index = firstIndex(after: from)
        while index < times.count, times[index] <= through {
            candidates.append(times[index])
            index += 1
        }
        if let footer {
            // The footer only governs instants at or after the last table transition.
            let footerStart = max(from, times.last ?? Int64.min)
            candidates.append(contentsOf: footer.changeInstants(after: footerStart, through: through))
        }
        var result: [ZoneTransition] = []
        for instant in candidates {
            // Every candidate is greater than `from`, so `instant - 1` cannot overflow.
            let before = offset(at: instant - 1)
            let after = offset(at: instant)
            if before != after {
                result.append(ZoneTransition(at: instant, offsetBefore: before, offsetAfter: after))
            }
        }
        return result
    }

    /// The local time type in force at `instant`.
    func localTimeType(at instant: Int64) -> LocalTimeType {
        guard let last = times.last else {
            // RFC 8536 3.2: without transitions the footer, when present, governs all instants.
            return footer?.localTimeType(at: instant) ?? types[0]
        }
        if instant < times[0] {
            return types[0]
        }
        if instant >= last, let footer {
            return footer.localTimeType(at: instant)
        }
        let index = firstIndex(after: instant) - 1
        return types[Int(typeIndices[index])]
    }

    /// The index of the first transition strictly after `instant` (`times.count` when none).
    private func firstIndex(after instant: Int64) -> Int {
        var low = 0
        var high = times.count
        while low < high {
            let middle = low + (high - low) / 2
            if times[middle] <= instant {
                low = middle + 1
            } else {
                high = middle
            }
        }
        return low
    }
}

extension ZoneRules {
    /// Reads TZif data (RFC 8536): versions 1 to 4, and later versions read as version 4.
    ///
    /// From version 2 on, the 64-bit data block and the footer TZ string are used; the footer governs
    /// every instant at or after the last transition, so "slim" files work. Leap-second records
    /// (the "right/" zones) are honoured by converting transition times to Unix seconds.
    public init(tzif bytes: [UInt8]) throws(ZoneRulesError) {
        var reader = TZifReader(bytes: bytes)
        let first = try reader.header()
        let block: TZifBlock
        var footer: PosixTZ?
        if first.version == 0 {
            block = try reader.block(first, timeSize: 4)
        } else {
            // Version 2+ repeats everything with 64-bit times; the 32-bit block is only skipped.
            try reader.skip(first.blockLength(timeSize: 4))
            let second = try reader.header()
            block = try reader.block(second, timeSize: 8)
            footer = try reader.footer()
        }
        self.init(times: block.times, typeIndices: block.typeIndices, types: block.types, footer: footer)
    }
}

/// Why TZif data or a TZ string could not be read.
public struct ZoneRulesError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The category of failure.
    public enum Kind: Equatable, Sendable {
        /// The data does not start with "TZif".
        case badMagic
        /// The version byte is neither NUL nor a digit from '2' to '9'.
        case unsupportedVersion(UInt8)
        /// The data ends before the counts in its header say it should.
        case truncated
        /// The data is structurally wrong; the payload says how.
        case invalidData(String)
        /// The footer TZ string cannot be parsed; the payload is the string, escaped.
        case invalidFooter(String)
        /// A TZ string given to `ZoneRules(posixTZ:)` cannot be parsed; the payload is the string, escaped.
        case invalidTZString(String)
    }

    /// The category of failure.
    public let kind: Kind

    /// Creates an error of the given kind.
    public init(kind: Kind) {
        self.kind = kind
    }

    /// A one-line explanation, e.g. "truncated TZif data".
    public var description: String {
        switch kind {
        case .badMagic: "not a TZif file (bad magic)"
        case .unsupportedVersion(let byte): "unsupported TZif version \(printableBytes([byte]))"
        case .truncated: "truncated TZif data"
        case .invalidData(let detail): "invalid TZif data: \(detail)"
        case .invalidFooter(let string): "invalid footer TZ string '\(string)'"
        case .invalidTZString(let string): "invalid TZ string '\(string)'"
        }
    }
}

/// Renders untrusted bytes on one line: printable ASCII as is, anything else as `\xNN`, at most 64 bytes.
public func printableBytes<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> String {
    let hexDigits = Array("0123456789abcdef".utf8)
    var output: [UInt8] = []
    var count = 0
    for byte in bytes {
        if count == 64 {
            output.append(contentsOf: "...".utf8)
            break
        }
        count += 1
        if byte >= 0x20, byte < 0x7F, byte != UInt8(ascii: "\\") {
            output.append(byte)
        } else {
            output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "x"), hexDigits[Int(byte >> 4)]])
            output.append(hexDigits[Int(byte & 0xF)])
        }
    }
    return String(decoding: output, as: UTF8.self)
}

/// "+0530", "-03", "+012345": the tzdata style for zones without a letter abbreviation.
func numericAbbreviation(_ offset: Int32) -> String {
    let magnitude = Int64(offset).magnitude
    let hours = magnitude / 3600
    let minutes = magnitude / 60 % 60
    let seconds = magnitude % 60
    func twoDigits(_ value: UInt64) -> String { value < 10 ? "0\(value)" : "\(value)" }
    var text = (offset < 0 ? "-" : "+") + twoDigits(hours)
    if minutes != 0 || seconds != 0 {
        text += twoDigits(minutes)
    }
    if seconds != 0 {
        text += twoDigits(seconds)
    }
    return text
}
