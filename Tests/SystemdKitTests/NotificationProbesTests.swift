// Probes of a notification server never start one: a private bus whose service directory can
// activate org.freedesktop.Notifications (a script that only writes a line to a marker file)
// sees no activation from NameHasOwner, GetServerInformation, GetCapabilities or a property
// read, and one from a real Notify.

import DaysomeTestSupport
import Glibc
import Testing

@testable import SystemdKit

@Suite struct NotificationProbesTests {
    @Test("Probing a notification server never D-Bus-activates one; only a real post may")
    func probesNeverAutoStartAServer() throws {
        let services = try TestServices()
        defer { services.stopAll() }
        let directory = services.directory
        let marker = "\(directory.path)/auto-started"
        _ = try directory.makeDirectory("services")
        _ = try directory.write(
            "services/org.freedesktop.Notifications.service",
            "[D-BUS Service]\nName=org.freedesktop.Notifications\nExec=/bin/sh -c 'echo started >> \(marker)'\n")
        let socket = "\(directory.path)/activating-bus"
        let config = try directory.write(
            "activating.conf", busConfiguration(socket: socket, serviceDirectory: "\(directory.path)/services"))
        let pipe = try makePipe()
        defer { close(pipe.read) }
        let busProcess = try SpawnedProcess(
            try findExecutable("dbus-daemon", package: "dbus-daemon"),
            ["--config-file=\(config)", "--nofork", "--print-address=1"],
            environment: ["PATH": childPath, "HOME": directory.path], stdout: pipe.write,
            stderrPath: "\(directory.path)/activating-bus.log")
        close(pipe.write)
        defer { busProcess.stop() }
        guard let address = readLineBlocking(pipe.read, timeout: 5_000_000), !address.isEmpty else {
            throw HarnessError("dbus-daemon printed no address: " + directory.read("activating-bus.log"))
        }
        let loop = try EventLoop()
        let bus = try Bus.open(address: address)
        try bus.attach(to: loop)
        let client = Notifications(bus: bus)

        #expect(try client.serverOwner() == nil)
        var answers = 0
        var probed: Result<ServerDescription, BusError>?
        var paused: Bool?? = .none
        client.probeServer { result in
            probed = result
            answers += 1
            if answers == 2 { try? loop.exit(code: 0) }
        }
        // A Do Not Disturb read, as the notifier makes it: never a reason to start a server.
        bus.getProperty(
            destination: Notifications.busName, path: Notifications.objectPath, interface: "org.dunstproject.cmd0",
            name: "paused", autoStart: false,
            read: { reply throws(Errno) -> Bool in try reply.readBool() },
            completion: { result in
                paused = .some(try? result.get())
                answers += 1
                if answers == 2 { try? loop.exit(code: 0) }
            })
        let start = monotonicUsec()
        let code = try runLoop(loop)
        #expect(code == 0, "the probes did not answer within 5 s")
        #expect(monotonicUsec() - start < 2_000_000, "a probe waited for a server to start")
        if case .success(let server) = probed { Issue.record("a probe found a server: \(server)") }
        #expect(paused == .some(nil))
        usleep(300_000)
        #expect(readFile(marker).isEmpty, "a probe made the bus start a server")

        // A real post may start one: the bus runs the service (which here only leaves its mark).
        // A fresh connection: the first one closed with its loop.
        // Sent without waiting: the service never claims the name, so no answer would come soon.
        let poster = Notifications(bus: try Bus.open(address: address))
        poster.notify(appName: "daysome", summary: "Lunch") { _ in }
        try poster.bus.flush()
        var started = readFile(marker)
        let deadline = monotonicUsec() + 5_000_000
        while started.isEmpty && monotonicUsec() < deadline {
            usleep(50_000)
            started = readFile(marker)
        }
        #expect(started == "started\n", "a Notify did not activate the service")
    }
}
