// A typed client for the parts of org.freedesktop.systemd1 the daemon uses: transient timers
// with their services, stopping units, listing units by pattern and reading a timer's calendar.
// It reaches the user manager as `systemctl --user` does: the private socket first, the user
// bus otherwise. It leaves out everything else the manager offers.

import CSystemd
import Glibc

/// One unit as ListUnitsByPatterns reports it.
public struct ListedUnit: Sendable, Equatable {
    public let name: String
    public let description: String
    public let loadState: String
    public let activeState: String
    public let subState: String
    /// The unit's object path, for reading its properties without a GetUnit call.
    public let path: String

    public init(
        name: String, description: String, loadState: String, activeState: String, subState: String, path: String = ""
    ) {
        self.name = name
        self.description = description
        self.loadState = loadState
        self.activeState = activeState
        self.subState = subState
        self.path = path
    }
}

/// One calendar entry of a timer, as the manager computed it.
public struct TimerCalendarEntry: Sendable, Equatable {
    /// `OnCalendar`.
    public let base: String
    /// The calendar spec, normalised by the manager: `2026-12-01 13:00:00 UTC`.
    public let spec: String
    /// The next elapse in CLOCK_REALTIME microseconds; 0 or UInt64.max when it will not elapse again.
    public let nextElapse: UInt64

    public init(base: String, spec: String, nextElapse: UInt64) {
        self.base = base
        self.spec = spec
        self.nextElapse = nextElapse
    }
}

/// A timer unit as listed, with its calendar entries.
public struct ListedTimer: Sendable, Equatable {
    public let unit: ListedUnit
    public let entries: [TimerCalendarEntry]

    public init(unit: ListedUnit, entries: [TimerCalendarEntry]) {
        self.unit = unit
        self.entries = entries
    }
}

/// The service a transient timer starts.
public struct TransientService: Sendable, Equatable {
    public let name: String
    public let description: String
    /// The program by absolute path, then its arguments (argv[0] included).
    public let argv: [String]
    public let environment: [String]

    public init(name: String, description: String, argv: [String], environment: [String]) {
        self.name = name
        self.description = description
        self.argv = argv
        self.environment = environment
    }
}

/// The settings of a transient timer.
public struct TransientTimer: Sendable, Equatable {
    public let name: String
    public let description: String
    /// `OnCalendar` specs, one per elapse.
    public let calendars: [String]
    /// How late the manager may fire it, in microseconds.
    public let accuracy: UInt64
    public let wakeSystem: Bool
    public let service: TransientService

    public init(
        name: String, description: String, calendars: [String], accuracy: UInt64, wakeSystem: Bool,
        service: TransientService
    ) {
        self.name = name
        self.description = description
        self.calendars = calendars
        self.accuracy = accuracy
        self.wakeSystem = wakeSystem
        self.service = service
    }
}

/// The systemd manager over one connection. Calls on one connection are handled in order, so a
/// stop sent after a start reaches the manager after it.
public final class SystemdManager {
    public let bus: Bus
    /// Whether this connection is the manager's private socket, to which the manager sends every
    /// signal it emits (each unit's change, each unit new or removed, each reload) with no
    /// subscription: on the user bus it sends them only to subscribers.
    public let hearsEverySignal: Bool
    private static let destination = "org.freedesktop.systemd1"
    private static let path = "/org/freedesktop/systemd1"
    private static let interface = "org.freedesktop.systemd1.Manager"

    /// How long a synchronous call may wait, in microseconds: the daemon's one loop must not hang
    /// for sd-bus's default 25 s on a manager that stopped answering.
    public static let callTimeout: UInt64 = 2_000_000

    public init(bus: Bus, hearsEverySignal: Bool = false) {
        self.bus = bus
        self.hearsEverySignal = hearsEverySignal
    }

    /// Calls `handler` for every signal the manager sends on this connection (see
    /// `hearsEverySignal`), for as long as the connection lives.
    ///
    /// The corresponding C function is `sd_bus_add_match`.
    public func watchEverySignal(_ handler: @escaping () -> Void) throws(Errno) {
        self.signalWatches.append(try self.bus.addMatch("type='signal'") { _ in handler() })
    }

    private var signalWatches: [BusSlot] = []

