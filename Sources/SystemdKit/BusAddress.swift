// Which socket a D-Bus address names, so that a bus missing at start-up can be waited for by
// watching its socket appear (inotify) instead of by trying to connect on a timer. sd-bus has no
// call that says which path it would connect to; this reads the address as the D-Bus
// specification writes it ("Server Addresses"): `;`-separated transports, `,`-separated
// `key=value` pairs, and `%XX` escapes in the values.

import Glibc

/// The parts of a D-Bus address the daemon needs.
public enum BusAddress {
    /// sd-bus's system bus address when `$DBUS_SYSTEM_BUS_ADDRESS` is unset.
    public static let defaultSystem = "unix:path=/run/dbus/system_bus_socket"

    /// The socket file the system bus is reached at, as `Bus.openSystem` finds it; nil where its
    /// first transport is not a `unix:path=` (an abstract socket or TCP has no file to watch).
    public static var systemSocketPath: String? {
        let address = getenv("DBUS_SYSTEM_BUS_ADDRESS").map { String(cString: $0) } ?? Self.defaultSystem
        return Self.unixSocketPath(address)
    }

    /// The `path=` of the address's first transport when that is `unix:`; nil otherwise, or where
    /// the value is not a well-formed escaped path.
    public static func unixSocketPath(_ address: String) -> String? {
        guard let first = address.split(separator: ";", omittingEmptySubsequences: true).first,
            first.hasPrefix("unix:")
        else { return nil }
        for pair in first.dropFirst("unix:".count).split(separator: ",") {
            guard pair.hasPrefix("path=") else { continue }
            guard let path = Self.unescaped(pair.dropFirst("path=".count)), path.hasPrefix("/") else { return nil }
            return path
        }
        return nil
    }

    /// A value with its `%XX` escapes decoded; nil for a malformed escape or text that is not UTF-8.
    static func unescaped(_ value: Substring) -> String? {
        var bytes: [UInt8] = []
        var utf8 = value.utf8.makeIterator()
        while let byte = utf8.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = utf8.next().flatMap(Self.hexValue), let low = utf8.next().flatMap(Self.hexValue) else {
                return nil
            }
            bytes.append(high << 4 | low)
        }
        guard !bytes.contains(0) else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
