// Probes of a notification server that never start one and never block the loop: asking about
// a server must not D-Bus-activate one (a bus with several servers installed started dunst when
// xfce4-notifyd's name went, and the restarted xfce4-notifyd then quit), and must not wait for
// one to start. Only a real Notify may activate a server.

import CSystemd
import Glibc

/// What a notification server says of itself.
public struct ServerDescription: Sendable, Equatable {
    public let name: String
    public let vendor: String
    public let capabilities: [String]

    public init(name: String, vendor: String, capabilities: [String]) {
        self.name = name
        self.vendor = vendor
        self.capabilities = capabilities
    }
}

extension Notifications {
    /// A method call to the server that the bus may not auto-start it for.
    private func probe(_ interface: String, _ member: String) throws(Errno) -> BusMessage {
        let message = try self.bus.newMethodCall(
            destination: Notifications.busName, path: Notifications.objectPath, interface: interface, member: member)
        try message.setAutoStart(false)
        return message
    }

    /// Sends a probe; `completion` gets the reply or the error, from the loop.
    private func send(_ message: BusMessage, completion: @escaping (Result<BusMessage, BusError>) -> Void) {
        self.bus.send(message, timeout: 10_000_000, decode: { $0 }, completion: completion)
    }

    /// The unique name of the server that owns `org.freedesktop.Notifications` now, or nil when
    /// none does. Answered by the bus driver: asking never starts a server.
    ///
    /// D-Bus: `org.freedesktop.DBus.GetNameOwner(s) -> s` (NameHasOwner error where none). The
    /// corresponding C function is `sd_bus_call`.
    public func serverOwner() throws(BusError) -> String? {
        let message: BusMessage
        do throws(Errno) {
            message = try self.bus.newMethodCall(
                destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                member: "GetNameOwner")
            try message.append(Notifications.busName)
        } catch {
            throw BusError(error)
        }
        do {
            let reply = try self.bus.call(message, timeout: 1_000_000)
            return try? reply.readString()
        } catch {
            if error.name == "org.freedesktop.DBus.Error.NameHasNoOwner" { return nil }
            throw error
        }
    }

    /// The unique name of the server that owns `org.freedesktop.Notifications` now, or nil when
    /// none does, from the loop: the bus driver answers, and asking never starts a server.
    ///
    /// D-Bus: `org.freedesktop.DBus.GetNameOwner(s) -> s`. The corresponding C function is
    /// `sd_bus_call_async`.
    public func serverOwner(completion: @escaping (Result<String?, BusError>) -> Void) {
        do throws(Errno) {
            let message = try self.bus.newMethodCall(
                destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                member: "GetNameOwner")
            try message.append(Notifications.busName)
            self.bus.send(
                message, timeout: 1_000_000, decode: { reply throws(Errno) -> String in try reply.readString() },
                completion: { result in
                    switch result {
                    case .success(let owner): completion(.success(owner))
                    case .failure(let error) where error.name == BusError.nameHasNoOwner: completion(.success(nil))
                    case .failure(let error): completion(.failure(error))
                    }
                })
        } catch {
            completion(.failure(BusError(error)))
        }
    }

    /// Asks a running server for its name, vendor and capabilities, without starting one:
    /// `completion` gets them from the loop, or the first error (ServiceUnknown where no server runs).
    ///
    /// D-Bus: `GetServerInformation() -> ssss`, then `GetCapabilities() -> as`, each with the
    /// no-auto-start flag. The corresponding C function is `sd_bus_call_async`.
    public func probeServer(
        completion: @escaping (Result<ServerDescription, BusError>) -> Void
    ) {
        let information: BusMessage
        do throws(Errno) {
            information = try self.probe(Notifications.interfaceName, "GetServerInformation")
        } catch {
            completion(.failure(BusError(error)))
            return
        }
        self.send(information) { [weak self] result in
            switch result {
            case .failure(let error):
                completion(.failure(error))
            case .success(let reply):
                guard let self, let name = try? reply.readString(), let vendor = try? reply.readString() else {
                    completion(.failure(BusError(Errno(rawValue: EBADMSG))))
                    return
                }
                self.probeCapabilities(name: name, vendor: vendor, completion: completion)
            }
        }
    }