    /// Connects to the user manager: `$XDG_RUNTIME_DIR/systemd/private`, else the user bus, and
    /// there only while the manager owns `org.freedesktop.systemd1`: a bus that outlived its
    /// manager (or one with no manager behind it) accepts the connection, but every call to the
    /// manager would then wait out its timeout and go nowhere. Throws ECONNREFUSED in that case,
    /// so that a caller retries until the manager is back.
    ///
    /// The corresponding C functions are `sd_bus_new`, `sd_bus_set_address` and `sd_bus_start`.
    public static func connectUser(runtimeDirectory: String?) throws(Errno) -> SystemdManager {
        if let runtimeDirectory, !runtimeDirectory.isEmpty,
            let bus = try? Bus.open(address: "unix:path=\(runtimeDirectory)/systemd/private", busClient: false)
        {
            return SystemdManager(bus: bus, hearsEverySignal: true)
        }
        let bus = try Bus.openUser()
        // GetNameOwner is answered by the bus itself and never activates the name.
        do {
            let message = try bus.newMethodCall(
                destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                member: "GetNameOwner")
            try message.append(Self.destination)
            _ = try bus.call(message, timeout: 5_000_000)
        } catch {
            throw Errno(rawValue: ECONNREFUSED)
        }
        return SystemdManager(bus: bus)
    }

    private func call(_ member: String) throws(BusError) -> BusMessage {
        do {
            return try self.bus.newMethodCall(
                destination: Self.destination, path: Self.path, interface: Self.interface, member: member)
        } catch {
            throw BusError(error)
        }
    }

    /// Builds StartTransientUnit for a timer and its service: signature `ssa(sv)a(sa(sv))`, with
    /// `TimersCalendar a(ss)`, `AccuracyUSec t`, `RemainAfterElapse b`, `Persistent b`, `WakeSystem b`,
    /// and the service's `ExecStart a(sasb)` and `Environment as`.
    private func startTransientTimerMessage(_ timer: TransientTimer) throws(BusError) -> BusMessage {
        let message = try self.call("StartTransientUnit")
        do {
            try message.append(timer.name)
            try message.append("fail")
            try message.openContainer("a", "(sv)")
            try Self.property(message, "Description", .string(timer.description))
            try message.openContainer("r", "sv")
            try message.append("TimersCalendar")
            try message.openContainer("v", "a(ss)")
            try message.openContainer("a", "(ss)")
            for spec in timer.calendars {
                try message.openContainer("r", "ss")
                try message.append("OnCalendar")
                try message.append(spec)
                try message.closeContainer()
            }
            try message.closeContainer()
            try message.closeContainer()
            try message.closeContainer()
            try Self.property(message, "AccuracyUSec", .uint64(timer.accuracy))
            try Self.property(message, "RemainAfterElapse", .bool(false))
            try Self.property(message, "Persistent", .bool(false))
            if timer.wakeSystem { try Self.property(message, "WakeSystem", .bool(true)) }
            try message.closeContainer()
            // The auxiliary unit: the service the timer starts.
            try message.openContainer("a", "(sa(sv))")
            try message.openContainer("r", "sa(sv)")
            try message.append(timer.service.name)
            try message.openContainer("a", "(sv)")
            try Self.property(message, "Description", .string(timer.service.description))
            try Self.property(message, "Type", .string("oneshot"))
            try Self.property(message, "Environment", .stringArray(timer.service.environment))
            try message.openContainer("r", "sv")
            try message.append("ExecStart")
            try message.openContainer("v", "a(sasb)")
            try message.openContainer("a", "(sasb)")
            try message.openContainer("r", "sasb")
            try message.append(timer.service.argv[0])
            try message.appendStringArray(timer.service.argv)
            try message.append(false)
            try message.closeContainer()
            try message.closeContainer()
            try message.closeContainer()
            try message.closeContainer()
            try message.closeContainer()
            try message.closeContainer()
            try message.closeContainer()
        } catch {
            throw BusError(error)
        }
        return message
    }

    private static func property(_ message: BusMessage, _ name: String, _ value: BusVariant) throws(Errno) {
        try message.openContainer("r", "sv")
        try message.append(name)
        try message.appendVariant(value)
        try message.closeContainer()
    }

    /// Starts a transient timer and its service, asynchronously; `completion` gets the job path or the error.
    ///
    /// The corresponding C function is `sd_bus_call_async`.
    public func startTransientTimer(
        _ timer: TransientTimer, completion: @escaping (Result<String, BusError>) -> Void
    ) throws(BusError) -> BusSlot {
        let message = try self.startTransientTimerMessage(timer)
        do {
            return try self.bus.callAsync(message, timeout: 0) { result in
                completion(result.flatMap { reply in Result { () throws(BusError) in try Self.readPath(reply) } })
            }
        } catch {
            throw BusError(error)
        }
    }

