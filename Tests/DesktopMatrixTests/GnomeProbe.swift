// GNOME Shell 43 headless, read from inside: its Eval and Screenshot D-Bus APIs refuse callers
// that are not allow-listed, so the test installs a tiny shell extension of its own (in the
// world's XDG_DATA_HOME, enabled through a keyfile GSettings backend) that reports the message
// tray's banner, activates it as a click does, dismisses it as she would, sets the tray busy as
// GNOME's Do Not Disturb does, and takes screenshots.

import DaysomeCore
import Glibc

/// The probe extension's uuid.
let gnomeProbeUUID = "daysome-probe@daysome.test"

/// The probe extension's code (GNOME Shell 43, legacy imports).
let gnomeProbeExtension = """
    const { Gio, GLib, Shell } = imports.gi;
    const Main = imports.ui.main;

    const IFACE = `<node><interface name="org.daysome.Probe">
      <method name="Banner"><arg type="s" direction="out"/></method>
      <method name="Click"><arg type="b" direction="out"/></method>
      <method name="Clear"/>
      <method name="Dismiss"><arg type="s" direction="in"/><arg type="b" direction="out"/></method>
      <method name="SetBusy"><arg type="b" direction="in"/></method>
      <method name="Screenshot"><arg type="s" direction="in"/><arg type="b" direction="out"/></method>
    </interface></node>`;

    class Probe {
        Banner() {
            const tray = Main.messageTray;
            const n = tray._notification;
            const monitor = Main.layoutManager.primaryMonitor;
            return JSON.stringify({
                state: tray._notificationState,
                title: n ? n.title : null,
                body: n ? n.bannerBodyText : null,
                urgency: n ? n.urgency : null,
                queued: tray._notificationQueue.map(q => q.title),
                inFullscreen: monitor ? monitor.inFullscreen : null,
                busy: tray._busy,
            });
        }
        Click() {
            const n = Main.messageTray._notification;
            if (!n) return false;
            n.activate();
            return true;
        }
        Clear() {
            Main.overview.hide();
            Main.messageTray.getSources().forEach(s => s.destroy());
        }
        Dismiss(title) {
            const n = Main.messageTray._notification;
            if (!n || n.title !== title) return false;
            n.destroy(imports.ui.messageTray.NotificationDestroyedReason.DISMISSED);
            return true;
        }
        SetBusy(busy) {
            Main.messageTray._busy = busy;
            Main.messageTray._updateState();
        }
        ScreenshotAsync([path], invocation) {
            const shooter = new Shell.Screenshot();
            const stream = Gio.File.new_for_path(path).replace(null, false, Gio.FileCreateFlags.NONE, null);
            shooter.screenshot(false, stream, (o, res) => {
                let ok = false;
                try { shooter.screenshot_finish(res); stream.close(null); ok = true; } catch (e) { logError(e); }
                invocation.return_value(new GLib.Variant('(b)', [ok]));
            });
        }
    }

    class Extension {
        enable() {
            this._object = Gio.DBusExportedObject.wrapJSObject(IFACE, new Probe());
            this._object.export(Gio.DBus.session, '/org/daysome/Probe');
            this._owner = Gio.bus_own_name_on_connection(
                Gio.DBus.session, 'org.daysome.Probe', Gio.BusNameOwnerFlags.NONE, null, null);
        }
        disable() {
            Gio.bus_unown_name(this._owner);
            this._object.unexport();
        }
    }

    function init() {
        return new Extension();
    }

    """

/// A fullscreen window of another app (a film), as a GTK 3 Wayland client of the shell.
let fullscreenApp = """
    imports.gi.versions.Gtk = '3.0';
    const { Gtk } = imports.gi;
    Gtk.init(null);
    const w = new Gtk.Window({ title: 'A film, full screen' });
    w.connect('destroy', () => Gtk.main_quit());
    w.show_all();
    w.fullscreen();
    Gtk.main();

    """

/// What the probe says of the message tray.
struct GnomeBanner: CustomStringConvertible {
    /// 0 hidden, 1 showing, 2 shown, 3 hiding (messageTray.State).
    let state: Int
    let title: String?
    let body: String?
    let urgency: Int?
    let queued: [String]
    let inFullscreen: Bool
    let busy: Bool
    let text: String

    var description: String { self.text }
    /// A banner is on screen.
    var shown: Bool { self.state == 1 || self.state == 2 }
}

