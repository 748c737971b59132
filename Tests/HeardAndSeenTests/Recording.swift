// Recording: what parec captured from the null sink's monitor (raw mono 16-bit samples), placed
// on the wall clock, and measured with `sox … stat` over windows given in wall-clock seconds.
//
// Placing: parec's output grows in step with the clock, a little after the sound it holds. Each
// look at the file's size (read before the clock) bounds the recording's offset from the wall
// clock from below; the largest bound seen is the one with the least delay. So a wall instant maps
// to at most a few tens of milliseconds early in the recording: a window said to end at the
// minute ends slightly before it, never after.

import DaysomeTestSupport
import Glibc

/// How loud a stretch of a recording is, as `sox -n stat` reports it (full scale is 1).
struct Loudness: CustomStringConvertible {
    let rms: Double
    let maximum: Double

    var description: String {
        "RMS \(fixed(self.rms, 4)), max \(fixed(self.maximum, 4))"
    }
}

/// A recording of the null sink's monitor, growing until `stop()`.
final class Recording {
    static let rate = 44_100
    let file: String
    let process: SpawnedProcess
    /// The recording's time (seconds from its first sample) minus the wall clock, bounded from below.
    private(set) var offset = -Double.infinity

    init(file: String, process: SpawnedProcess) {
        self.file = file
        self.process = process
    }

    /// Samples in the file now.
    var sampleCount: Int {
        var info = stat()
        guard stat(self.file, &info) == 0 else { return 0 }
        return Int(info.st_size) / 2
    }

    /// Takes one look at the file's size and the clock.
    func look() {
        let samples = self.sampleCount
        let wall = wallSeconds()
        if samples > 0 {
            self.offset = max(self.offset, Double(samples) / Double(Self.rate) - wall)
        }
    }

    /// Looks every 10 ms until the wall clock reads `wall`.
    func follow(untilWall wall: Double) async {
        repeat {
            self.look()
            await pause(0.01)
        } while wallSeconds() < wall
        self.look()
    }

    /// Stops parec (the raw file needs no closing).
    func stop() {
        self.look()
        self.process.stop()
    }

    /// The sample index of a wall instant.
    func sample(atWall wall: Double) -> Int {
        Int(((wall + self.offset) * Double(Self.rate)).rounded(.down))
    }

    /// The wall instant of a sample index.
    func wall(ofSample index: Int) -> Double {
        Double(index) / Double(Self.rate) - self.offset
    }

    /// The samples from `first` on.
    func samples(from first: Int) -> [Int16] {
        let fd = open(self.file, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        lseek(fd, off_t(max(0, first) * 2), SEEK_SET)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
        }
        return stride(from: 0, to: bytes.count - 1, by: 2).map {
            Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8)
        }
    }

    /// The wall instant of the first sample at or after `wall` whose magnitude reaches `level`
    /// (of full scale): where a sound begins. Nil if none does.
    func onset(afterWall wall: Double, level: Double = 0.01) -> Double? {
        let first = max(0, self.sample(atWall: wall))
        let threshold = Int32(level * 32_768)
        guard let index = self.samples(from: first).firstIndex(where: { abs(Int32($0)) >= threshold }) else {
            return nil
        }
        return self.wall(ofSample: first + index)
    }
}

extension TestWorld {
    /// `sox … trim … stat` over `seconds` of `recording` from the wall instant `wall`.
    func loudness(_ recording: Recording, fromWall wall: Double, seconds: Double) async throws -> Loudness {
        let sox = try findExecutable("sox", package: "sox")
        let first = recording.sample(atWall: wall)
        let count = Int(seconds * Double(Recording.rate))
        guard first >= 0, first + count <= recording.sampleCount else {
            throw HarnessError(
                "the recording (\(recording.sampleCount) samples) does not cover samples \(first)..<\(first + count) "
                    + "(wall \(fixed(wall, 3)) for \(seconds) s)")
        }
        let result = try await self.run(
            sox,
            [
                "-t", "raw", "-r", String(Recording.rate), "-e", "signed-integer", "-b", "16", "-c", "1", "-L",
                recording.file, "-n", "trim", "\(first)s", "\(count)s", "stat",
            ])
        func value(_ label: String) -> Double? {
            for line in result.stderr.split(separator: "\n") where line.hasPrefix(label) {
                return line.split(separator: ":").last.flatMap { Double(String($0.filter { $0 != " " && $0 != "\t" })) }
            }
            return nil
        }
        guard result.status == 0, let rms = value("RMS     amplitude"), let maximum = value("Maximum amplitude"),
            !rms.isNaN
        else {
            throw HarnessError("sox measured nothing: \(result)")
        }
        return Loudness(rms: rms, maximum: maximum)
    }

    /// Records from three seconds before `minute` to 4.2 s after it; returns the recording and
    /// the loudness of each second from two seconds before the minute, six of them.
    func recordAround(_ minute: Int64) async throws -> (recording: Recording, bySecond: [Loudness]) {
        await pause(untilWall: Double(minute) - 3)
        let recording = try await self.startRecording()
        await recording.follow(untilWall: Double(minute) + 4.2)
        recording.stop()
        return (recording, try await self.loudnessBySecond(recording, fromWall: Double(minute) - 2, count: 6))
    }

    /// The loudness of each whole second of `recording` from `wall`, `count` of them.
    func loudnessBySecond(_ recording: Recording, fromWall wall: Double, count: Int) async throws -> [Loudness] {
        var seconds: [Loudness] = []
        for index in 0..<count {
            seconds.append(try await self.loudness(recording, fromWall: wall + Double(index), seconds: 1))
        }
        return seconds
    }
}

/// `value` with `digits` decimals, for messages and the printed measurements.
func fixed(_ value: Double, _ digits: Int) -> String {
    guard value.isFinite else { return "\(value)" }
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let scaled = (abs(value) * scale).rounded()
    let whole = Int(scaled / scale)
    let fraction = String(Int(scaled) - whole * Int(scale))
    let padded = String(repeating: "0", count: max(0, digits - fraction.count)) + fraction
    return (value < 0 && scaled > 0 ? "-" : "") + String(whole) + (digits > 0 ? "." + padded : "")
}

extension TestWorld {
    /// Records the null sink's monitor (mono, 16-bit, 44.1 kHz, raw) until `stop()`.
    func startRecording() async throws -> Recording {
        guard self.pulseServer != nil else {
            throw HarnessError("this world runs no sound server: startSoundServer() first")
        }
        let parec = try findExecutable("parec", package: "pulseaudio-utils")
        self.outputCount += 1
        let number = self.outputCount
        let file = "\(self.directory.path)/recording-\(number).raw"
        let process = try SpawnedProcess(
            parec,
            [
                "--device=\(nullSink).monitor", "--raw", "--format=s16le", "--channels=1",
                "--rate=\(Recording.rate)", "--latency-msec=20", "--client-name=daysome-test-recorder",
            ], environment: self.environment, stdoutPath: file,
            stderrPath: "\(self.directory.path)/recording-\(number).log")
        self.adopt(process)
        let recording = Recording(file: file, process: process)
        _ = try await poll("parec to deliver sound", timeout: 10, interval: 0.01) { () -> Bool? in
            if process.poll() {
                throw HarnessError("parec exited early: \(self.directory.read("recording-\(number).log"))")
            }
            return recording.sampleCount > 0 ? true : nil
        }
        return recording
    }
}