    private func probeCapabilities(
        name: String, vendor: String, completion: @escaping (Result<ServerDescription, BusError>) -> Void
    ) {
        do throws(Errno) {
            self.send(try self.probe(Notifications.interfaceName, "GetCapabilities")) { result in
                completion(
                    result.flatMap { reply in
                        guard let capabilities = try? reply.readStringArray() else {
                            return .failure(BusError(Errno(rawValue: EBADMSG)))
                        }
                        return .success(ServerDescription(name: name, vendor: vendor, capabilities: capabilities))
                    })
            }
        } catch {
            completion(.failure(BusError(error)))
        }
    }

    /// Whether `uniqueName` is still connected, asked before a loop runs (a daemon's start-up
    /// asks about the servers that stamped the ids an earlier daemon kept). Unique names are
    /// never reused on one bus, so false means that connection is gone for good.
    ///
    /// D-Bus: `org.freedesktop.DBus.NameHasOwner(s) -> b`. The corresponding C function is
    /// `sd_bus_call`.
    public func isOnBus(_ uniqueName: String) throws(BusError) -> Bool {
        let message: BusMessage
        do throws(Errno) {
            message = try self.nameHasOwner(uniqueName)
        } catch {
            throw BusError(error)
        }
        let reply = try self.bus.call(message, timeout: 1_000_000)
        do throws(Errno) {
            return try reply.readBool()
        } catch {
            throw BusError(error)
        }
    }

    /// Whether a connection (a server's unique name, ":1.42") is still on the bus, from the loop:
    /// a server whose name another took over still runs and still shows its cards; one that
    /// exited does not. nil when the bus driver did not answer.
    ///
    /// D-Bus: `org.freedesktop.DBus.NameHasOwner(s) -> b`. The corresponding C function is
    /// `sd_bus_call_async`.
    public func isOnBus(_ uniqueName: String, completion: @escaping (Bool?) -> Void) {
        do throws(Errno) {
            let message = try self.nameHasOwner(uniqueName)
            self.bus.send(
                message, timeout: 1_000_000, decode: { reply throws(Errno) -> Bool in try reply.readBool() },
                completion: { result in completion(try? result.get()) })
        } catch {
            completion(nil)
        }
    }

    /// The bus driver's `NameHasOwner(uniqueName)`, both forms' one message.
    private func nameHasOwner(_ uniqueName: String) throws(Errno) -> BusMessage {
        let message = try self.bus.newMethodCall(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "NameHasOwner")
        try message.append(uniqueName)
        return message
    }

    /// Calls `handler` once the connection `uniqueName` leaves the bus (its process exited).
    ///
    /// - Returns: the match; keep it as long as the handler should be called.
    ///
    /// The corresponding C function is `sd_bus_add_match` (`Bus.onNameOwnerChanged`).
    public func onLeaving(_ uniqueName: String, _ handler: @escaping () -> Void) throws(Errno) -> BusSlot {
        try self.bus.onNameOwnerChanged(uniqueName) { _, new in
            if new == nil { handler() }
        }
    }

    /// Calls `handler` with the old and the new owner of the server's name (`nil` for none):
    /// the old owner tells a server that went (or was replaced) from one that appeared.
    /// Notification ids start over with a new server.
    ///
    /// - Returns: the match; keep it as long as the handler should be called.
    ///
    /// The corresponding C function is `sd_bus_add_match` (`Bus.onNameOwnerChanged`).
    public func onOwnerChange(_ handler: @escaping (_ old: String?, _ new: String?) -> Void) throws(Errno) -> BusSlot {
        try self.bus.onNameOwnerChanged(Notifications.busName, handler)
    }
}
