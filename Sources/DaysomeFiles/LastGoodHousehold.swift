// The last household the daemon used, kept in the state directory (rule 9 across restarts and
// reboots): a household file the app broke while the tablet was off must not silence lunch at
// the next boot. The copy holds only the members the daemon reads (`usedKeys`), never the app's
// own (the supervisor PIN, today's note, the menu library: rule 10), so a secret never lingers
// in a second file. It carries the file's digest, so a lay made from it resumes under its number.

import DaysomeCore
import Glibc

/// The durable copy of the last good household.
public struct LastGoodHousehold: Sendable, Equatable {
    /// The copy's format; a newer daemon reads every older one. Format 1 (0.1.0) kept the
    /// household file's exact bytes, so its digest was the file's.
    public static let format: UInt64 = 2

    /// The top-level members of a household file the daemon reads; the rest belong to the app.
    public static let usedKeys: Set<String> = [
        "version", "timeZone", "clock", "settings", "dayParts", "items", "mealChoices", "words",
    ]

    /// The household the daemon lays from: the file's used members, in file order.
    public let bytes: [UInt8]
    /// The digest (FNV-1a) of the household file these members came from.
    public let fileDigest: UInt64
    /// Where they were read from.
    public let source: String
    /// When the daemon first used them.
    public let since: Instant
    /// The format the copy was read in: an older one is written again in this one.
    public let readFormat: UInt64

    public init(bytes: [UInt8], fileDigest: UInt64, source: String, since: Instant, readFormat: UInt64 = Self.format) {
        self.bytes = bytes
        self.fileDigest = fileDigest
        self.source = source
        self.since = since
        self.readFormat = readFormat
    }

    /// The copy to keep of a household file the daemon laid from: its used members only. Nil
    /// when the bytes are not a JSON object (never a household the daemon used).
    public static func keeping(fileBytes: [UInt8], source: String, since: Instant) -> LastGoodHousehold? {
        guard let object = (try? JSONParser.parse(fileBytes))?.objectValue else { return nil }
        // Duplicate keys stay, in order: the parser reads the last, as it did in the file.
        let used = JSONObject(object.members.filter { Self.usedKeys.contains($0.key) })
        return LastGoodHousehold(
            bytes: Array(JSONValue.object(used).serialized().utf8), fileDigest: fnv1a(fileBytes), source: source,
            since: since)
    }

    /// `<state>/household.last-good.json`.
    public static func path(in paths: Paths) -> String { paths.stateDirectory + "/household.last-good.json" }

    /// `<runtime>/household.unsaved.json`: the copy the state directory refused (a full or
    /// read-only disk). A restarted daemon reads it before the older copy there; a reboot loses it.
    /// Gone once the state directory took the copy.
    public static func unsavedPath(in paths: Paths) -> String { paths.runtimeDirectory + "/household.unsaved.json" }

    /// Writes the copy crash-consistently; `durable` also survives a power cut (fsync).
    public func save(to path: String, durable: Bool = true, disk: any StateDisk = SystemDisk.shared) throws(FileError) {
        try Self.save(self.file, to: path, durable: durable, disk: disk)
    }

    /// Writes a copy's `file` bytes, as `save` does: a caller that keeps them (a retry on a full
    /// disk) serializes the copy once.
    public static func save(
        _ file: [UInt8], to path: String, durable: Bool = true, disk: any StateDisk = SystemDisk.shared
    ) throws(FileError) {
        try disk.writeAtomically(path, file, mode: 0o600, durable: durable)
    }

    /// What the copy's file holds: its JSON on one line.
    public var file: [UInt8] { self.json.serializedFile(pretty: false) }

    /// The copy as its file holds it (also kept inside the daemon's runtime record).
    public var json: JSONValue {
        .object(
            JSONObject([
                ("format", .number(Double(Self.format))), ("source", .string(self.source)),
                ("since", .string(self.since.rfc3339)), ("fileDigest", .string(String(self.fileDigest, radix: 16))),
                ("digest", .string(String(fnv1a(self.bytes), radix: 16))),
                ("household", .string(String(decoding: self.bytes, as: UTF8.self))),
            ]))
    }

    /// Reads the copy back. Missing is nil with no problem; anything else that cannot be trusted
    /// (torn, a digest that does not match its bytes, an unknown format) is a problem to report.
    public static func load(
        from path: String, disk: any StateDisk = SystemDisk.shared
    ) -> (copy: LastGoodHousehold?, problem: StateFileProblem?) {
        let bytes: [UInt8]
        do {
            bytes = try disk.read(path, limit: 4 << 20, followLinks: false, regularOnly: true)
        } catch {
            if error.errno == ENOENT { return (nil, nil) }
            return (nil, StateFileProblem(field: nil, error.reason))
        }
        guard let object = (try? JSONParser.parse(bytes))?.objectValue else {
            return (nil, StateFileProblem(field: nil, "is not a JSON object"))
        }
        return Self.decoding(object)
    }

    /// The copy an object holds (`json`), or the problem that makes it untrustworthy.
    public static func decoding(_ object: JSONObject) -> (copy: LastGoodHousehold?, problem: StateFileProblem?) {
        guard let format = object["format"]?.countValue, format >= 1, format <= Self.format else {
            return (nil, StateFileProblem(field: "format", "is not a format this daemon reads (1 to \(Self.format))"))
        }
        guard let text = object["household"]?.stringValue, let source = object["source"]?.stringValue,
            let since = object["since"]?.stringValue.flatMap(parseUTC)
        else { return (nil, StateFileProblem(field: "household", "is missing, or its source or since is")) }
        let household = Array(text.utf8)
        guard object["digest"]?.stringValue == String(fnv1a(household), radix: 16) else {
            return (nil, StateFileProblem(field: "digest", "does not match the household it keeps"))
        }
        if format == 1 {
            // 0.1.0 kept the whole file: its digest is the file's, and only the used members are
            // kept of it from now on (the daemon writes the copy again at once).
            guard let kept = Self.keeping(fileBytes: household, source: source, since: since) else {
                return (nil, StateFileProblem(field: "household", "is not a JSON object"))
            }
            return (
                LastGoodHousehold(
                    bytes: kept.bytes, fileDigest: kept.fileDigest, source: source, since: since, readFormat: 1), nil
            )
        }
        guard let fileDigest = object["fileDigest"]?.stringValue.flatMap({ UInt64($0, radix: 16) }) else {
            return (nil, StateFileProblem(field: "fileDigest", "is missing or not a hexadecimal digest"))
        }
        return (LastGoodHousehold(bytes: household, fileDigest: fileDigest, source: source, since: since), nil)
    }
}
