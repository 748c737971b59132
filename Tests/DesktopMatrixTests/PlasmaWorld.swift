// KDE Plasma 5.27 in the matrix: KWin (kwin_x11) manages this world's Xvfb and plasmashell, with
// the activity manager it will not load its shell without, owns org.freedesktop.Notifications
// itself. Its wallpaper lights the whole screen, so a card is a popup window of plasmashell's
// that is mapped and whose pixels are lit; over the film, pixels the film would cover.

import Glibc

/// Plasma's Do Not Disturb as an app (a presentation, a film player) sets it: `Inhibit` on its
/// notification server, held while the inhibiting connection lives.
let plasmaInhibitor = """
    import dbus, sys, time
    bus = dbus.SessionBus()
    server = bus.get_object("org.freedesktop.Notifications", "/org/freedesktop/Notifications")
    cookie = server.Inhibit("daysome-matrix", "A film", {}, dbus_interface="org.freedesktop.Notifications")
    print(cookie, flush=True)
    time.sleep(3600)

    """

extension DesktopWorld {
    /// KWin on this world's Xvfb, once it manages the screen (`wmctrl -m` answers), and the
    /// activity manager plasmashell needs.
    func startKWin() async throws {
        let kwin = try findExecutable("kwin_x11", package: "kwin-x11")
        let wmctrl = try findExecutable("wmctrl", package: "wmctrl")
        // A clean-clone CI run once saw kwin_x11 exit at once with "could not connect to display"
        // on a display its Xvfb had just reported, while the other servers of the matrix started
        // beside it (the cause is not known: no log was kept). That exit, and only that one, is
        // tried again, up to three times, every log kept for the failure.
        var failures: [String] = []
        for attempt in 1...3 {
            let log = attempt == 1 ? "kwin.log" : "kwin-\(attempt).log"
            let process = try SpawnedProcess(
                kwin, ["--replace"], environment: self.environment, stderrPath: "\(self.directory.path)/\(log)")
            self.adopt(process)
            let managing = try await poll("KWin to manage the screen", timeout: 60, interval: 0.3) { () -> Bool? in
                if process.poll() {
                    let said = self.directory.read(log)
                    guard said.contains("could not connect to display") else {
                        throw HarnessError("kwin_x11 exited: " + said)
                    }
                    return false
                }
                return try await self.run(wmctrl, ["-m"]).status == 0 ? true : nil
            }
            if managing { break }
            failures.append("try \(attempt): " + self.directory.read(log))
            guard attempt < 3 else {
                throw HarnessError(
                    "kwin_x11 could not connect to \(self.display ?? "no display") in 3 tries: "
                        + failures.joined(separator: " | ") + "; xvfb.log: " + self.directory.read("xvfb.log"))
            }
            await pause(1)
        }
        let activities = try findExecutable(
            "kactivitymanagerd", package: "kactivitymanagerd",
            in: "/usr/lib/x86_64-linux-gnu/libexec/kactivitymanagerd")
        let manager = try SpawnedProcess(
            activities, [], environment: self.environment, stderrPath: "\(self.directory.path)/kactivitymanagerd.log")
        self.adopt(manager)
        _ = try await poll("the activity manager on the bus", timeout: 30, interval: 0.2) { () -> Bool? in
            if manager.poll() {
                throw HarnessError("kactivitymanagerd exited: " + self.directory.read("kactivitymanagerd.log"))
            }
            return try await self.nameHasOwner("org.kde.ActivityManager") ? true : nil
        }
    }

    /// The popup plasmashell shows now, if its window is mapped and lit: in words.
    func plasmaCard() async throws -> String? {
        guard let card = try await self.cardWindow() else { return nil }
        let gray = try await self.grayScreen()
        var lit = 0
        var total = 0
        for y in max(0, card.y)..<min(480, card.y + card.height) {
            for x in max(0, card.x)..<min(640, card.x + card.width) {
                total += 1
                if gray[y * 640 + x] > 24 { lit += 1 }
            }
        }
        guard total > 0, lit * 2 >= total else { return nil }
        return "a \(card.width)x\(card.height) popup at \(card.x),\(card.y), \(lit) of its \(total) pixels lit"
    }

    /// Inhibits Plasma's notifications as an app does, and waits until its server says so
    /// (`Inhibited`).
    func inhibitPlasma() async throws -> String {
        let process = try SpawnedProcess(
            "/usr/bin/python3", ["-c", plasmaInhibitor], environment: self.environment,
            stdoutPath: "\(self.directory.path)/inhibitor.out", stderrPath: "\(self.directory.path)/inhibitor.log")
        self.adopt(process)
        self.inhibitor = process
        return try await poll("Plasma to say it is inhibited", timeout: 15, interval: 0.2) { () -> String? in
            if process.poll() { throw HarnessError("the inhibitor exited: " + self.directory.read("inhibitor.log")) }
            let result = try await self.gdbus([
                "call", "--session", "-d", "org.freedesktop.Notifications", "-o", "/org/freedesktop/Notifications",
                "-m", "org.freedesktop.DBus.Properties.Get", "org.freedesktop.Notifications", "Inhibited",
            ])
            return result.stdout.contains("true")
                ? "Inhibit (cookie \(self.directory.read("inhibitor.out").trimmingSpaces)), Inhibited true" : nil
        }
    }
}