    /// A unit job call (`StartUnit`, `StopUnit`, `RestartUnit`: signature `ss`, mode "replace").
    private func unitJob(_ member: String, _ name: String) throws(BusError) -> BusMessage {
        let message = try self.call(member)
        do {
            try message.append(name)
            try message.append("replace")
        } catch {
            throw BusError(error)
        }
        return message
    }

    /// Sends a unit job asynchronously; `completion` gets the job's object path or the error.
    private func unitJobAsync(
        _ member: String, _ name: String, completion: @escaping (Result<String, BusError>) -> Void
    ) throws(BusError) -> BusSlot {
        let message = try self.unitJob(member, name)
        do {
            return try self.bus.callAsync(message, timeout: 0) { result in
                completion(result.flatMap { reply in Result { () throws(BusError) in try Self.readPath(reply) } })
            }
        } catch {
            throw BusError(error)
        }
    }

    /// Stops a unit (`StopUnit(ss)`, mode "replace"), asynchronously.
    ///
    /// The corresponding C function is `sd_bus_call_async`.
    public func stopUnit(
        _ name: String, completion: @escaping (Result<String, BusError>) -> Void
    ) throws(BusError)
        -> BusSlot
    {
        try self.unitJobAsync("StopUnit", name, completion: completion)
    }

    /// Starts a unit (`StartUnit(ss)`, mode "replace") and waits for the manager to accept the job.
    ///
    /// The corresponding C function is `sd_bus_call`.
    public func startUnitAndWait(_ name: String) throws(BusError) {
        _ = try self.bus.call(try self.unitJob("StartUnit", name), timeout: Self.callTimeout)
    }

    /// Restarts a unit, starting it if it is not running (`RestartUnit(ss)`, mode "replace"), asynchronously.
    ///
    /// The corresponding C function is `sd_bus_call_async`.
    public func restartUnit(
        _ name: String, completion: @escaping (Result<String, BusError>) -> Void
    ) throws(BusError)
        -> BusSlot
    {
        try self.unitJobAsync("RestartUnit", name, completion: completion)
    }

    /// The `ListUnitsByPatterns(asas)` call for units matching `patterns`, in any state.
    private func listUnitsMessage(_ patterns: [String]) throws(BusError) -> BusMessage {
        let message = try self.call("ListUnitsByPatterns")
        do {
            try message.appendStringArray([])
            try message.appendStringArray(patterns)
        } catch {
            throw BusError(error)
        }
        return message
    }

    /// Reads a `ListUnitsByPatterns` reply: `a(ssssssouso)`.
    private static func readUnits(_ reply: BusMessage) throws(Errno) -> [ListedUnit] {
        var units: [ListedUnit] = []
        _ = try reply.enterContainer("a", "(ssssssouso)")
        while try reply.enterContainer("r", "ssssssouso") {
            let name = try reply.readString()
            let description = try reply.readString()
            let load = try reply.readString()
            let active = try reply.readString()
            let sub = try reply.readString()
            try reply.skip("s")
            let path = try reply.readObjectPath()
            try reply.skip("u")
            try reply.skip("so")
            try reply.exitContainer()
            units.append(
                ListedUnit(
                    name: name, description: description, loadState: load, activeState: active, subState: sub,
                    path: path))
        }
        try reply.exitContainer()
        return units
    }

    /// Units whose names match the patterns, in any state (`ListUnitsByPatterns(asas)`), waiting
    /// for the answer: for start-up and tools, never for a daemon's running loop.
    ///
    /// The corresponding C function is `sd_bus_call`.
    public func listUnits(matching patterns: [String]) throws(BusError) -> [ListedUnit] {
        let reply = try self.bus.call(try self.listUnitsMessage(patterns), timeout: Self.callTimeout)
        do {
            return try Self.readUnits(reply)
        } catch {
            throw BusError(error)
        }
    }

    /// Units whose names match the patterns, asynchronously: `completion` gets them from the loop.
    /// Calls on one connection reach the manager in order, and their replies come back in order,
    /// so what a reply lists is the manager's state after every call sent before it.
    ///
    /// The corresponding C function is `sd_bus_call_async`.
    public func listUnits(
        matching patterns: [String], completion: @escaping (Result<[ListedUnit], BusError>) -> Void
    ) {
        do {
            self.bus.send(
                try self.listUnitsMessage(patterns), timeout: Self.callTimeout, decode: Self.readUnits,
                completion: completion)
        } catch {
            completion(.failure(error))
        }
    }

    /// The object path of a loaded unit (`GetUnit(s)`).
    public func unitPath(_ name: String) throws(BusError) -> String {
        let message = try self.call("GetUnit")
        do {
            try message.append(name)
        } catch {
            throw BusError(error)
        }
        return try Self.readPath(try self.bus.call(message, timeout: Self.callTimeout))
    }

