// Helpers for the time machine's tests: fixtures, instants, a scratch directory, running a
// converter, and a small PNG reader (zlib inflate and scanline filters) to look at its pixels.

import DaysomeCore
import DaysomeFiles
import Glibc
import Testing

/// The path of a fixture file in the repository.
func fixture(_ relative: String) -> String {
    let file = #filePath
    let root = file.split(separator: "/").dropLast(3).joined(separator: "/")
    return "/" + root + "/Fixtures/" + relative
}

/// The repository's root directory.
func repositoryRoot() -> String {
    "/" + #filePath.split(separator: "/").dropLast(3).joined(separator: "/")
}

/// Loads a fixture household that must be usable.
func loadFixture(_ relative: String) -> Household {
    switch HouseholdFile.load(fixture(relative), environment: [:]) {
    case .success(let load): return load.household
    case .failure(let error):
        Issue.record("fixture \(relative) failed to load: \(error)")
        preconditionFailure()
    }
}

/// An instant from a local `YYYY-MM-DDTHH:MM[:SS]` in a zone, or RFC 3339.
func at(_ text: String, _ zone: Zone) -> Instant {
    guard let parsed = TimeParsing.instant(text, zone: zone) else { preconditionFailure("bad time \(text)") }
    return parsed
}

/// A fresh private directory under /tmp.
func scratchDirectory() -> String {
    var template = Array("/tmp/daysome-replay-XXXXXX".utf8CString)
    return template.withUnsafeMutableBufferPointer { buffer in
        guard let made = mkdtemp(buffer.baseAddress!) else { preconditionFailure("mkdtemp failed") }
        return String(cString: made)
    }
}

func write(_ text: String, to path: String) {
    do {
        try FileIO.writeAtomically(path, text, mode: 0o644)
    } catch {
        Issue.record("cannot write \(path): \(error)")
    }
}

/// Runs a command line through /bin/sh; returns its exit status.
@discardableResult
func shell(_ command: String) -> Int32 {
    let status = system(command)
    return status >= 0 && (status & 0x7F) == 0 ? (status >> 8) & 0xFF : -1
}

/// Whether an executable is on PATH.
func onPath(_ name: String) -> Bool { shell("command -v \(name) >/dev/null 2>&1") == 0 }

/// True in CI, where a missing tool fails a test instead of skipping it.
var inCI: Bool { getenv("CI").map { String(cString: $0) } == "true" }

/// Monotonic seconds, for timing.
func monotonicSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

// MARK: Reading a PNG

/// An 8-bit RGB or RGBA, non-interlaced PNG, decoded to pixels.
struct PNGImage {
    let width: Int
    let height: Int
    /// Bytes per pixel: 3 (RGB) or 4 (RGBA).
    let channels: Int
    let pixels: [UInt8]

    /// The pixel at (x, y) as one number (alpha included).
    func pixel(_ x: Int, _ y: Int) -> UInt32 {
        var value: UInt32 = 0
        let base = (y * self.width + x) * self.channels
        for channel in 0..<self.channels { value = value << 8 | UInt32(self.pixels[base + channel]) }
        return value
    }

