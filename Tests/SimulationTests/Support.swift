// The simulator's tests read the corpus kept beside them.

import DaysomeCore
import DaysomeFiles
import Glibc
import Testing

@testable import DaysomeSimulator

/// The corpus directory: traces that once broke a rule (each fixed) and the combinations the
/// issues name, replayed on every run.
let corpusDirectory: String = {
    let file = #filePath
    return "/" + file.split(separator: "/").dropLast().joined(separator: "/") + "/Corpus"
}()

/// The corpus's trace files, by name.
let corpusTraces: [String] = {
    guard let directory = opendir(corpusDirectory) else { return [] }
    defer { closedir(directory) }
    var names: [String] = []
    while let entry = readdir(directory) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if name.hasSuffix(".trace") { names.append(name) }
    }
    return names.sorted()
}()

/// A corpus trace, read.
func corpusScenario(_ name: String) throws -> SimScenario {
    let bytes = try FileIO.read("\(corpusDirectory)/\(name)", limit: 1 << 22)
    return try SimScenario(text: String(decoding: bytes, as: UTF8.self))
}

/// Plays a corpus trace; records a broken rule as the test's failure.
func play(_ name: String) throws -> SimWorld {
    let (result, world) = try Simulation.play(try corpusScenario(name))
    if let violation = result.violation { Issue.record("\(name): \(violation)") }
    return world
}

/// The instant from RFC 3339 text.
func instant(_ text: String) -> Instant {
    TimeParsing.instant(text, zone: Zone(name: "UTC", rules: .utc))!
}
