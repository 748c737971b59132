// BusMessage: one sd_bus_message, built and read a value at a time. Builders, because Swift cannot
// call C variadics: sd_bus_message_append and sd_bus_message_read (and sd_bus_call_method) are not
// imported, so this wraps append_basic, open/close_container, read_basic and enter/exit_container.
// Variants are in BusVariant.swift. Left out: unix fds, structs as Swift types.

import CSystemd
import Glibc

/// The C `char` of a D-Bus type code.
func code(_ type: Character) -> CChar {
    guard let ascii = type.asciiValue else {
        preconditionFailure("'\(type)' is not a D-Bus type code")
    }
    return CChar(bitPattern: ascii)
}

/// A D-Bus message: a method call being built, or a reply or signal being read.
///
/// Reading is sequential: each `read…` consumes the next value. Not `Sendable`.
public final class BusMessage {
    let pointer: OpaquePointer

    /// Wraps a message whose reference the caller hands over.
    init(owning pointer: OpaquePointer) {
        self.pointer = pointer
    }

    /// Wraps a message the caller does not own, taking a reference of its own.
    init(borrowing pointer: OpaquePointer) {
        self.pointer = sd_bus_message_ref(pointer)!
    }

    deinit {
        sd_bus_message_unref(self.pointer)
    }

    // MARK: Building

    /// Whether the bus may start (D-Bus-activate) the destination's service to deliver this call.
    /// A probe sets it off, so that asking about a server never starts one.
    ///
    /// The corresponding C function is `sd_bus_message_set_auto_start`.
    public func setAutoStart(_ on: Bool) throws(Errno) {
        try check(sd_bus_message_set_auto_start(self.pointer, on ? 1 : 0))
    }

    private func appendBasic<T>(_ type: Character, _ value: T) throws(Errno) {
        var value = value
        try check(withUnsafePointer(to: &value) { sd_bus_message_append_basic(self.pointer, code(type), $0) })
    }

    private func appendText(_ type: Character, _ text: String) throws(Errno) {
        // For string-like types the value argument is the string itself, not a pointer to it.
        try check(text.withCString { sd_bus_message_append_basic(self.pointer, code(type), $0) })
    }

    /// Appends a string ("s").
    ///
    /// The corresponding C function is `sd_bus_message_append_basic`.
    public func append(_ value: String) throws(Errno) {
        try self.appendText("s", value)
    }

    /// Appends an object path ("o"); sd-bus checks that it is valid.
    ///
    /// The corresponding C function is `sd_bus_message_append_basic`.
    public func append(objectPath: String) throws(Errno) {
        try self.appendText("o", objectPath)
    }

    /// Appends a boolean ("b", sent as a 32-bit integer).
    ///
    /// The corresponding C function is `sd_bus_message_append_basic`.
    public func append(_ value: Bool) throws(Errno) {
        try self.appendBasic("b", Int32(value ? 1 : 0))
    }

    /// Appends a byte ("y").
    ///
    /// The corresponding C function is `sd_bus_message_append_basic`.
    public func append(_ value: UInt8) throws(Errno) {
        try self.appendBasic("y", value)
    }

    /// Appends a signed 32-bit integer ("i").
    ///
    /// The corresponding C function is `sd_bus_message_append_basic`.
    public func append(_ value: Int32) throws(Errno) {
        try self.appendBasic("i", value)
    }

    /// Appends an unsigned 32-bit integer ("u").
    ///
    /// The corresponding C function is `sd_bus_message_append_basic`.
    public func append(_ value: UInt32) throws(Errno) {
        try self.appendBasic("u", value)
    }

    /// Appends a signed 64-bit integer ("x").
    ///
    /// The corresponding C function is `sd_bus_message_append_basic`.
    public func append(_ value: Int64) throws(Errno) {
        try self.appendBasic("x", value)
    }

    /// Appends an unsigned 64-bit integer ("t"), e.g. a time in microseconds.
    ///
    /// The corresponding C function is `sd_bus_message_append_basic`.
    public func append(_ value: UInt64) throws(Errno) {
        try self.appendBasic("t", value)
    }

    /// Appends a double ("d").
    ///
    /// The corresponding C function is `sd_bus_message_append_basic`.
    public func append(_ value: Double) throws(Errno) {
        try self.appendBasic("d", value)
    }