    init?(_ bytes: [UInt8]) {
        guard bytes.count > 8, bytes[0..<8].elementsEqual([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        else { return nil }
        var offset = 8
        var width = 0
        var height = 0
        var colourType = 0
        var idat: [UInt8] = []
        while offset + 8 <= bytes.count {
            let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            let data = offset + 8
            guard data + length + 4 <= bytes.count else { return nil }
            if type == "IHDR" {
                width = bytes[data..<data + 4].reduce(0) { $0 << 8 | Int($1) }
                height = bytes[data + 4..<data + 8].reduce(0) { $0 << 8 | Int($1) }
                guard bytes[data + 8] == 8, bytes[data + 12] == 0 else { return nil }
                colourType = Int(bytes[data + 9])
            } else if type == "IDAT" {
                idat += bytes[data..<data + length]
            }
            offset = data + length + 4
        }
        var inflater = Inflater(Array(idat.dropFirst(2)))
        guard colourType == 2 || colourType == 6, width > 0, height > 0, idat.count > 2,
            var raw = inflater.inflate()
        else { return nil }
        let channels = colourType == 6 ? 4 : 3
        let stride = width * channels
        guard raw.count >= height * (stride + 1) else { return nil }
        var pixels = [UInt8](repeating: 0, count: height * stride)
        for row in 0..<height {
            let filter = raw[row * (stride + 1)]
            for column in 0..<stride {
                let index = row * (stride + 1) + 1 + column
                let a = column >= channels ? Int(pixels[row * stride + column - channels]) : 0
                let b = row > 0 ? Int(pixels[(row - 1) * stride + column]) : 0
                let c = row > 0 && column >= channels ? Int(pixels[(row - 1) * stride + column - channels]) : 0
                var predictor = 0
                switch filter {
                case 1: predictor = a
                case 2: predictor = b
                case 3: predictor = (a + b) / 2
                case 4:
                    let p = a + b - c
                    let (pa, pb, pc) = (abs(p - a), abs(p - b), abs(p - c))
                    predictor = pa <= pb && pa <= pc ? a : (pb <= pc ? b : c)
                default: predictor = 0
                }
                raw[index] = UInt8((Int(raw[index]) + predictor) & 0xFF)
                pixels[row * stride + column] = raw[index]
            }
        }
        self.width = width
        self.height = height
        self.channels = channels
        self.pixels = pixels
    }
}

/// DEFLATE (RFC 1951): stored, fixed and dynamic Huffman blocks.
struct Inflater {
    let input: [UInt8]
    var position = 0
    var bitBuffer: UInt32 = 0
    var bitCount = 0
    var output: [UInt8] = []

    init(_ input: [UInt8]) { self.input = input }

    mutating func bits(_ count: Int) -> Int? {
        while self.bitCount < count {
            guard self.position < self.input.count else { return nil }
            self.bitBuffer |= UInt32(self.input[self.position]) << UInt32(self.bitCount)
            self.position += 1
            self.bitCount += 8
        }
        let value = Int(self.bitBuffer & ((1 << UInt32(count)) - 1))
        self.bitBuffer >>= UInt32(count)
        self.bitCount -= count
        return value
    }

    /// A canonical Huffman code: counts per length and symbols in order.
    struct Huffman {
        var counts = [Int](repeating: 0, count: 16)
        var symbols: [Int] = []

        init(lengths: [Int]) {
            for length in lengths { self.counts[length] += 1 }
            self.counts[0] = 0
            var offsets = [Int](repeating: 0, count: 16)
            for length in 1..<16 { offsets[length] = offsets[length - 1] + self.counts[length - 1] }
            self.symbols = [Int](repeating: 0, count: lengths.count)
            for (symbol, length) in lengths.enumerated() where length != 0 {
                self.symbols[offsets[length]] = symbol
                offsets[length] += 1
            }
        }
    }

    mutating func decode(_ huffman: Huffman) -> Int? {
        var code = 0
        var first = 0
        var index = 0
        for length in 1..<16 {
            guard let bit = self.bits(1) else { return nil }
            code |= bit
            let count = huffman.counts[length]
            if code - count < first { return huffman.symbols[index + (code - first)] }
            index += count
            first += count
            first <<= 1
            code <<= 1
        }
        return nil
    }

    static let lengthBase = [
        3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227,
        258,
    ]
    static let lengthExtra = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    static let distanceBase = [
        1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097,
        6145, 8193, 12289, 16385, 24577,
    ]
    static let distanceExtra = [
        0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13,
    ]

    mutating func inflate() -> [UInt8]? {
        while true {
            guard let last = self.bits(1), let type = self.bits(2) else { return nil }
            switch type {
            case 0:
                self.bitBuffer = 0
                self.bitCount = 0
                guard self.position + 4 <= self.input.count else { return nil }
                let length = Int(self.input[self.position]) | Int(self.input[self.position + 1]) << 8
                self.position += 4
                guard self.position + length <= self.input.count else { return nil }
                self.output += self.input[self.position..<self.position + length]
                self.position += length
            case 1:
                let literal = Huffman(
                    lengths: [Int](repeating: 8, count: 144) + [Int](repeating: 9, count: 112)
                        + [Int](repeating: 7, count: 24) + [Int](repeating: 8, count: 8))
                let distance = Huffman(lengths: [Int](repeating: 5, count: 30))
                guard self.block(literal, distance) else { return nil }
            case 2:
                guard let codes = self.dynamicCodes(), self.block(codes.0, codes.1) else { return nil }
            default:
                return nil
            }
            if last == 1 { return self.output }
        }
    }

    mutating func dynamicCodes() -> (Huffman, Huffman)? {
        guard let literals = self.bits(5), let distances = self.bits(5), let codeLengths = self.bits(4) else {
            return nil
        }
        let order = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]
        var lengths = [Int](repeating: 0, count: 19)
        for index in 0..<(codeLengths + 4) {
            guard let length = self.bits(3) else { return nil }
            lengths[order[index]] = length
        }
        let lengthCode = Huffman(lengths: lengths)
        var all: [Int] = []
        let total = literals + 257 + distances + 1
        while all.count < total {
            guard let symbol = self.decode(lengthCode) else { return nil }
            switch symbol {
            case 0..<16: all.append(symbol)
            case 16:
                guard let previous = all.last, let repeatCount = self.bits(2) else { return nil }
                all += [Int](repeating: previous, count: 3 + repeatCount)
            case 17:
                guard let repeatCount = self.bits(3) else { return nil }
                all += [Int](repeating: 0, count: 3 + repeatCount)
            default:
                guard let repeatCount = self.bits(7) else { return nil }
                all += [Int](repeating: 0, count: 11 + repeatCount)
            }
        }
        return (Huffman(lengths: Array(all[0..<(literals + 257)])), Huffman(lengths: Array(all[(literals + 257)...])))
    }

    mutating func block(_ literal: Huffman, _ distance: Huffman) -> Bool {
        while true {
            guard let symbol = self.decode(literal) else { return false }
            if symbol < 256 {
                self.output.append(UInt8(symbol))
            } else if symbol == 256 {
                return true
            } else {
                let index = symbol - 257
                guard index < 29, let extra = self.bits(Self.lengthExtra[index]),
                    let distanceSymbol = self.decode(distance), distanceSymbol < 30,
                    let distanceExtra = self.bits(Self.distanceExtra[distanceSymbol])
                else { return false }
                let length = Self.lengthBase[index] + extra
                let back = Self.distanceBase[distanceSymbol] + distanceExtra
                guard back <= self.output.count else { return false }
                let start = self.output.count - back
                for offset in 0..<length { self.output.append(self.output[start + offset]) }
            }
        }
    }
}
