// Reading one boolean GSettings key from the file its backend keeps, as pure functions over the
// file's bytes: dconf's user database (a GVDB file) and GLib's keyfile backend. GNOME Shell's and
// Phosh's Do Not Disturb is `org.gnome.desktop.notifications` `show-banners` false; the daemon
// reads it again at each change the backend announces (dconf's `Notify` signal, or the keyfile
// rewritten). Only the user's own value is read: a key the user never set has the schema's
// default (true for `show-banners`); system databases and vendor overrides are not read.

/// Where the session's GSettings live, as GLib chooses them from the environment.
public enum GSettingsStore: Sendable, Equatable {
    /// dconf's user database, `$XDG_CONFIG_HOME/dconf/user` (GLib's default backend on a desktop).
    case dconf(file: String)
    /// GLib's keyfile backend (`GSETTINGS_BACKEND=keyfile`), `$XDG_CONFIG_HOME/glib-2.0/settings/keyfile`.
    case keyfile(file: String)

    /// The store GLib would use for `environment`, or nil where it keeps nothing in a file
    /// (`GSETTINGS_BACKEND=memory`) or no configuration directory can be named.
    public static func locate(environment: [String: String]) -> GSettingsStore? {
        let config: String
        if let value = environment["XDG_CONFIG_HOME"], value.hasPrefix("/") {
            config = value
        } else if let home = environment["HOME"], home.hasPrefix("/") {
            config = home + "/.config"
        } else {
            return nil
        }
        switch environment["GSETTINGS_BACKEND"] ?? "" {
        case "", "dconf": return .dconf(file: config + "/dconf/user")
        case "keyfile": return .keyfile(file: config + "/glib-2.0/settings/keyfile")
        default: return nil
        }
    }

    /// The file's path.
    public var file: String {
        switch self {
        case .dconf(let file), .keyfile(let file): return file
        }
    }
}

/// One boolean key of one schema path (`/org/gnome/desktop/notifications/`, `show-banners`).
public struct GSettingsKey: Sendable, Equatable {
    /// The schema's path, with its leading and trailing slash.
    public let path: String
    public let name: String
    /// The schema's default, for a key the user never set.
    public let defaultValue: Bool

    public init(path: String, name: String, defaultValue: Bool) {
        self.path = path
        self.name = name
        self.defaultValue = defaultValue
    }

    /// GNOME's and Phosh's banners switch: false is their Do Not Disturb.
    public static let showBanners = GSettingsKey(
        path: "/org/gnome/desktop/notifications/", name: "show-banners", defaultValue: true)

    /// The key's value in the store's file (`nil` bytes: no file yet, so the default), or nil where
    /// the file cannot be read as its backend writes it.
    public func value(in store: GSettingsStore, bytes: [UInt8]?) -> Bool? {
        guard let bytes else { return self.defaultValue }
        switch store {
        case .dconf:
            guard let table = GVDBTable(bytes) else { return nil }
            guard let value = table.value(of: self.path + self.name) else { return self.defaultValue }
            return Self.boolean(inVariant: value)
        case .keyfile:
            let group = String(self.path.dropFirst().dropLast())
            return Self.keyfileValue(String(decoding: bytes, as: UTF8.self), group: group, key: self.name)
                ?? self.defaultValue
        }
    }

    /// A serialized GVariant of type `v` holding a boolean: the child's byte, a NUL, then `b`.
    static func boolean(inVariant bytes: ArraySlice<UInt8>) -> Bool? {
        guard bytes.count == 3, bytes[bytes.startIndex + 1] == 0, bytes.last == UInt8(ascii: "b") else { return nil }
        return bytes[bytes.startIndex] != 0
    }