    /// A timer's calendar entries with their next elapse (`TimersCalendar a(sst)`), and with
    /// `timerNextElapse` the timer's own next elapse (`NextElapseUSecRealtime t`; else 0): one
    /// call to the manager, two with it. `path` is the unit's object path (`ListedUnit.path`).
    public func timerCalendar(
        path: String, timerNextElapse: Bool = false
    ) throws(BusError) -> (entries: [TimerCalendarEntry], nextElapse: UInt64) {
        let calendar = try self.bus.call(
            try self.getPropertyMessage(path: path, name: "TimersCalendar"), timeout: Self.callTimeout)
        let entries: [TimerCalendarEntry]
        do {
            entries = try Self.readCalendar(calendar)
        } catch {
            throw BusError(error)
        }
        guard timerNextElapse else { return (entries, 0) }
        let next = try self.bus.call(
            try self.getPropertyMessage(path: path, name: "NextElapseUSecRealtime"), timeout: Self.callTimeout)
        do {
            _ = try next.enterContainer("v", "t")
            return (entries, try next.readUInt64())
        } catch {
            throw BusError(error)
        }
    }

    /// The timers matching `patterns` with their `TimersCalendar`, asynchronously: one
    /// ListUnitsByPatterns, then every timer's Get sent at once (the replies come in order on
    /// the one connection); `completion` gets them from the loop when the last reply came. A
    /// timer gone between the list and its Get is left out, as a list made a moment later
    /// would leave it out. The loop never waits for the manager.
    ///
    /// The corresponding C function is `sd_bus_call_async`.
    public func listTimers(
        matching patterns: [String], completion: @escaping (Result<[ListedTimer], BusError>) -> Void
    ) {
        self.listUnits(matching: patterns) { [weak self] listed in
            guard let self else { return completion(.failure(BusError(Errno(rawValue: ECONNRESET)))) }
            let units: [ListedUnit]
            switch listed {
            case .failure(let error): return completion(.failure(error))
            case .success(let read): units = read.filter { !$0.path.isEmpty }
            }
            guard !units.isEmpty else { return completion(.success([])) }
            var calendars = [[TimerCalendarEntry]?](repeating: nil, count: units.count)
            var waiting = units.count
            var lost: BusError?
            for (index, unit) in units.enumerated() {
                let message: BusMessage
                do throws(BusError) {
                    message = try self.getPropertyMessage(path: unit.path, name: "TimersCalendar")
                } catch {
                    return completion(.failure(error))
                }
                self.bus.send(message, timeout: Self.callTimeout, decode: Self.readCalendar) { result in
                    switch result {
                    case .success(let entries): calendars[index] = entries
                    // The unit unloaded meanwhile (UnknownObject): not the manager's any more.
                    case .failure(let error) where error.name.hasPrefix("org.freedesktop.DBus.Error.Unknown"): break
                    case .failure(let error): lost = lost ?? error
                    }
                    waiting -= 1
                    guard waiting == 0 else { return }
                    if let lost { return completion(.failure(lost)) }
                    completion(
                        .success(
                            zip(units, calendars).compactMap { unit, entries in
                                entries.map { ListedTimer(unit: unit, entries: $0) }
                            }))
                }
            }
        }
    }

    /// Reads a `Get` reply of `TimersCalendar`: `v` holding `a(sst)`.
    private static func readCalendar(_ reply: BusMessage) throws(Errno) -> [TimerCalendarEntry] {
        var entries: [TimerCalendarEntry] = []
        _ = try reply.enterContainer("v", "a(sst)")
        _ = try reply.enterContainer("a", "(sst)")
        while try reply.enterContainer("r", "sst") {
            entries.append(
                TimerCalendarEntry(
                    base: try reply.readString(), spec: try reply.readString(), nextElapse: try reply.readUInt64())
            )
            try reply.exitContainer()
        }
        return entries
    }

    /// `org.freedesktop.DBus.Properties.Get` of a Timer property of the unit at `path`.
    private func getPropertyMessage(path: String, name: String) throws(BusError) -> BusMessage {
        do {
            let message = try self.bus.newMethodCall(
                destination: Self.destination, path: path, interface: "org.freedesktop.DBus.Properties", member: "Get")
            try message.append("org.freedesktop.systemd1.Timer")
            try message.append(name)
            return message
        } catch {
            throw BusError(error)
        }
    }

    private static func readPath(_ reply: BusMessage) throws(BusError) -> String {
        do {
            return try reply.readObjectPath()
        } catch {
            throw BusError(error)
        }
    }
}