    /// Opens a container: an array `("a", "s")`, a struct `("r", "sv")`, a dict entry
    /// `("e", "sv")` or a variant `("v", "s")`. Close it with `closeContainer()`.
    ///
    /// The corresponding C function is `sd_bus_message_open_container`.
    public func openContainer(_ type: Character, _ contents: String) throws(Errno) {
        try check(sd_bus_message_open_container(self.pointer, code(type), contents))
    }

    /// Closes the innermost open container.
    ///
    /// The corresponding C function is `sd_bus_message_close_container`.
    public func closeContainer() throws(Errno) {
        try check(sd_bus_message_close_container(self.pointer))
    }

    /// Appends an array of strings ("as").
    ///
    /// The corresponding C functions are `sd_bus_message_open_container` and
    /// `sd_bus_message_append_basic`.
    public func appendStringArray(_ values: [String]) throws(Errno) {
        try self.openContainer("a", "s")
        for value in values {
            try self.append(value)
        }
        try self.closeContainer()
    }

    /// Seals a message built here and rewinds it, so it can be read back (for tests).
    ///
    /// The corresponding C functions are `sd_bus_message_seal` and `sd_bus_message_rewind`.
    func sealForReading() throws(Errno) {
        try check(sd_bus_message_seal(self.pointer, 1, 0))
        try check(sd_bus_message_rewind(self.pointer, 1))
    }

    // MARK: Reading

    /// Reads the next value of a fixed-size type into a `T`.
    ///
    /// - Throws: `ENXIO` if the next value has another type or there is none.
    private func readBasic<T>(_ type: Character, _ initial: T) throws(Errno) -> T {
        var value = initial
        let result = withUnsafeMutablePointer(to: &value) { sd_bus_message_read_basic(self.pointer, code(type), $0) }
        if try check(result) == 0 {
            throw Errno(rawValue: ENXIO)
        }
        return value
    }

    private func readText(_ type: Character) throws(Errno) -> String {
        let text: UnsafePointer<CChar>? = try self.readBasic(type, nil)
        return String(cString: text!)
    }

    /// Reads a string ("s").
    ///
    /// The corresponding C function is `sd_bus_message_read_basic`.
    public func readString() throws(Errno) -> String {
        try self.readText("s")
    }

    /// Reads an object path ("o").
    ///
    /// The corresponding C function is `sd_bus_message_read_basic`.
    public func readObjectPath() throws(Errno) -> String {
        try self.readText("o")
    }

    /// Reads a boolean ("b").
    ///
    /// The corresponding C function is `sd_bus_message_read_basic`.
    public func readBool() throws(Errno) -> Bool {
        try self.readBasic("b", Int32(0)) != 0
    }

    /// Reads a byte ("y").
    ///
    /// The corresponding C function is `sd_bus_message_read_basic`.
    public func readByte() throws(Errno) -> UInt8 {
        try self.readBasic("y", UInt8(0))
    }

    /// Reads a signed 32-bit integer ("i").
    ///
    /// The corresponding C function is `sd_bus_message_read_basic`.
    public func readInt32() throws(Errno) -> Int32 {
        try self.readBasic("i", Int32(0))
    }

    /// Reads an unsigned 32-bit integer ("u").
    ///
    /// The corresponding C function is `sd_bus_message_read_basic`.
    public func readUInt32() throws(Errno) -> UInt32 {
        try self.readBasic("u", UInt32(0))
    }

    /// Reads a signed 64-bit integer ("x").
    ///
    /// The corresponding C function is `sd_bus_message_read_basic`.
    public func readInt64() throws(Errno) -> Int64 {
        try self.readBasic("x", Int64(0))
    }

    /// Reads an unsigned 64-bit integer ("t").
    ///
    /// The corresponding C function is `sd_bus_message_read_basic`.
    public func readUInt64() throws(Errno) -> UInt64 {
        try self.readBasic("t", UInt64(0))
    }

    /// Reads a double ("d").
    ///
    /// The corresponding C function is `sd_bus_message_read_basic`.
    public func readDouble() throws(Errno) -> Double {
        try self.readBasic("d", Double(0))
    }

