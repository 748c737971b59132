// The last household the daemon used, kept in the state directory (rule 9 across restarts and
// reboots): a household file the app broke while the tablet was off must not silence lunch at
// the next boot. The copy holds the file's exact bytes, so its digest is the file's and a lay
// made from it resumes under its number. It is the app's file, PIN and note included: it stays
// in the 0700 state directory, 0600, and is never logged or shown.

import DaysomeCore
import Glibc

/// The durable copy of the last good household.
public struct LastGoodHousehold: Sendable {
    /// The copy's format; a newer daemon reads every older one.
    public static let format: UInt64 = 1

    /// The household file's exact bytes.
    public let bytes: [UInt8]
    /// Where they were read from.
    public let source: String
    /// When the daemon first used them.
    public let since: Instant

    public init(bytes: [UInt8], source: String, since: Instant) {
        self.bytes = bytes
        self.source = source
        self.since = since
    }

    /// `<state>/household.last-good.json`.
    public static func path(in paths: Paths) -> String { paths.stateDirectory + "/household.last-good.json" }

    /// Writes the copy crash-consistently.
    public func save(to path: String) throws(FileError) {
        let json: JSONValue = .object(
            JSONObject([
                ("format", .number(Double(Self.format))), ("source", .string(self.source)),
                ("since", .string(self.since.rfc3339)), ("digest", .string(String(fnv1a(self.bytes), radix: 16))),
                ("household", .string(String(decoding: self.bytes, as: UTF8.self))),
            ]))
        try FileIO.writeAtomically(path, json.serialized() + "\n", durable: true)
    }

    /// Reads the copy back. Missing is nil with no problem; anything else that cannot be trusted
    /// (torn, a digest that does not match its bytes, an unknown format) is a problem to report.
    public static func load(from path: String) -> (copy: LastGoodHousehold?, problem: StateFileProblem?) {
        let bytes: [UInt8]
        do {
            bytes = try FileIO.read(path, limit: 4 << 20, followLinks: false, regularOnly: true)
        } catch {
            if error.errno == ENOENT { return (nil, nil) }
            return (nil, StateFileProblem(field: nil, error.reason))
        }
        guard let object = (try? JSONParser.parse(bytes))?.objectValue else {
            return (nil, StateFileProblem(field: nil, "is not a JSON object"))
        }
        guard let format = object["format"]?.countValue, format <= Self.format else {
            return (nil, StateFileProblem(field: "format", "is not a format this daemon reads (1 to \(Self.format))"))
        }
        guard let text = object["household"]?.stringValue, let source = object["source"]?.stringValue,
            let since = object["since"]?.stringValue.flatMap(parseUTC)
        else { return (nil, StateFileProblem(field: "household", "is missing, or its source or since is")) }
        let household = Array(text.utf8)
        guard object["digest"]?.stringValue == String(fnv1a(household), radix: 16) else {
            return (nil, StateFileProblem(field: "digest", "does not match the household it keeps"))
        }
        return (LastGoodHousehold(bytes: household, source: source, since: since), nil)
    }
}
