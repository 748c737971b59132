import DaysomeCore
import DaysomeErrno
import Glibc

/// Finding and reading zone files: the only part of the module that touches the file system.
public enum ZoneFiles {
    /// Zone files larger than this are refused; the largest tzdata file is under 4 KiB.
    static let maximumFileSize = 1 << 20

    /// Valid IANA-style name: components of [A-Za-z0-9_+-] separated by '/', none "." or "..", not absolute,
    /// at most 255 chars. Anything else is refused BEFORE touching the filesystem (the name comes from an
    /// untrusted file).
    public static func isValidName(_ name: String) -> Bool {
        let bytes = name.utf8
        guard !bytes.isEmpty, bytes.count <= 255 else { return false }
        // '.' is not in the allowed set, so "." and ".." components cannot occur; a leading,
        // trailing or doubled '/' shows up as an empty component.
        var componentLength = 0
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "/"):
                guard componentLength > 0 else { return false }
                componentLength = 0
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "+"), UInt8(ascii: "-"):
                componentLength += 1
            default:
                return false
            }
        }
        return componentLength > 0
    }

    /// Loads /usr/share/zoneinfo/<name> (or $TZDIR/<name> when the tzdir argument says so). Throws a typed
    /// error: unknown zone (ENOENT or a directory), not a TZif file, unreadable.
    public static func load(name: String, tzdir: String = "/usr/share/zoneinfo") throws(ZoneLoadError) -> ZoneRules {
        guard isValidName(name) else { throw ZoneLoadError(name: name, kind: .invalidName) }
        let path = tzdir.hasSuffix("/") ? tzdir + name : tzdir + "/" + name
        let bytes: [UInt8]
        do {
            bytes = try readFile(atPath: path, limit: maximumFileSize)
        } catch {
            switch error {
            case .notFound, .isDirectory: throw ZoneLoadError(name: name, kind: .unknownZone)
            case .tooLarge: throw ZoneLoadError(name: name, kind: .malformed("file larger than 1 MiB"))
            case .system(let code): throw ZoneLoadError(name: name, kind: .unreadable(errno: code))
            }
        }
        do {
            return try ZoneRules(tzif: bytes)
        } catch {
            throw ZoneLoadError(name: name, kind: .malformed(error.description))
        }
    }

    /// The system zone's name: $TZ if set (strip a leading ':'; if it is not a valid name treat as UTC), else the
    /// target of the /etc/localtime symlink after ".../zoneinfo/", else the first line of /etc/timezone, else "UTC".
    /// Take the environment and paths as parameters with these defaults so tests can inject them.
    /// A `right/` or `posix/` name is read as its plain zone (`ZoneVariant`): the system's setting is
    /// not the family's to fix, and the daemon's POSIX clock needs the plain zone's civil time.
    public static func systemZoneName(
        environment tz: String? = getenv("TZ").map { String(cString: $0) },
        localtime: String = "/etc/localtime",
        timezoneFile: String = "/etc/timezone"
    ) -> String {
        if let tz {
            let name = tz.hasPrefix(":") ? String(tz.dropFirst()) : tz
            return isValidName(name) ? ZoneVariant.plainName(name) : "UTC"
        }
        if let target = symbolicLinkTarget(localtime), let name = zoneName(inLinkTarget: target) {
            return ZoneVariant.plainName(name)
        }
        if let bytes = try? readFile(atPath: timezoneFile, limit: 4096) {
            let line = bytes.prefix { $0 != UInt8(ascii: "\n") }
            let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 || byte == 0x0D }
            let trimmed = line.drop(while: isSpace).reversed().drop(while: isSpace).reversed()
            let name = String(decoding: trimmed, as: UTF8.self)
            if isValidName(name) {
                return ZoneVariant.plainName(name)
            }
        }
        return "UTC"
    }

    /// The part after the last "zoneinfo/" component of a link target such as "../usr/share/zoneinfo/Europe/Paris".
    static func zoneName(inLinkTarget target: String) -> String? {
        let bytes = Array(target.utf8)
        let marker = Array("zoneinfo/".utf8)
        guard bytes.count > marker.count else { return nil }
        for start in stride(from: bytes.count - marker.count, through: 0, by: -1)
        where bytes[start..<start + marker.count].elementsEqual(marker)
            && (start == 0 || bytes[start - 1] == UInt8(ascii: "/"))
        {
            let name = String(decoding: bytes[(start + marker.count)...], as: UTF8.self)
            return isValidName(name) ? name : nil
        }
        return nil
    }

    static func symbolicLinkTarget(_ path: String) -> String? {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 4096) { buffer -> String? in
            guard let base = buffer.baseAddress else { return nil }
            let length = readlink(path, base, buffer.count)
            guard length > 0, length < buffer.count else { return nil }
            return String(decoding: UnsafeRawBufferPointer(start: base, count: length), as: UTF8.self)
        }
    }

    enum ReadFailure: Error {
        case notFound
        case isDirectory
        case tooLarge
        case system(Int32)
    }

    /// Reads a whole file of at most `limit` bytes.
    static func readFile(atPath path: String, limit: Int) throws(ReadFailure) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            throw code == ENOENT || code == ENOTDIR ? .notFound : .system(code)
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw .system(errno) }
        if status.st_mode & S_IFMT == S_IFDIR {
            throw .isDirectory
        }
        var contents: [UInt8] = []
        contents.reserveCapacity(min(Int(status.st_size), limit) + 1)
        let outcome = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 16_384) { chunk -> ReadFailure? in
            while true {
                let count = read(descriptor, chunk.baseAddress, chunk.count)
                if count == 0 {
                    return nil
                }
                if count < 0 {
                    if errno == EINTR {
                        continue
                    }
                    return errno == EISDIR ? .isDirectory : .system(errno)
                }
                contents.append(contentsOf: UnsafeMutableBufferPointer(rebasing: chunk[..<count]))
                if contents.count > limit {
                    return .tooLarge
                }
            }
        }
        if let outcome {
            throw outcome
        }
        return contents
    }
}

/// Why `ZoneFiles.load` failed.
public struct ZoneLoadError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The category of failure.
    public enum Kind: Equatable, Sendable {
        /// The name is not a valid zone name; the file system was not touched.
        case invalidName
        /// No such zone file (or the name is a directory).
        case unknownZone
        /// The file exists but could not be read.
        case unreadable(errno: Int32)
        /// The file is not usable TZif data; the payload explains.
        case malformed(String)
    }

    /// The zone name that was asked for.
    public let name: String
    /// The category of failure.
    public let kind: Kind

    /// Creates an error for `name`.
    public init(name: String, kind: Kind) {
        self.name = name
        self.kind = kind
    }

    /// A one-line explanation, e.g. "unknown time zone 'Europe/Londn'".
    public var description: String {
        let quoted = "'\(printableBytes(name.utf8))'"
        switch kind {
        case .invalidName: return "invalid time zone name \(quoted)"
        case .unknownZone: return "unknown time zone \(quoted)"
        case .unreadable(let code):
            return "cannot read time zone \(quoted): \(Errno(rawValue: code).text) (errno \(code))"
        case .malformed(let detail): return "bad time zone file for \(quoted): \(detail)"
        }
    }
}
