// Bus: connecting, synchronous and asynchronous calls, matches and closing, against a private
// dbus-daemon that each test starts and stops.

import DaysomeTestSupport
import Glibc
import Testing

@testable import SystemdKit

/// A call to the bus driver itself (org.freedesktop.DBus).
func driverCall(_ bus: Bus, _ member: String) throws -> BusMessage {
    try bus.newMethodCall(
        destination: "org.freedesktop.DBus",
        path: "/org/freedesktop/DBus",
        interface: "org.freedesktop.DBus",
        member: member
    )
}

@Suite struct BusTests {
    @Test func openSaysHelloAndGetsUniqueName() throws {
        let services = try TestServices()
        defer { services.stopAll() }
        let bus = try Bus.open(address: try services.startSessionBus().address)
        #expect(bus.isOpen)
        #expect(try bus.uniqueName.hasPrefix(":1."))
    }

    @Test func synchronousCallsReadEveryReplyType() throws {
        let services = try TestServices()
        defer { services.stopAll() }
        let bus = try Bus.open(address: try services.startSessionBus().address)
        let me = try bus.uniqueName

        let owner = try driverCall(bus, "GetNameOwner")
        try owner.append("org.freedesktop.DBus")
        #expect(try bus.call(owner).readString() == "org.freedesktop.DBus")

        let names = try bus.call(try driverCall(bus, "ListNames")).readStringArray()
        #expect(names.contains(me))

        let hasOwner = try driverCall(bus, "NameHasOwner")
        try hasOwner.append(me)
        #expect(try bus.call(hasOwner).readBool())

        let pid = try driverCall(bus, "GetConnectionUnixProcessID")
        try pid.append(me)
        #expect(try bus.call(pid).readUInt32() == UInt32(getpid()))
    }

    @Test func errorReplyBecomesBusError() throws {
        let services = try TestServices()
        defer { services.stopAll() }
        let bus = try Bus.open(address: try services.startSessionBus().address)
        let call = try driverCall(bus, "GetNameOwner")
        try call.append("org.example.Nobody")
        #expect {
            _ = try bus.call(call)
        } throws: { error in
            (error as? BusError)?.name == BusError.nameHasNoOwner
        }
    }

    @Test func asyncCallRepliesThroughTheLoop() throws {
        let services = try TestServices()
        defer { services.stopAll() }
        let loop = try EventLoop()
        let bus = try Bus.open(address: try services.startSessionBus().address)
        try bus.attach(to: loop)
        var replies: [Result<String, BusError>] = []
        let good = try driverCall(bus, "GetId")
        let bad = try driverCall(bus, "NoSuchMethod")
        let goodSlot = try bus.callAsync(good) { result in
            replies.append(result.map { (try? $0.readString()) ?? "" })
        }
        let badSlot = try bus.callAsync(bad) { result in
            replies.append(result.map { _ in "" })
            try? loop.exit(code: 0)
        }
        #expect(try runLoop(loop) == 0)
        #expect(replies.count == 2)
        #expect((try? replies[0].get())?.count == 32)
        if case .failure(let error) = replies[1] {
            #expect(error.name == BusError.unknownMethod)
        } else {
            Issue.record("NoSuchMethod succeeded")
        }
        _ = (goodSlot, badSlot)
    }

    @Test func droppedSlotCancelsTheCall() throws {
        let services = try TestServices()
        defer { services.stopAll() }
        let loop = try EventLoop()
        let bus = try Bus.open(address: try services.startSessionBus().address)
        try bus.attach(to: loop)
        var called = false
        let slot = try bus.callAsync(try driverCall(bus, "GetId")) { _ in called = true }
        slot.cancel()
        let stop = try loop.addTimer(clock: CLOCK_MONOTONIC, after: 200_000) { _ in try? loop.exit(code: 0) }
        #expect(try runLoop(loop) == 0)
        #expect(!called)
        _ = stop
    }

    @Test func matchSeesAnotherConnectionsSignal() throws {
        let services = try TestServices()
        defer { services.stopAll() }
        let address = try services.startSessionBus().address
        let loop = try EventLoop()
        let watcher = try Bus.open(address: address)
        try watcher.attach(to: loop)
        let owner = try Bus.open(address: address)
        var seen: [String] = []
        let rule = "type='signal',sender='org.freedesktop.DBus',member='NameOwnerChanged',arg0='org.example.Test'"
        let match = try watcher.addMatch(rule) { message in
            seen.append((message.member ?? "") + " " + ((try? message.readString()) ?? ""))
            try? loop.exit(code: 0)
        }
        let request = try driverCall(owner, "RequestName")
        try request.append("org.example.Test")
        try request.append(UInt32(0))
        #expect(try owner.call(request).readUInt32() == 1)  // DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER
        #expect(try runLoop(loop) == 0)
        #expect(seen == ["NameOwnerChanged org.example.Test"])
        _ = match
    }

    @Test func closedBusRefusesCalls() throws {
        let services = try TestServices()
        defer { services.stopAll() }
        let bus = try Bus.open(address: try services.startSessionBus().address)
        try bus.flush()
        bus.close()
        #expect(!bus.isOpen)
        // Building still works; sending fails, in D-Bus terms.
        let call = try driverCall(bus, "GetId")
        #expect {
            _ = try bus.call(call)
        } throws: { error in
            (error as? BusError)?.errno == ENOTCONN && (error as? BusError)?.name == "System.Error.ENOTCONN"
        }
    }

    @Test func openFailsWithoutADaemon() throws {
        let directory = try TestDirectory()
        #expect(throws: Errno.noSuchFileOrDirectory) {
            _ = try Bus.open(address: "unix:path=\(directory.path)/no-bus")
        }
    }
}

extension EnvironmentTests {
    @Suite struct BusEnvironmentTests {
        @Test func openUserFollowsSessionBusAddress() throws {
            let services = try TestServices()
            defer { services.stopAll() }
            let address = try services.startSessionBus().address
            setenv("DBUS_SESSION_BUS_ADDRESS", address, 1)
            defer { unsetenv("DBUS_SESSION_BUS_ADDRESS") }
            let bus = try Bus.openUser()
            #expect(try bus.uniqueName.hasPrefix(":1."))
        }
    }
}
