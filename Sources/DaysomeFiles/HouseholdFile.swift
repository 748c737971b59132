// Loads a household file from disk: the bounded read, the zone files, and the pure parser.

import DaysomeCore
import Glibc

/// Reads household files.
public enum HouseholdFile {
    /// Reads and parses a household file; any read failure makes the whole file unusable (rule 9).
    public static func load(_ path: String, environment: [String: String]) -> Result<HouseholdLoad, HouseholdFileError>
    {
        let bytes: [UInt8]
        do {
            bytes = try FileIO.read(path, limit: HouseholdParser.sizeLimit)
        } catch {
            if error.errno == EFBIG {
                return .failure(
                    HouseholdFileError(
                        file: path,
                        reason: .tooLarge(bytes: HouseholdParser.sizeLimit + 1, limit: HouseholdParser.sizeLimit)))
            }
            return .failure(HouseholdFileError(file: path, reason: .unreadable(error.reason)))
        }
        let tzdir = environment["TZDIR"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/usr/share/zoneinfo"
        return HouseholdParser.parse(
            bytes, file: path,
            zones: { name in try? ZoneFiles.load(name: name, tzdir: tzdir) },
            systemZoneName: ZoneFiles.systemZoneName(environment: environment["TZ"]))
    }
}