    /// `key=true` or `key=false` in `[group]` of a GLib key file; nil where not set.
    static func keyfileValue(_ text: String, group: String, key: String) -> Bool? {
        var inGroup = false
        var found: Bool?
        for raw in text.split(separator: "\n", omittingEmptySubsequences: true) {
            let line = raw.trimmingSpaces
            if line.hasPrefix("[") {
                inGroup = line == "[\(group)]"
                continue
            }
            guard inGroup, let equals = line.firstIndex(of: "=") else { continue }
            guard line[..<equals].trimmingSpaces == key else { continue }
            switch line[line.index(after: equals)...].trimmingSpaces {
            case "true": found = true
            case "false": found = false
            default: found = nil
            }
        }
        return found
    }
}

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" || first == "\r" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" || last == "\r" { text = text.dropLast() }
        return text
    }
}

/// A GVDB file's root hash table (GLib's `gvdb-format.h`, little-endian as dconf writes it on
/// this machine): looked up by walking every item and joining its key to its parents'.
struct GVDBTable {
    private let bytes: [UInt8]
    /// Each item: its parent's index (nil for none), its own part of the key, its type and value.
    private let items: [(parent: Int?, key: ArraySlice<UInt8>, type: UInt8, value: ArraySlice<UInt8>)]

    /// Reads the header and the root table; nil for anything that is not a little-endian GVDB file
    /// with a sane table (a truncated or foreign file).
    init?(_ bytes: [UInt8]) {
        self.bytes = bytes
        guard bytes.count >= 24, Array(bytes[0..<8]) == Array("GVariant".utf8) else { return nil }
        guard let start = Self.word(bytes, 16), let end = Self.word(bytes, 20), start + 8 <= end, end <= bytes.count
        else { return nil }
        guard let bloomHeader = Self.word(bytes, start), let buckets = Self.word(bytes, start + 4) else { return nil }
        let itemsStart = start + 8 + (bloomHeader & 0x07FF_FFFF) * 4 + buckets * 4
        guard itemsStart <= end, (end - itemsStart) % 24 == 0 else { return nil }
        var items: [(parent: Int?, key: ArraySlice<UInt8>, type: UInt8, value: ArraySlice<UInt8>)] = []
        var offset = itemsStart
        while offset < end {
            guard let parent = Self.word(bytes, offset + 4), let keyStart = Self.word(bytes, offset + 8),
                let valueStart = Self.word(bytes, offset + 16), let valueEnd = Self.word(bytes, offset + 20)
            else { return nil }
            let keySize = Int(bytes[offset + 12]) | Int(bytes[offset + 13]) << 8
            guard keyStart + keySize <= bytes.count else { return nil }
            let type = bytes[offset + 14]
            let value = valueStart <= valueEnd && valueEnd <= bytes.count ? bytes[valueStart..<valueEnd] : []
            items.append((parent == 0xFFFF_FFFF ? nil : parent, bytes[keyStart..<keyStart + keySize], type, value))
            offset += 24
        }
        self.items = items
    }

    /// The value bytes of the item whose whole key is `key` and whose type is a value (`v`).
    func value(of key: String) -> ArraySlice<UInt8>? {
        let wanted = Array(key.utf8)
        for index in self.items.indices where self.items[index].type == UInt8(ascii: "v") {
            if self.fullKey(index) == wanted { return self.items[index].value }
        }
        return nil
    }

    /// An item's key joined to its parents'; nil where the chain is broken or loops.
    private func fullKey(_ index: Int) -> [UInt8]? {
        var parts: [ArraySlice<UInt8>] = []
        var current: Int? = index
        while let at = current {
            guard at < self.items.count, parts.count <= 64 else { return nil }
            parts.append(self.items[at].key)
            current = self.items[at].parent
        }
        return parts.reversed().flatMap { $0 }
    }

    /// A little-endian 32-bit word at `offset`, as an index; nil past the end.
    private static func word(_ bytes: [UInt8], _ offset: Int) -> Int? {
        guard offset >= 0, offset + 4 <= bytes.count else { return nil }
        return Int(bytes[offset]) | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2]) << 16
            | Int(bytes[offset + 3]) << 24
    }
}
