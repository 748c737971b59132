// Loads a household file from disk: the bounded read, the zone files, and the pure parser.

import DaysomeCore
import Glibc

/// Reads household files.
public enum HouseholdFile {
    /// Reads and parses a household file; any read failure makes the whole file unusable (rule 9).
    public static func load(_ path: String, environment: [String: String]) -> Result<HouseholdLoad, HouseholdFileError>
    {
        self.load(path, environment: environment, regularOnly: false)
    }

    /// Reads and parses a household file; any read failure makes the whole file unusable (rule 9).
    /// `regularOnly` (the daemon's reads) refuses a pipe or a device in place of the file.
    public static func load(
        _ path: String, environment: [String: String], regularOnly: Bool
    ) -> Result<HouseholdLoad, HouseholdFileError> {
        self.loadWithDigest(path, environment: environment, regularOnly: regularOnly).map(\.load)
    }

    /// Reads a household file once and parses those bytes, with the digest (FNV-1a) of the very
    /// bytes parsed: read apart, a file replaced between the two reads pairs one version's
    /// contents with another's digest, and a changed household goes unnoticed (or a kept one
    /// is laid again). The bytes come back too, so the daemon can keep the last good copy.
    public static func loadWithDigest(
        _ path: String, environment: [String: String], regularOnly: Bool, disk: any StateDisk = SystemDisk.shared
    ) -> Result<(load: HouseholdLoad, digest: UInt64, bytes: [UInt8]), HouseholdFileError> {
        let bytes: [UInt8]
        do {
            bytes = try disk.read(
                path, limit: HouseholdParser.sizeLimit, followLinks: true, regularOnly: regularOnly)
        } catch {
            if error.cause == .tooLarge {
                return .failure(
                    HouseholdFileError(
                        file: path,
                        reason: .tooLarge(bytes: HouseholdParser.sizeLimit + 1, limit: HouseholdParser.sizeLimit)))
            }
            return .failure(HouseholdFileError(file: path, reason: .unreadable(error.reason)))
        }
        return self.parse(bytes, file: path, environment: environment).map {
            (load: $0.load, digest: $0.digest, bytes: bytes)
        }
    }

    /// Parses household bytes (from the file, or from the daemon's last good copy of it).
    public static func parse(
        _ bytes: [UInt8], file: String, environment: [String: String]
    ) -> Result<(load: HouseholdLoad, digest: UInt64), HouseholdFileError> {
        let tzdir = environment["TZDIR"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/usr/share/zoneinfo"
        let digest = fnv1a(bytes)
        return HouseholdParser.parse(
            bytes, file: file,
            zones: { name in try? ZoneFiles.load(name: name, tzdir: tzdir) },
            systemZoneName: ZoneFiles.systemZoneName(environment: environment["TZ"])
        ).map { (load: $0, digest: digest) }
    }
}
