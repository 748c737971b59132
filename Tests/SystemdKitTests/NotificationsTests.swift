// Notifications: the typed client against a real dunst on Xvfb and a private bus, all started by
// the test and stopped by pid. A missing dbus-daemon, Xvfb or dunst fails the test.

import Glibc
import Testing

@testable import SystemdKit

/// Polls `dunstctl count displayed` for up to 3 s until it prints `expected`.
private func waitForDisplayed(_ server: NotificationServer, _ expected: String) throws -> String {
    let deadline = monotonicUsec() + 3_000_000
    var count = try server.dunstctl(["count", "displayed"])
    while count != expected && monotonicUsec() < deadline {
        usleep(50_000)
        count = try server.dunstctl(["count", "displayed"])
    }
    return count
}

@Suite struct NotificationsTests {
    @Test func serverInformationAndCapabilities() throws {
        let services = try TestServices()
        defer { services.stopAll() }
        let bus = try services.startSessionBus()
        _ = try services.startNotificationServer(bus: bus)
        let loop = try EventLoop()
        let connection = try Bus.open(address: bus.address)
        try connection.attach(to: loop)
        let client = Notifications(bus: connection)

        var described: Result<ServerDescription, BusError>?
        client.probeServer { result in
            described = result
            try? loop.exit(code: 0)
        }
        #expect(try runLoop(loop) == 0)
        let server = try #require(try described?.get())
        #expect(server.name == "dunst")
        #expect(server.capabilities.contains("body-markup"))
        #expect(server.capabilities.contains("actions"))
    }

    @Test func notifyShowsAndCloseRemovesWithReasonThree() throws {
        let services = try TestServices()
        defer { services.stopAll() }
        let bus = try services.startSessionBus()
        let server = try services.startNotificationServer(bus: bus)
        let loop = try EventLoop()
        let connection = try Bus.open(address: bus.address)
        try connection.attach(to: loop)
        let client = Notifications(bus: connection)

        let id = try client.notify(
            appName: "daysome",
            summary: "Call Grandma",
            body: "It is 18:00 &amp; she is waiting",
            actions: ["default", "Open"],
            hints: [("urgency", .byte(1)), ("category", .string("im"))],
            expireTimeout: 0
        )
        #expect(id > 0)
        #expect(try waitForDisplayed(server, "1") == "1")

        var closed: [(UInt32, Notifications.CloseReason)] = []
        var closeResult: Result<Void, BusError>?
        // dunst emits the signal before it replies: wait for both.
        let subscription = try client.onClosed { closedID, reason in
            closed.append((closedID, reason))
            if closeResult != nil { try? loop.exit(code: 0) }
        }
        client.close(id: id) { result in
            closeResult = result
            if !closed.isEmpty { try? loop.exit(code: 0) }
        }
        #expect(try runLoop(loop) == 0)
        #expect(closed.count == 1)
        #expect(closed.first?.0 == id)
        #expect(closed.first?.1 == .closedByCall)
        #expect((try? closeResult?.get()) != nil)
        #expect(try waitForDisplayed(server, "0") == "0")
        _ = subscription
    }

    @Test func asyncNotifyDeliversTheID() throws {
        let services = try TestServices()
        defer { services.stopAll() }
        let bus = try services.startSessionBus()
        let server = try services.startNotificationServer(bus: bus)
        let loop = try EventLoop()
        let connection = try Bus.open(address: bus.address)
        try connection.attach(to: loop)
        let client = Notifications(bus: connection)

        var ids: [UInt32] = []
        client.notify(appName: "daysome", summary: "first", expireTimeout: 0) { result in
            ids.append((try? result.get()) ?? 0)
        }
        client.notify(appName: "daysome", summary: "second", expireTimeout: 0) { result in
            ids.append((try? result.get()) ?? 0)
            // Replacing keeps the id. (Everything happens inside the run: when the loop exits,
            // sd-bus closes every bus attached to it.)
            client.notify(appName: "daysome", replacesID: ids[0], summary: "first, again", expireTimeout: 0) {
                ids.append((try? $0.get()) ?? 0)
                try? loop.exit(code: 0)
            }
        }
        #expect(try runLoop(loop) == 0)
        #expect(ids.count == 3 && ids.allSatisfy { $0 > 0 } && ids[0] != ids[1] && ids[2] == ids[0])
        #expect(try waitForDisplayed(server, "2") == "2")
        #expect(!connection.isOpen, "sd-bus closes an attached bus when its loop exits")
    }