    /// Enters a container of the given type and contents (`nil` accepts any contents).
    ///
    /// - Returns: `false` at the end of the enclosing array (nothing left to enter).
    ///
    /// The corresponding C function is `sd_bus_message_enter_container`.
    @discardableResult
    public func enterContainer(_ type: Character, _ contents: String?) throws(Errno) -> Bool {
        try check(sd_bus_message_enter_container(self.pointer, code(type), contents)) > 0
    }

    /// Leaves the innermost entered container, skipping what was not read.
    ///
    /// The corresponding C function is `sd_bus_message_exit_container`.
    public func exitContainer() throws(Errno) {
        try check(sd_bus_message_exit_container(self.pointer))
    }

    /// Reads an array of strings ("as").
    ///
    /// The corresponding C functions are `sd_bus_message_enter_container` and
    /// `sd_bus_message_read_basic`.
    public func readStringArray() throws(Errno) -> [String] {
        guard try self.enterContainer("a", "s") else {
            throw Errno(rawValue: ENXIO)
        }
        var values: [String] = []
        while let value = try self.readTextOrEnd("s") {
            values.append(value)
        }
        try self.exitContainer()
        return values
    }

    private func readTextOrEnd(_ type: Character) throws(Errno) -> String? {
        var text: UnsafePointer<CChar>?
        let result = withUnsafeMutablePointer(to: &text) { sd_bus_message_read_basic(self.pointer, code(type), $0) }
        return try check(result) == 0 ? nil : String(cString: text!)
    }

    /// Skips values of the given signature, or the next complete value when `nil`.
    ///
    /// The corresponding C function is `sd_bus_message_skip`.
    public func skip(_ signature: String? = nil) throws(Errno) {
        try check(sd_bus_message_skip(self.pointer, signature))
    }

    /// The type of the next value and, for a container, its contents; `nil` at the end.
    ///
    /// The corresponding C function is `sd_bus_message_peek_type`.
    public func peekType() throws(Errno) -> (type: Character, contents: String?)? {
        var type: CChar = 0
        var contents: UnsafePointer<CChar>?
        guard try check(sd_bus_message_peek_type(self.pointer, &type, &contents)) > 0 else {
            return nil
        }
        return (Character(Unicode.Scalar(UInt8(bitPattern: type))), contents.map { String(cString: $0) })
    }

    // MARK: Header

    /// Whether the message is an error reply.
    ///
    /// The corresponding C function is `sd_bus_message_is_method_error`.
    public var isMethodError: Bool {
        sd_bus_message_is_method_error(self.pointer, nil) > 0
    }

    /// The error of an error reply, e.g. "org.freedesktop.DBus.Error.ServiceUnknown".
    ///
    /// The corresponding C function is `sd_bus_message_get_error`.
    public var errorName: String? {
        sd_bus_message_get_error(self.pointer)?.pointee.name.map { String(cString: $0) }
    }

    /// The error of an error reply as a `BusError`, or `nil` for any other message.
    ///
    /// The corresponding C function is `sd_bus_message_get_error`.
    public var error: BusError? {
        sd_bus_message_get_error(self.pointer).map { BusError(copying: $0) }
    }

    /// The member (method or signal name), if any.
    ///
    /// The corresponding C function is `sd_bus_message_get_member`.
    public var member: String? {
        sd_bus_message_get_member(self.pointer).map { String(cString: $0) }
    }

    /// The interface, if any.
    ///
    /// The corresponding C function is `sd_bus_message_get_interface`.
    public var interface: String? {
        sd_bus_message_get_interface(self.pointer).map { String(cString: $0) }
    }

    /// The object path, if any.
    ///
    /// The corresponding C function is `sd_bus_message_get_path`.
    public var path: String? {
        sd_bus_message_get_path(self.pointer).map { String(cString: $0) }
    }

    /// The unique name of the sender, if any.
    ///
    /// The corresponding C function is `sd_bus_message_get_sender`.
    public var sender: String? {
        sd_bus_message_get_sender(self.pointer).map { String(cString: $0) }
    }

    /// The signature of the whole body, e.g. "susssasa{sv}i".
    ///
    /// The corresponding C function is `sd_bus_message_get_signature`.
    public var signature: String {
        sd_bus_message_get_signature(self.pointer, 1).map { String(cString: $0) } ?? ""
    }
}

@available(*, unavailable)
extension BusMessage: Sendable {}
