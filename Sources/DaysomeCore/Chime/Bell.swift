// The chime: a soft bell the project makes itself, as a 16-bit mono WAV. No borrowed audio and
// no libm: each partial is a phasor rotated sample by sample, so the core stays pure and the
// same bytes come out on every machine.
//
// A struck bell is a few inharmonic partials that die away at different rates; the low one
// lasts longest. The attack is softened (8 ms) so it does not click, and the peak stays at a
// third of full scale: a call, not an alarm.

/// Synthesises the bell.
public enum Bell {
    /// One partial: frequency ratio to the fundamental, relative amplitude, time constant in seconds.
    static let partials: [(ratio: Double, amplitude: Double, decay: Double)] = [
        (1.0, 1.0, 0.6), (2.0, 0.45, 0.4), (2.76, 0.25, 0.25), (5.4, 0.08, 0.12),
    ]

    /// The bell as a complete WAV file (RIFF, PCM, 16-bit, mono).
    /// - Parameters:
    ///   - fundamental: the lowest partial in Hz (D5 by default: clear on a tablet's speaker).
    ///   - seconds: the length; the tail has decayed below hearing well before 2 s.
    public static func wav(sampleRate: Int = 44_100, fundamental: Double = 587.33, seconds: Double = 1.8) -> [UInt8] {
        let samples = self.samples(sampleRate: sampleRate, fundamental: fundamental, seconds: seconds)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(44 + samples.count * 2)
        func append32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
        func append16(_ value: UInt16) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
        bytes += Array("RIFF".utf8)
        append32(UInt32(36 + samples.count * 2))
        bytes += Array("WAVEfmt ".utf8)
        append32(16)
        append16(1)
        append16(1)
        append32(UInt32(sampleRate))
        append32(UInt32(sampleRate * 2))
        append16(2)
        append16(16)
        bytes += Array("data".utf8)
        append32(UInt32(samples.count * 2))
        for sample in samples { append16(UInt16(bitPattern: sample)) }
        return bytes
    }

    /// The samples, peak at a third of full scale.
    static func samples(sampleRate: Int, fundamental: Double, seconds: Double) -> [Int16] {
        let count = Int(Double(sampleRate) * seconds)
        var mix = [Double](repeating: 0, count: count)
        for partial in self.partials {
            let angle = 2 * Double.pi * fundamental * partial.ratio / Double(sampleRate)
            let (stepCos, stepSin) = (cosine(angle), sine(angle))
            let decay = exponential(-1 / (partial.decay * Double(sampleRate)))
            var (c, s, envelope) = (1.0, 0.0, partial.amplitude)
            for index in 0..<count {
                mix[index] += s * envelope
                (c, s) = (c * stepCos - s * stepSin, s * stepCos + c * stepSin)
                envelope *= decay
            }
        }
        let attack = Double(sampleRate) * 0.008
        let peak = mix.reduce(0) { max($0, abs($1)) }
        let scale = peak > 0 ? 32_767.0 / 3 / peak : 0
        return mix.enumerated().map { index, value in
            Int16(value * scale * min(1, Double(index) / attack))
        }
    }
}

/// sin(x) for small |x| by its Taylor series (ample for one sample's angle).
func sine(_ x: Double) -> Double {
    var term = x
    var sum = x
    for n in stride(from: 2, through: 20, by: 2) {
        term *= -x * x / Double(n * (n + 1))
        sum += term
    }
    return sum
}

/// cos(x) for small |x| by its Taylor series.
func cosine(_ x: Double) -> Double {
    var term = 1.0
    var sum = 1.0
    for n in stride(from: 1, through: 19, by: 2) {
        term *= -x * x / Double(n * (n + 1))
        sum += term
    }
    return sum
}

/// e^x for small |x| by its Taylor series.
func exponential(_ x: Double) -> Double {
    var term = 1.0
    var sum = 1.0
    for n in 1...20 {
        term *= x / Double(n)
        sum += term
    }
    return sum
}