    @Test func ownerChangedWhenServerStops() throws {
        let services = try TestServices()
        defer { services.stopAll() }
        let bus = try services.startSessionBus()
        let server = try services.startNotificationServer(bus: bus)
        let loop = try EventLoop()
        let connection = try Bus.open(address: bus.address)
        try connection.attach(to: loop)
        let client = Notifications(bus: connection)

        var owners: [String?] = []
        let subscription = try client.onOwnerChange { _, owner in
            owners.append(owner)
            try? loop.exit(code: 0)
        }
        let kill = try loop.addDefer { _ in server.dunst.stop() }
        #expect(try runLoop(loop) == 0)
        #expect(owners.count == 1)
        #expect(owners.first == .some(nil))
        _ = (subscription, kill)
    }

    @Test func missingServerIsServiceUnknown() throws {
        let services = try TestServices()
        defer { services.stopAll() }
        let bus = try services.startSessionBus()
        // Our bus config has no service directories, so nothing is activated. A probe never asks
        // the bus to start one: the bus says nobody owns the name.
        let prober = Notifications(bus: try Bus.open(address: bus.address))
        let probeLoop = try EventLoop()
        try prober.bus.attach(to: probeLoop)
        var probed: Result<ServerDescription, BusError>?
        prober.probeServer { result in
            probed = result
            try? probeLoop.exit(code: 0)
        }
        #expect(try runLoop(probeLoop) == 0)
        if case .failure(let error) = probed {
            #expect(error.name == BusError.nameHasNoOwner)
        } else {
            Issue.record("a probe without a server did not fail: \(String(describing: probed))")
        }

        let client = Notifications(bus: try Bus.open(address: bus.address))
        let loop = try EventLoop()
        try client.bus.attach(to: loop)
        var result: Result<UInt32, BusError>?
        client.notify(appName: "daysome", summary: "nobody listens") { reply in
            result = reply
            try? loop.exit(code: 0)
        }
        #expect(try runLoop(loop) == 0)
        if case .failure(let error) = result {
            #expect(error.name == BusError.serviceUnknown)
        } else {
            Issue.record("Notify without a server did not fail: \(String(describing: result))")
        }
    }
}

/// Ids are per server instance: a post tells which one gave its id, and a close can go to that
/// one by its unique name when another may own the well-known name since (a takeover).
@Suite struct NotificationInstanceTests {
    @Test func postTellsTheServerThatAnsweredAndACloseByItsUniqueNameReachesIt() throws {
        let services = try TestServices()
        defer { services.stopAll() }
        let bus = try services.startSessionBus()
        let server = try services.startNotificationServer(bus: bus)
        let loop = try EventLoop()
        let connection = try Bus.open(address: bus.address)
        try connection.attach(to: loop)
        let client = Notifications(bus: connection)
        let owner = try #require(try client.serverOwner())
        // Asked before the loop runs, as a daemon's start-up asks about an earlier daemon's server.
        #expect(try client.isOnBus(owner))
        #expect(try !client.isOnBus(":1.99999"))

        var answer: Result<Notifications.Answer, BusError>?
        var onBus: [Bool?] = []
        var shown = ""
        var closed: Result<Void, BusError>?
        // One run of the loop: the connection closes with it.
        client.post(appName: "daysome", summary: "Lunch", expireTimeout: 0, timeout: Bus.noTimeout) { result in
            answer = result
            client.isOnBus(owner) { running in
                onBus.append(running)
                client.isOnBus(":1.99999") { gone in
                    onBus.append(gone)
                    shown = (try? waitForDisplayed(server, "1")) ?? "?"
                    guard case .success(let posted) = result else {
                        try? loop.exit(code: 1)
                        return
                    }
                    client.close(id: posted.id, server: owner) { result in
                        closed = result
                        try? loop.exit(code: 0)
                    }
                }
            }
        }
        #expect(try runLoop(loop) == 0)
        let posted = try #require(try answer?.get())
        #expect(posted.server == owner)
        #expect(onBus == [true, false])
        #expect(shown == "1")
        #expect((try? closed?.get()) != nil)
        #expect(try waitForDisplayed(server, "0") == "0")
    }
}
