// GNOME Shell's and Phosh's Do Not Disturb as a real session keeps it: GSettings
// `org.gnome.desktop.notifications` `show-banners` in dconf, written by dconf-service (activated
// on the test's own bus, as a session's bus does) when her shell's switch, or `gsettings`, sets
// it. The daemon follows dconf's `Notify` signal and reads the user database the service wrote,
// with no call going out. The desktop matrix covers the same through GLib's key file; this is the
// backend a tablet has. The times waited are the wall clock's: dconf-service runs in its own
// process, which no virtual clock drives.

import DaysomeCore
import DaysomeTestSupport
import Glibc
import Testing

@Suite("GNOME's and Phosh's Do Not Disturb followed in dconf")
struct DoNotDisturbSettingsTests {
    @Test("Phosh's Do Not Disturb in dconf is followed within two seconds, and a call it hid is shown once at its off")
    func phoshsSwitchInDconfIsFollowedAndACallItHidIsShownOnceWhenItGoesOff() async throws {
        let world = try TestWorld()
        defer { world.stop() }
        let dconf = "/usr/libexec/dconf-service"
        guard access(dconf, X_OK) == 0 else { throw HarnessError("\(dconf) is missing: install dconf-service") }
        let gsettings = try findExecutable("gsettings", package: "libglib2.0-bin")
        let services = try world.directory.makeDirectory("services")
        _ = try world.directory.write(
            "services/ca.desrt.dconf.service", "[D-BUS Service]\nName=ca.desrt.dconf\nExec=\(dconf)\n")
        try await world.startSessionBus(activating: services)
        _ = try await world.startStandInServer(
            delay: 0, name: "phosh-stand-in", arguments: ["--name=Phosh Notify Daemon"])
        try replaceFile(world.household, try farAwayHousehold())
        try await world.startDaemon()

        func follows(_ state: String, since: Double) async throws -> (seconds: Double, text: String) {
            var last = "no status"
            do {
                _ = try await poll("status to say Do Not Disturb \(state)", timeout: 2, interval: 0.05) {
                    () -> Bool? in
                    let server = try await world.status().notificationServer
                    last = "\(server)"
                    return server.doNotDisturb.rawValue == state ? true : nil
                }
            } catch {
                throw HarnessError("\(error): \(last); daysomed: \(world.daemonStderr)")
            }
            let took = wallSeconds() - since
            return (took, try await world.ctl(["status"] + world.daemonPaths).stdout)
        }
        // No database yet: nothing set, the schema's default (banners shown).
        _ = try await follows("off", since: wallSeconds())

        let onAt = wallSeconds()
        let set = try await world.run(gsettings, ["set", "org.gnome.desktop.notifications", "show-banners", "false"])
        #expect(set.status == 0, "\(set)")
        let on = try await follows("on", since: onAt)
        #expect(on.text.contains("\n  Its Do Not Disturb: on\n"), "\(on.text)")
        #expect(on.text.contains("\nCan deliver: yes, but its Do Not Disturb is on and hides every card"), "\(on.text)")
        // The switch went through dconf-service into the user database, not a key file.
        #expect(access("\(world.configHome)/dconf/user", R_OK) == 0, "no dconf database was written")

        let offAt = wallSeconds()
        _ = try await world.run(gsettings, ["set", "org.gnome.desktop.notifications", "show-banners", "true"])
        let off = try await follows("off", since: offAt)
        #expect(off.text.contains("\nCan deliver: yes\n"), "\(off.text)")
        print(
            "[IntegrationTests] Phosh's show-banners in dconf: status followed on in \(Int(on.seconds * 1_000)) ms, "
                + "off in \(Int(off.seconds * 1_000)) ms")
        #expect(try await world.history().allSatisfy { $0.event != "delivered" }, "a call went out")

        // A call Phosh's switch hid (it hides every card, critical ones too), which the household
        // does not ask to be held: shown once when the switch goes off inside its window.
        let minute = nextMinute(leaving: 5)
        try replaceFile(world.household, try nextMinutesHousehold(minute))
        _ = try await poll("the new household's call to be laid", timeout: 3) { () -> Bool? in
            try await world.pending().starts.contains { $0.at == rfc3339(minute) } ? true : nil
        }
        _ = try await world.run(gsettings, ["set", "org.gnome.desktop.notifications", "show-banners", "false"])
        _ = try await follows("on", since: wallSeconds())
        let at = rfc3339(minute)
        _ = try await poll("the call to be taken, out of sight", timeout: Double(minute) - wallSeconds() + 5) {
            () -> Bool? in
            try await world.history().contains { $0.event == "delivered" && $0.at == at } ? true : nil
        }
        let switchedOff = wallSeconds()
        _ = try await world.run(gsettings, ["set", "org.gnome.desktop.notifications", "show-banners", "true"])
        let log = "\(world.directory.path)/phosh-stand-in.log"
        _ = try await poll("the hidden card closed and the call posted again", timeout: 3, interval: 0.05) {
            () -> Bool? in
            let lines = readFile(log).split(separator: "\n")
            return lines.contains("close 1") && lines.contains { $0.hasPrefix("notify 2 Soup time") } ? true : nil
        }
        print(
            "[IntegrationTests] Phosh's switch off: the hidden call shown again \(Int((wallSeconds() - switchedOff) * 1_000)) ms later"
        )
        let history = try await poll("history to say reposted", timeout: 3) { () -> [HistoryEvent]? in
            let events = try await world.history()
            return events.contains { $0.event == "reposted" && $0.at == at } ? events : nil
        }
        #expect(history.filter { $0.event == "delivered" && $0.at == at }.count == 1, "one call: \(history)")
        // Once: the switch on and off again shows it no more.
        _ = try await world.run(gsettings, ["set", "org.gnome.desktop.notifications", "show-banners", "false"])
        _ = try await follows("on", since: wallSeconds())
        _ = try await world.run(gsettings, ["set", "org.gnome.desktop.notifications", "show-banners", "true"])
        _ = try await follows("off", since: wallSeconds())
        await pause(0.5)
        #expect(readFile(log).split(separator: "\n").filter { $0.hasPrefix("notify ") }.count == 2, "\(readFile(log))")
    }
}
