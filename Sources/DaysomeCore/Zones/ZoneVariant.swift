// Debian's tzdata installs every zone three times: `Europe/London`, `posix/Europe/London` (the
// same rules) and `right/Europe/London` (counting leap seconds, for a clock kept in TAI-10). The
// daemon's clock is POSIX time, and Debian's right/ files end at the leap-second table's expiry
// with an empty footer, so right/Europe/London stays on BST from 2026-06-28 for good: an hour
// early all winter. A household naming either tree is refused, with the plain name to use; the
// system's own setting (not the family's to fix) is read as its plain zone.

/// A zone name under one of tzdata's alternative trees.
public enum ZoneVariant: String, Sendable, Equatable {
    /// `right/`: leap seconds counted.
    case leapSeconds = "right"
    /// `posix/`: a copy of the plain zones.
    case posix

    /// The tree and the plain zone of a name such as `right/Europe/London`, nil for a plain name.
    /// Nested trees (`right/posix/Europe/London`) give the innermost plain name.
    public static func of(_ name: String) -> (variant: ZoneVariant, plain: String)? {
        guard let slash = name.firstIndex(of: "/"), let variant = ZoneVariant(rawValue: String(name[..<slash])) else {
            return nil
        }
        let rest = String(name[name.index(after: slash)...])
        guard !rest.isEmpty else { return nil }
        return (variant, Self.of(rest)?.plain ?? rest)
    }

    /// The plain zone a name means: `Europe/London` for `right/Europe/London`, the name itself otherwise.
    public static func plainName(_ name: String) -> String {
        Self.of(name)?.plain ?? name
    }

    /// What the variant is, for an error line: "is a leap-second variant".
    public var what: String {
        switch self {
        case .leapSeconds: "is a leap-second variant"
        case .posix: "is the posix/ copy of a zone"
        }
    }
}
