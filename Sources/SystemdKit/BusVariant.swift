// BusVariant: the values a D-Bus variant ("v") carries here, and appending and reading them (plus
// the "a{sv}" dictionaries Notify hints and systemd properties use). Only the basic types and
// string arrays: no nested variants, structs or dictionaries inside a variant.

import CSystemd
import Glibc

/// A value for a D-Bus variant ("v"), e.g. a Notify hint.
public enum BusVariant: Sendable, Hashable {
    case string(String)
    case objectPath(String)
    case bool(Bool)
    case byte(UInt8)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case stringArray([String])

    /// The D-Bus signature of the contained value, e.g. "as" for `.stringArray`.
    public var signature: String {
        switch self {
        case .string: return "s"
        case .objectPath: return "o"
        case .bool: return "b"
        case .byte: return "y"
        case .int32: return "i"
        case .uint32: return "u"
        case .int64: return "x"
        case .uint64: return "t"
        case .double: return "d"
        case .stringArray: return "as"
        }
    }
}

extension BusMessage {
    /// Appends a variant ("v") holding `value`.
    ///
    /// The corresponding C functions are `sd_bus_message_open_container` and
    /// `sd_bus_message_append_basic`.
    public func appendVariant(_ value: BusVariant) throws(Errno) {
        try self.openContainer("v", value.signature)
        switch value {
        case .string(let text): try self.append(text)
        case .objectPath(let path): try self.append(objectPath: path)
        case .bool(let flag): try self.append(flag)
        case .byte(let byte): try self.append(byte)
        case .int32(let number): try self.append(number)
        case .uint32(let number): try self.append(number)
        case .int64(let number): try self.append(number)
        case .uint64(let number): try self.append(number)
        case .double(let number): try self.append(number)
        case .stringArray(let texts): try self.appendStringArray(texts)
        }
        try self.closeContainer()
    }

    /// Appends a dictionary of variants ("a{sv}"), e.g. Notify hints, in the given order.
    ///
    /// The corresponding C functions are `sd_bus_message_open_container` and
    /// `sd_bus_message_append_basic`.
    public func appendVariantDictionary(_ entries: [(String, BusVariant)]) throws(Errno) {
        try self.openContainer("a", "{sv}")
        for (key, value) in entries {
            try self.openContainer("e", "sv")
            try self.append(key)
            try self.appendVariant(value)
            try self.closeContainer()
        }
        try self.closeContainer()
    }

    /// Reads a variant ("v") of one of the kinds `BusVariant` has.
    ///
    /// - Throws: `EOPNOTSUPP` (after skipping it) for any other contents.
    ///
    /// The corresponding C functions are `sd_bus_message_enter_container` and
    /// `sd_bus_message_read_basic`.
    public func readVariant() throws(Errno) -> BusVariant {
        guard let (type, contents) = try self.peekType(), type == "v", let contents else {
            throw Errno(rawValue: ENXIO)
        }
        try self.enterContainer("v", contents)
        let value: BusVariant
        switch contents {
        case "s": value = .string(try self.readString())
        case "o": value = .objectPath(try self.readObjectPath())
        case "b": value = .bool(try self.readBool())
        case "y": value = .byte(try self.readByte())
        case "i": value = .int32(try self.readInt32())
        case "u": value = .uint32(try self.readUInt32())
        case "x": value = .int64(try self.readInt64())
        case "t": value = .uint64(try self.readUInt64())
        case "d": value = .double(try self.readDouble())
        case "as": value = .stringArray(try self.readStringArray())
        default:
            try self.exitContainer()
            throw Errno(rawValue: EOPNOTSUPP)
        }
        try self.exitContainer()
        return value
    }
}
