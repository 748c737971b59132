// What she does with the screen that a call must get through: another app full screen in front
// (a film), and a Do Not Disturb someone switched on and forgot, each set the way the server's own
// user sets it. On X11 a small window manager (openbox) manages the app, as every desktop does,
// so that it really is full screen (`_NET_WM_STATE_FULLSCREEN`, the whole screen, focused); on
// Phosh the app is a Wayland client of phoc. The app is a dark grey the screen reader counts as
// unlit, so a card is seen only where it is drawn above the app.

import Glibc

/// The fullscreen app: GTK 3 from python3-gi, a dark grey window (12 of 255) titled "A film".
let darkFullscreenApp = """
    import gi
    gi.require_version("Gtk", "3.0")
    from gi.repository import Gtk, Gdk
    css = Gtk.CssProvider()
    css.load_from_data(b"window { background-color: #0c0c0c; }")
    Gtk.StyleContext.add_provider_for_screen(Gdk.Screen.get_default(), css, 800)
    window = Gtk.Window(title="A film")
    window.connect("destroy", Gtk.main_quit)
    window.show_all()
    window.fullscreen()
    Gtk.main()

    """

/// The grey levels of the app's pixels in a grayscale screenshot (12, give or take the scaling).
let fullscreenAppGray: ClosedRange<UInt8> = 8...16

extension DesktopWorld {
    /// openbox on this world's display, once it manages the screen (`wmctrl -m` answers).
    func startWindowManager() async throws {
        let openbox = try findExecutable("openbox", package: "openbox")
        let wmctrl = try findExecutable("wmctrl", package: "wmctrl")
        let process = try SpawnedProcess(
            openbox, ["--sm-disable"], environment: self.environment,
            stderrPath: "\(self.directory.path)/openbox.log")
        self.adopt(process)
        _ = try await poll("openbox to manage the screen", timeout: 20, interval: 0.2) { () -> Bool? in
            if process.poll() { throw HarnessError("openbox exited: " + self.directory.read("openbox.log")) }
            return try await self.run(wmctrl, ["-m"]).status == 0 ? true : nil
        }
    }

    /// Opens the dark app full screen in front of everything, and waits until it covers the
    /// screen (X11: nine tenths of the pixels are its grey; Phosh: its output's top bar is gone
    /// under it). Returns what was seen.
    func openDarkFullscreenApp() async throws -> String {
        var environment = self.environment
        if case .phosh = self.server.screen {
            // A client of phoc, not of Xvfb.
            environment["WAYLAND_DISPLAY"] = "wayland-0"
            environment["GDK_BACKEND"] = "wayland"
            environment.removeValue(forKey: "DISPLAY")
        } else {
            environment["GDK_BACKEND"] = "x11"
        }
        let app: SpawnedProcess
        if case .sway = self.server.screen {
            // A Wayland client of sway, as its user.
            app = try await self.spawnAsWaylandUser(
                "/usr/bin/python3", ["-c", darkFullscreenApp], log: "fullscreen-app.log")
        } else {
            app = try SpawnedProcess(
                "/usr/bin/python3", ["-c", darkFullscreenApp], environment: environment,
                stderrPath: "\(self.directory.path)/fullscreen-app.log")
            self.adopt(app)
        }
        self.film = app
        if case .phosh = self.server.screen {
            let before = self.baseline
            let seen = try await poll("the app full screen on phoc", timeout: 30, interval: 0.3) { () -> Int? in
                if app.poll() { throw HarnessError("the app exited: " + self.directory.read("fullscreen-app.log")) }
                let gray = try await self.grayScreen()
                let covered = gray.reduce(0) { $0 + (fullscreenAppGray.contains($1) ? 1 : 0) }
                return covered > 50_000 ? covered : nil
            }
            await pause(1)
            self.baseline = try await self.litPixels()
            return "\(seen) pixels of the app's grey; the shell lights \(self.baseline) (\(before) without it)"
        }
        let covered = try await poll("the app to cover the screen", timeout: 30, interval: 0.3) { () -> Int? in
            if app.poll() { throw HarnessError("the app exited: " + self.directory.read("fullscreen-app.log")) }
            let gray = try await self.grayScreen()
            let covered = gray.reduce(0) { $0 + (fullscreenAppGray.contains($1) ? 1 : 0) }
            return covered * 10 >= gray.count * 9 ? covered : nil
        }
        if case .sway = self.server.screen {
            guard try await self.swayHasFullscreenWindow() else {
                throw HarnessError("the app is not full screen in sway's tree")
            }
            return "\(covered) of 307200 pixels are the app's grey (grim), fullscreen in sway's tree"
        }
        let state = try await self.run(
            try findExecutable("xprop", package: "x11-utils"),
            ["-name", "A film", "_NET_WM_STATE"])
        guard state.stdout.contains("_NET_WM_STATE_FULLSCREEN") else {
            throw HarnessError("the app is not full screen: \(state)")
        }
        return "\(covered) of 307200 pixels are the app's grey, _NET_WM_STATE_FULLSCREEN"
    }

    /// Closes the fullscreen app (she leaves the film), and lets the screen settle.
    func closeFullscreenApp() async throws {
        guard let app = self.film else { return }
        app.stop()
        self.film = nil
        await pause(1)
        if case .phosh = self.server.screen { self.baseline = try await self.litPixels() }
    }

