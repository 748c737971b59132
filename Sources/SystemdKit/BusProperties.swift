// Reading D-Bus properties and following their changes: org.freedesktop.DBus.Properties.Get and
// its PropertiesChanged signal, and a well-known name's owner coming and going. Asynchronous
// only, so a slow peer never blocks the loop. The caller reads the variant ("v") itself,
// because properties such as logind's `Display` are structs that BusVariant does not carry.

import CSystemd
import Glibc

extension Bus {
    /// Asks `destination` for one property; the loop calls `completion` once with what `read`
    /// made of the reply's variant, or the error.
    ///
    /// D-Bus: method `org.freedesktop.DBus.Properties.Get(interface s, name s) -> (value v)`.
    ///
    /// - Parameters:
    ///   - autoStart: false for a probe, so that asking never starts the service.
    ///   - blockingFor: nil to ask on the loop; a timeout in microseconds to wait for the answer
    ///     here (see `send`).
    ///
    /// The corresponding C functions are `sd_bus_message_new_method_call`,
    /// `sd_bus_message_set_auto_start` and `sd_bus_call_async`.
    public func getProperty<T>(
        destination: String, path: String, interface: String, name: String, autoStart: Bool = true,
        blockingFor: UInt64? = nil, read: @escaping (BusMessage) throws(Errno) -> T,
        completion: @escaping (Result<T, BusError>) -> Void
    ) {
        do throws(Errno) {
            let message = try self.newMethodCall(
                destination: destination, path: path, interface: "org.freedesktop.DBus.Properties", member: "Get")
            try message.append(interface)
            try message.append(name)
            try message.setAutoStart(autoStart)
            if let usec = blockingFor {
                self.send(message, blockingFor: usec, decode: read, completion: completion)
            } else {
                self.send(message, decode: read, completion: completion)
            }
        } catch {
            completion(.failure(BusError(error)))
        }
    }

    /// Sends `message` and forgets it: the call rides a floating slot (the bus keeps it until its
    /// reply), and `completion` gets the decoded reply or the error, from the loop. The one way
    /// to make a call that nothing has to hold; the loop never waits for the peer.
    ///
    /// - Parameter usec: the timeout in microseconds; 0 means sd-bus's default (25 s).
    ///
    /// The corresponding C functions are `sd_bus_call_async` and `sd_bus_slot_set_floating`.
    public func send<T>(
        _ message: BusMessage, timeout usec: UInt64 = 0, decode: @escaping (BusMessage) throws(Errno) -> T,
        completion: @escaping (Result<T, BusError>) -> Void
    ) {
        do throws(Errno) {
            let slot = try self.callAsync(message, timeout: usec) { result in
                completion(
                    result.flatMap { reply in
                        do throws(Errno) {
                            return .success(try decode(reply))
                        } catch {
                            return .failure(BusError(error))
                        }
                    })
            }
            try slot.setFloating(true)
        } catch {
            // sd_bus_call_async refused it here: it never went out.
            completion(.failure(BusError(error).asUnsent))
        }
    }

    /// Sends `message` and waits here, at most `usec` microseconds, for its reply; `completion`
    /// gets the decoded reply or the error before this returns. Only for a start-up that must
    /// know an answer before its first decision: the loop waits meanwhile (other messages that
    /// arrive are queued, and dispatched once it runs).
    ///
    /// The corresponding C function is `sd_bus_call`.
    public func send<T>(
        _ message: BusMessage, blockingFor usec: UInt64, decode: (BusMessage) throws(Errno) -> T,
        completion: (Result<T, BusError>) -> Void
    ) {
        do throws(BusError) {
            let reply = try self.call(message, timeout: usec)
            do throws(Errno) {
                completion(.success(try decode(reply)))
            } catch {
                completion(.failure(BusError(error)))
            }
        } catch {
            completion(.failure(error))
        }
    }

    /// Calls `handler` whenever `sender` says property `name` of `interface` at `path` changed:
    /// with what `read` made of the new value, or with nil when the signal only invalidated it
    /// (ask again with `getProperty`). A malformed signal is dropped.
    ///
    /// D-Bus: signal `org.freedesktop.DBus.Properties.PropertiesChanged(interface s,
    /// changed a{sv}, invalidated as)`.
    ///
    /// - Returns: the match; keep it as long as the handler should be called.
    ///
    /// The corresponding C function is `sd_bus_add_match`.
    public func onPropertyChanged<T>(
        sender: String, path: String, interface: String, name: String,
        read: @escaping (BusMessage) throws(Errno) -> T,
        _ handler: @escaping (T?) -> Void
    ) throws(Errno) -> BusSlot {
        let rule =
            "type='signal',sender='\(sender)',path='\(path)',interface='org.freedesktop.DBus.Properties',"
            + "member='PropertiesChanged',arg0='\(interface)'"
        return try self.addMatch(rule) { message in
            do throws(Errno) {
                guard try message.readString() == interface else { return }
                var value: T?
                _ = try message.enterContainer("a", "{sv}")
                while try message.enterContainer("e", "sv") {
                    if try message.readString() == name {
                        value = try read(message)
                    } else {
                        try message.skip("v")
                    }
                    try message.exitContainer()
                }
                try message.exitContainer()
                let invalidated = try message.readStringArray()
                if let value {
                    handler(value)
                } else if invalidated.contains(name) {
                    handler(nil)
                }
            } catch {
                return
            }
        }
    }

    /// Calls `handler` with the old and the new unique owner of the well-known `name` (nil for
    /// none) whenever it changes hands: the old owner tells a peer that went, or was replaced,
    /// from one that appeared where none was. The one NameOwnerChanged subscription of the kit.
    ///
    /// D-Bus: signal `org.freedesktop.DBus.NameOwnerChanged(name s, old_owner s, new_owner s)`,
    /// matched on arg0.
    ///
    /// - Returns: the match; keep it as long as the handler should be called.
    ///
    /// The corresponding C function is `sd_bus_add_match`.
    public func onNameOwnerChanged(
        _ name: String, _ handler: @escaping (_ old: String?, _ new: String?) -> Void
    ) throws(Errno) -> BusSlot {
        let rule =
            "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
            + "interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(name)'"
        return try self.addMatch(rule) { message in
            guard (try? message.readString()) == name, let old = try? message.readString(),
                let new = try? message.readString()
            else { return }
            handler(old.isEmpty ? nil : old, new.isEmpty ? nil : new)
        }
    }
}
