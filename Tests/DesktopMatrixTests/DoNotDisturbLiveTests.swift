// Do Not Disturb followed live: each server's own switch turned on and off by its user while no
// call goes out, and `daysomectl status` (JSON and text) following within two seconds, from the
// server's own change signal. Where a server sends none (mako 1.7), status says `unknown` both
// times and never a value read earlier. The times waited are the wall clock's: the signal comes
// from a real server in its own process, which no virtual clock drives.

import DaysomeCore
import Glibc
import Testing

extension DesktopWorld {
    /// Starts this world's bus, display and server as the matrix's scenario does.
    func startServerWorld() async throws {
        try await self.startBus()
        switch self.server.screen {
        case .gnomeShell:
            try await self.startGnomeShell()
        case .phosh:
            try await self.startSystemBus()
            try await self.startDisplay()
            try await self.startPhosh()
        case .plasma:
            try await self.startDisplay()
            try await self.startKWin()
            try await self.makeActivatable()
            try await self.startServer()
        case .sway:
            try await self.startDisplay()
            try await self.startSway()
            try await self.makeActivatable()
            try await self.startServer()
        case .x11, .dunst:
            try await self.startDisplay()
            try await self.startWindowManager()
            if case .xfconf = self.server.doNotDisturb { try await self.startXfconf() }
            try await self.makeActivatable()
            try await self.startServer()
        }
    }

    /// Switches the server's Do Not Disturb off again as its user would; returns how.
    func switchDoNotDisturbOff() async throws -> String {
        func succeed(_ result: ToolResult) throws {
            guard result.status == 0 else { throw HarnessError("Do Not Disturb not switched off: \(result)") }
        }
        switch self.server.doNotDisturb {
        case .dunstctl:
            try succeed(try await self.dunstctl(["set-paused", "false"]))
            return "dunstctl set-paused false"
        case .xfconf:
            try succeed(
                try await self.run(
                    try findExecutable("xfconf-query", package: "xfconf"),
                    ["-c", "xfce4-notifyd", "-p", "/do-not-disturb", "-n", "-t", "bool", "-s", "false"]))
            return "xfconf-query -c xfce4-notifyd -p /do-not-disturb -s false"
        case .gsettings(let schema, let key, let value):
            let back = value == "false" ? "true" : "false"
            try succeed(
                try await self.run(
                    try findExecutable("gsettings", package: "libglib2.0-bin"), ["set", schema, key, back]))
            return "gsettings set \(schema) \(key) \(back)"
        case .makoMode:
            try succeed(
                try await self.runAsWaylandUser(
                    try findExecutable("makoctl", package: "mako-notifier"), ["mode", "-r", "do-not-disturb"]))
            return "makoctl mode -r do-not-disturb"
        case .swaync:
            try succeed(
                try await self.runAsWaylandUser(
                    try findExecutable("swaync-client", package: "sway-notification-center"), ["--dnd-off"]))
            return "swaync-client --dnd-off"
        case .plasmaInhibit:
            // The inhibition lives as long as the app's connection.
            self.inhibitor?.stop()
            self.inhibitor = nil
            return "the inhibiting app quit"
        case .lxqtSettings, .gnomeBusy, .none:
            throw HarnessError("\(self.server.id): no switch the daemon can follow")
        }
    }

    /// Waits until `status --json` says the server's Do Not Disturb is `state`; returns the
    /// seconds it took from `since`, and the text status then.
    func statusFollows(_ state: String, since: Double, timeout: Double) async throws -> (Double, String) {
        var last = "no status"
        do {
            _ = try await poll("status to say Do Not Disturb \(state)", timeout: timeout, interval: 0.05) {
                () -> Bool? in
                let server = try await self.status().notificationServer
                last = "\(server)"
                return server.doNotDisturb.rawValue == state ? true : nil
            }
        } catch {
            throw HarnessError("\(error): \(last)")
        }
        let took = wallSeconds() - since
        let text = try await self.ctl(["status"] + self.daemonPaths)
        return (took, text.stdout)
    }
}

/// The servers whose switch the daemon follows live, and mako 1.7, which sends no change signal.
let followedServers: [DesktopServer] = DesktopServer.selected.compactMap { server in
    if server.id == "gnome-shell" { return .gnomeShellBanners }
    return ["dunst", "xfce4-notifyd", "phosh", "plasma", "mako", "swaync"].contains(server.id) ? server : nil
}

@Suite("Do Not Disturb switched on and off with no call: status follows each server's own signal")
struct DoNotDisturbLiveTests {
    @Test(
        "Do Not Disturb switched on and off with no call: status says on, then off, within two seconds, in JSON and text; where the server sends no word (mako 1.7) it says unknown both times",
        .timeLimit(.minutes(5)), arguments: followedServers)
    func statusFollowsDoNotDisturbWithNoCall(server: DesktopServer) async throws {
        let world = try DesktopWorld(server)
        defer { world.stop() }
        try await world.startServerWorld()
        // Calls an hour away: nothing goes out while the switch moves.
        try await world.startDaemon(household: matrixHousehold(nextMinute(leaving: 30) + 3_600))
        let followed = server.expected.reportedDoNotDisturb != "unknown"
        let before = try await world.statusFollows(followed ? "off" : "unknown", since: wallSeconds(), timeout: 10)
        finding(server, "before: \(before.1.split(separator: "\n").filter { $0.contains("Do Not Disturb") })")

        let onAt = wallSeconds()
        let on = try await world.switchDoNotDisturbOn()
        let afterOn: (Double, String)
        if followed {
            afterOn = try await world.statusFollows("on", since: onAt, timeout: 2)
            #expect(afterOn.1.contains("\n  Its Do Not Disturb: on\n"), "\(afterOn.1)")
            #expect(afterOn.1.contains("\nCan deliver: yes, "), "no word of the switch: \(afterOn.1)")
        } else {
            // Nothing tells the daemon: two seconds later it still says it does not know.
            await pause(2)
            afterOn = try await world.statusFollows("unknown", since: onAt, timeout: 1)
            #expect(afterOn.1.contains("\n  Its Do Not Disturb: unknown ("), "\(afterOn.1)")
            #expect(afterOn.1.contains("\nCan deliver: yes, unless its Do Not Disturb hides the card"), "\(afterOn.1)")
        }
        finding(server, "switched on (\(on)): status followed in \(seconds(afterOn.0))")

        let offAt = wallSeconds()
        let off = try await world.switchDoNotDisturbOff()
        let afterOff = try await world.statusFollows(followed ? "off" : "unknown", since: offAt, timeout: 2)
        if followed {
            #expect(afterOff.1.contains("\n  Its Do Not Disturb: off\n"), "\(afterOff.1)")
            #expect(afterOff.1.contains("\nCan deliver: yes\n"), "\(afterOff.1)")
        }
        finding(server, "switched off (\(off)): status followed in \(seconds(afterOff.0))")
        #expect(try await world.history().allSatisfy { $0.event != "delivered" }, "a call went out")
        #expect(!world.daemonLog.contains("<3>"), "daysomed logged errors: \(world.daemonLog)")
    }
}
