// BusError: a D-Bus error (name, message, errno) copied out of an sd_bus_error, which is always
// freed with `defer` where we own it, or out of an error reply. Calls that fail locally (no
// connection, timeout) get the name sd-bus maps their errno to. No error-name registry.

import CSystemd
import Glibc

/// A D-Bus error: an error reply from a peer, or a local failure in D-Bus terms.
public struct BusError: Error, Sendable, CustomStringConvertible {
    /// The D-Bus error name, e.g. "org.freedesktop.DBus.Error.ServiceUnknown".
    public var name: String
    /// The human-readable message; may be empty.
    public var message: String
    /// The errno sd-bus maps the name to (EIO for unknown names).
    public var errno: Int32
    /// Whether sd-bus refused our own message before it left (building or queueing it, e.g. a
    /// string it cannot carry): no peer ever saw it, so the error is the sender's, not a peer's.
    public var unsent = false

    /// Creates an error from its parts.
    public init(name: String, message: String, errno: Int32) {
        self.name = name
        self.message = message
        self.errno = errno
    }

    /// A local failure expressed as a bus error, e.g. "System.Error.ENOTCONN".
    ///
    /// The corresponding C function is `sd_bus_error_set_errno`.
    public init(_ errno: Errno) {
        var error = sd_bus_error()
        defer { sd_bus_error_free(&error) }
        sd_bus_error_set_errno(&error, errno.rawValue)
        self.init(copying: &error)
    }

    /// Copies the parts of an error the caller still owns and frees.
    ///
    /// The corresponding C function is `sd_bus_error_get_errno`.
    init(copying error: UnsafePointer<sd_bus_error>) {
        self.name = error.pointee.name.map { String(cString: $0) } ?? "System.Error.EIO"
        self.message = error.pointee.message.map { String(cString: $0) } ?? ""
        self.errno = sd_bus_error_get_errno(error)
    }

    /// The same error, marked as our own message's: it never left this process.
    public var asUnsent: BusError {
        var error = self
        error.unsent = true
        return error
    }

    /// "name: message", or the name alone when there is no message.
    public var description: String {
        self.message.isEmpty ? self.name : "\(self.name): \(self.message)"
    }

    /// The error when a well-known name has no owner (e.g. GetNameOwner before a server starts).
    public static let nameHasNoOwner = "org.freedesktop.DBus.Error.NameHasNoOwner"
    /// The error when a name has no owner and cannot be activated.
    public static let serviceUnknown = "org.freedesktop.DBus.Error.ServiceUnknown"
    /// The error for a method the object does not have.
    public static let unknownMethod = "org.freedesktop.DBus.Error.UnknownMethod"
    /// The error for a method the object has but will not do (gsd's screensaver proxy's GetActive).
    public static let notSupported = "org.freedesktop.DBus.Error.NotSupported"
}