    /// Whether the card now on screen is drawn above the fullscreen app: some of the app's grey
    /// is still on screen around it (the app is still in front of everything else).
    func appStillInFront() async throws -> Bool {
        let gray = try await self.grayScreen()
        let covered = gray.reduce(0) { $0 + (fullscreenAppGray.contains($1) ? 1 : 0) }
        if case .phosh = self.server.screen { return covered > 20_000 }
        return covered * 10 >= gray.count * 6
    }

    /// A grayscale screenshot of the root window, one byte a pixel.
    func grayScreen() async throws -> [UInt8] {
        if case .sway = self.server.screen { return try await self.swayGrayScreen() }
        let file = "\(self.directory.path)/screen.gray"
        let result = try await self.run(
            try findExecutable("import", package: "imagemagick"),
            ["-window", "root", "-colorspace", "gray", "-depth", "8", "gray:\(file)"])
        guard result.status == 0 else { throw HarnessError("screenshot failed: \(result)") }
        return readBytes(file)
    }

    /// xfconfd on this world's bus (xfce4-notifyd keeps its settings there, its Do Not Disturb
    /// among them), started before the server as an Xfce session has it.
    func startXfconf() async throws {
        let xfconfd = try findExecutable(
            "xfconfd", package: "xfconf", in: "/usr/lib/x86_64-linux-gnu/xfce4/xfconf/xfconfd")
        let process = try SpawnedProcess(
            xfconfd, [], environment: self.environment, stderrPath: "\(self.directory.path)/xfconfd.log")
        self.adopt(process)
        _ = try await poll("xfconfd to own org.xfce.Xfconf", timeout: 20, interval: 0.2) { () -> Bool? in
            if process.poll() { throw HarnessError("xfconfd exited: " + self.directory.read("xfconfd.log")) }
            return try await self.nameHasOwner("org.xfce.Xfconf") ? true : nil
        }
    }

    /// Switches the server's Do Not Disturb on as its user would; returns how, in words.
    func switchDoNotDisturbOn() async throws -> String {
        func succeed(_ result: ToolResult) throws {
            guard result.status == 0 else { throw HarnessError("Do Not Disturb not set: \(result)") }
        }
        switch self.server.doNotDisturb {
        case .dunstctl:
            try succeed(try await self.dunstctl(["set-paused", "true"]))
            return "dunstctl set-paused true"
        case .xfconf:
            try succeed(
                try await self.run(
                    try findExecutable("xfconf-query", package: "xfconf"),
                    ["-c", "xfce4-notifyd", "-p", "/do-not-disturb", "-n", "-t", "bool", "-s", "true"]))
            return "xfconf-query -c xfce4-notifyd -p /do-not-disturb -s true"
        case .gsettings(let schema, let key, let value):
            try succeed(
                try await self.run(
                    try findExecutable("gsettings", package: "libglib2.0-bin"), ["set", schema, key, value]))
            return "gsettings set \(schema) \(key) \(value)"
        case .lxqtSettings:
            try makeDirectories("\(self.home)/.config/lxqt")
            try writeFile("\(self.home)/.config/lxqt/notifications.conf", "[General]\ndoNotDisturb=true\n")
            return "doNotDisturb=true in ~/.config/lxqt/notifications.conf (its settings dialog's switch)"
        case .gnomeBusy:
            _ = try await self.probe("SetBusy", ["true"])
            return "the message tray's busy hold, as GNOME's Do Not Disturb sets it"
        case .plasmaInhibit:
            return try await self.inhibitPlasma()
        case .makoMode:
            try succeed(
                try await self.runAsWaylandUser(
                    try findExecutable("makoctl", package: "mako-notifier"), ["mode", "-a", "do-not-disturb"]))
            return "makoctl mode -a do-not-disturb (its configuration's invisible mode)"
        case .swaync:
            let result = try await self.runAsWaylandUser(
                try findExecutable("swaync-client", package: "sway-notification-center"), ["--dnd-on"])
            try succeed(result)
            guard result.stdout.trimmingSpaces == "true" else {
                throw HarnessError("swaync's Do Not Disturb is not on: \(result)")
            }
            return "swaync-client --dnd-on (answered true)"
        case .none:
            return "nothing: this server has no Do Not Disturb"
        }
    }

    /// Another app's normal card, posted with notify-send while the server's Do Not Disturb is
    /// on: held (not on screen for 3 s) where the switch took, so the call that passes after it
    /// passes because of its urgency, not because the switch never held.
    func otherAppsNormalCardIsHeld() async throws -> String {
        let posted = try await self.run(
            try findExecutable("notify-send", package: "libnotify-bin"),
            ["-u", "normal", "-a", "Messages", "A message", "From another app"])
        guard posted.status == 0 else { throw HarnessError("notify-send failed: \(posted)") }
        let until = wallSeconds() + 3
        while wallSeconds() < until {
            if let seen = try await self.shownCard(title: "A message") {
                throw HarnessError("another app's normal card was shown through Do Not Disturb: \(seen)")
            }
            await pause(0.3)
        }
        return "another app's normal card held (not on screen in the 3 s after notify-send)"
    }
}
