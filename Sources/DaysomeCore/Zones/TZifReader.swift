// The byte-level TZif decoder behind `ZoneRules(tzif:)`. Pure: it only looks at the bytes it is given.

/// The counts of one TZif header (RFC 8536 section 3.1).
struct TZifHeader {
    let version: UInt8
    let isUTCCount: Int
    let isStandardCount: Int
    let leapCount: Int
    let timeCount: Int
    let typeCount: Int
    let charCount: Int

    func blockLength(timeSize: Int) -> Int {
        timeCount * (timeSize + 1) + typeCount * 6 + charCount + leapCount * (timeSize + 4) + isStandardCount
            + isUTCCount
    }
}

/// The decoded contents of one data block.
struct TZifBlock {
    let times: [Int64]
    let typeIndices: [UInt8]
    let types: [LocalTimeType]
}

/// A cursor over TZif bytes; every read is bounds-checked and reports `.truncated`.
struct TZifReader {
    let bytes: [UInt8]
    var position = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func skip(_ count: Int) throws(ZoneRulesError) {
        guard count <= bytes.count - position else { throw ZoneRulesError(kind: .truncated) }
        position += count
    }

    /// Big-endian two's-complement integer of `size` bytes at `offset`.
    func integer(at offset: Int, size: Int) -> Int64 {
        var value: UInt64 = 0
        var index = offset
        while index < offset + size {
            value = value << 8 | UInt64(bytes[index])
            index += 1
        }
        let unused = UInt64(64 - 8 * size)
        return Int64(bitPattern: value << unused) >> unused
    }

    mutating func header() throws(ZoneRulesError) -> TZifHeader {
        let magic = Array("TZif".utf8)
        let available = bytes.count - position
        let compared = min(available, magic.count)
        // An empty input is not TZif at all; data ending at or inside a header is cut short.
        guard available > 0 || position > 0,
            bytes[position..<position + compared].elementsEqual(magic.prefix(compared))
        else { throw ZoneRulesError(kind: .badMagic) }
        let start = position
        try skip(44)
        let version = bytes[start + 4]
        guard version == 0 || (UInt8(ascii: "2")...UInt8(ascii: "9")).contains(version) else {
            throw ZoneRulesError(kind: .unsupportedVersion(version))
        }
        func count(_ index: Int) -> Int {
            Int(UInt32(truncatingIfNeeded: integer(at: start + 20 + 4 * index, size: 4)))
        }
        return TZifHeader(
            version: version, isUTCCount: count(0), isStandardCount: count(1), leapCount: count(2),
            timeCount: count(3), typeCount: count(4), charCount: count(5))
    }

    mutating func block(_ header: TZifHeader, timeSize: Int) throws(ZoneRulesError) -> TZifBlock {
        func invalid(_ detail: String) -> ZoneRulesError { ZoneRulesError(kind: .invalidData(detail)) }
        // Transition type indices are single bytes, so more than 256 types could never be used.
        guard header.typeCount > 0, header.typeCount <= 256 else { throw invalid("bad local time type count") }
        guard header.charCount > 0 else { throw invalid("no time zone designations") }
        guard header.isUTCCount == 0 || header.isUTCCount == header.typeCount,
            header.isStandardCount == 0 || header.isStandardCount == header.typeCount
        else { throw invalid("bad indicator count") }
        var offset = position
        // Checking the whole length first keeps huge bogus counts from causing huge allocations.
        try skip(header.blockLength(timeSize: timeSize))

        var times: [Int64] = []
        times.reserveCapacity(header.timeCount)
        for _ in 0..<header.timeCount {
            times.append(integer(at: offset, size: timeSize))
            offset += timeSize
        }
        let typeIndices = Array(bytes[offset..<offset + header.timeCount])
        offset += header.timeCount
        guard typeIndices.allSatisfy({ Int($0) < header.typeCount }) else { throw invalid("bad local time type index") }

        let designationStart = offset + header.typeCount * 6
        let designations = bytes[designationStart..<designationStart + header.charCount]
        var types: [LocalTimeType] = []
        for _ in 0..<header.typeCount {
            let utcOffset = Int32(truncatingIfNeeded: integer(at: offset, size: 4))
            let isDST = bytes[offset + 4]
            let designationIndex = designationStart + Int(bytes[offset + 5])
            offset += 6
            guard utcOffset != Int32.min, isDST <= 1 else { throw invalid("bad local time type") }
            guard designationIndex < designations.endIndex,
                let end = designations[designationIndex...].firstIndex(of: 0)
            else { throw invalid("bad time zone designation index") }
            let abbreviation = String(decoding: designations[designationIndex..<end], as: UTF8.self)
            types.append(LocalTimeType(offset: utcOffset, isDST: isDST == 1, abbreviation: abbreviation))
        }
        offset += header.charCount

        var leapSeconds: [(occurrence: Int64, correction: Int64)] = []
        for _ in 0..<header.leapCount {
            let occurrence = integer(at: offset, size: timeSize)
            guard leapSeconds.last.map({ $0.occurrence < occurrence }) ?? true else {
                throw invalid("leap second records not in ascending order")
            }
            leapSeconds.append((occurrence, integer(at: offset + timeSize, size: 4)))
            offset += timeSize + 4
        }
        guard bytes[offset..<position].allSatisfy({ $0 <= 1 }) else { throw invalid("bad standard/UT indicator") }

        // With leap seconds the stored times count them; Unix seconds do not, so subtract the
        // correction in force at each transition.
        if !leapSeconds.isEmpty {
            var leap = -1
            for index in times.indices {
                while leap + 1 < leapSeconds.count, leapSeconds[leap + 1].occurrence <= times[index] {
                    leap += 1
                }
                if leap >= 0 {
                    times[index] = times[index] &- leapSeconds[leap].correction
                }
            }
        }
        for index in times.indices.dropFirst() where times[index - 1] >= times[index] {
            throw invalid("transition times not in ascending order")
        }
        return TZifBlock(times: times, typeIndices: typeIndices, types: types)
    }

    mutating func footer() throws(ZoneRulesError) -> PosixTZ? {
        guard position < bytes.count else { throw ZoneRulesError(kind: .truncated) }
        guard bytes[position] == UInt8(ascii: "\n") else {
            throw ZoneRulesError(kind: .invalidData("footer does not start with a newline"))
        }
        let start = position + 1
        guard let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) else {
            throw ZoneRulesError(kind: .truncated)
        }
        position = end + 1
        if start == end {
            return nil
        }
        guard let rule = PosixTZ(parsing: Array(bytes[start..<end])) else {
            throw ZoneRulesError(kind: .invalidFooter(printableBytes(bytes[start..<end])))
        }
        return rule
    }
}