extension DesktopWorld {
    /// Installs the probe extension and starts GNOME Shell headless with its own system bus;
    /// waits for the probe and the notification service, then clears the session's own banners
    /// (a headless shell without GDM says "Screen Lock disabled", which would stay up forever) and
    /// leaves the overview it starts in, as a login does.
    func startGnomeShell() async throws {
        _ = try findExecutable("gjs", package: "gjs")
        try await self.startSystemBus()
        let extensionDirectory = "\(self.home)/.local/share/gnome-shell/extensions/\(gnomeProbeUUID)"
        try makeDirectories(extensionDirectory)
        try writeFile(
            "\(extensionDirectory)/metadata.json",
            #"{ "uuid": "\#(gnomeProbeUUID)", "name": "Daysome test probe", "description": "Reads back the message tray", "shell-version": ["43"] }"#
                + "\n")
        try writeFile("\(extensionDirectory)/extension.js", gnomeProbeExtension)
        try makeDirectories("\(self.home)/.config/glib-2.0/settings")
        try writeFile(
            "\(self.home)/.config/glib-2.0/settings/keyfile",
            "[org/gnome/shell]\nenabled-extensions=['\(gnomeProbeUUID)']\n")
        try await self.startServer()
        _ = try await poll("the probe extension in GNOME Shell", timeout: 60, interval: 0.3) { () -> Bool? in
            try await self.nameHasOwner("org.daysome.Probe") ? true : nil
        }
        // The shell's own first banners come a moment after start-up: clear until none is left.
        await pause(3)
        _ = try await self.probe("Clear")
        _ = try await poll("the shell's own banners to go", timeout: 20, interval: 0.5) { () -> Bool? in
            let banner = try await self.banner()
            if banner.shown || !banner.queued.isEmpty {
                _ = try await self.probe("Clear")
                return nil
            }
            return true
        }
    }

    /// Calls a probe method; the reply's text (GVariant syntax).
    func probe(_ method: String, _ arguments: [String] = []) async throws -> String {
        let result = try await self.gdbus(
            [
                "call", "--session", "-d", "org.daysome.Probe", "-o", "/org/daysome/Probe", "-m",
                "org.daysome.Probe.\(method)",
            ]
                + arguments)
        guard result.status == 0 else { throw HarnessError("probe \(method): \(result)") }
        return result.stdout
    }

    /// Another app's critical banner (a battery warning, which stays until dismissed), posted
    /// with notify-send as that app would; returns once the tray shows it.
    func showOtherAppsBanner() async throws -> GnomeBanner {
        let result = try await self.run(
            try findExecutable("notify-send", package: "libnotify-bin"),
            ["-u", "critical", "-a", "Power", "Battery", "The battery is almost empty"])
        guard result.status == 0 else { throw HarnessError("\(result)") }
        return try await poll("the other app's banner", timeout: 15, interval: 0.2) { () -> GnomeBanner? in
            let banner = try await self.banner()
            return banner.shown && banner.title == "Battery" ? banner : nil
        }
    }

    /// What GNOME Shell's message tray shows now.
    func banner() async throws -> GnomeBanner {
        var text = try await self.probe("Banner").trimmingSpaces
        // ('{…}',)
        if text.hasPrefix("('") { text.removeFirst(2) }
        if text.hasSuffix("',)") { text.removeLast(3) }
        let object = (try? JSONParser.parse(text))?.objectValue ?? JSONObject()
        return GnomeBanner(
            state: object["state"]?.doubleValue.map { Int($0) } ?? -1, title: object["title"]?.stringValue,
            body: object["body"]?.stringValue, urgency: object["urgency"]?.doubleValue.map { Int($0) },
            queued: (object["queued"]?.arrayValue ?? []).compactMap(\.stringValue),
            inFullscreen: object["inFullscreen"]?.boolValue ?? false, busy: object["busy"]?.boolValue ?? false,
            text: text)
    }

    /// Opens another app's window full screen in front of everything.
    func openFullscreenApp() async throws {
        let script = try self.directory.write("fullscreen.js", fullscreenApp)
        var environment = self.environment
        environment["WAYLAND_DISPLAY"] = "wayland-0"
        environment["GDK_BACKEND"] = "wayland"
        let app = try SpawnedProcess(
            try findExecutable("gjs", package: "gjs"), [script], environment: environment,
            stderrPath: "\(self.directory.path)/fullscreen.log")
        self.adopt(app)
        _ = try await poll("the app to be full screen", timeout: 20, interval: 0.3) { () -> Bool? in
            if app.poll() { throw HarnessError("the fullscreen app exited: " + self.directory.read("fullscreen.log")) }
            return try await self.banner().inFullscreen ? true : nil
        }
    }
}

extension String {
    /// Without leading and trailing spaces and newlines.
    var trimmingSpaces: String {
        var text = Substring(self)
        while let first = text.first, first.isWhitespace { text.removeFirst() }
        while let last = text.last, last.isWhitespace { text.removeLast() }
        return String(text)
    }
}

/// `mkdir -p`.
func makeDirectories(_ path: String) throws {
    var current = ""
    for part in path.split(separator: "/") {
        current += "/" + part
        if mkdir(current, 0o755) != 0 && errno != EEXIST {
            throw HarnessError("mkdir \(current) failed: \(errnoText(errno))")
        }
    }
}
