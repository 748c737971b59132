// The wlroots desktop of the matrix: sway with mako or SwayNotificationCenter. sway refuses to
// run as root, so its world runs as an unprivileged user the harness creates (`daysome-matrix`),
// entered with `setpriv`; the bus (which lets that user in), the daemon and daysomectl stay the
// test's own. sway draws on wlroots' X11 backend on this world's Xvfb rather than headless: the
// headless backend of wlroots 0.15 has no input devices, so no tap could land on a card, while
// on X11 xdotool's click reaches sway as a pointer. The screen is read with grim (wlroots'
// screencopy), as a Wayland desktop is photographed.

import Glibc

/// The unprivileged user the Wayland worlds run as.
let waylandUserName = "daysome-matrix"

/// sway's configuration: a black screen of the matrix's size, no borders, no Xwayland.
let swayConfiguration = """
    output * mode 640x480
    output * bg #000000 solid_color
    default_border none
    xwayland disable

    """

/// mako's configuration as its man page (mako(5)) has the Do Not Disturb mode written by its
/// user: `makoctl mode -a do-not-disturb` then hides every card.
let makoConfiguration = """
    [mode=do-not-disturb]
    invisible=1

    """

/// The section docs/desktops.md gives a carer for a tablet on mako: Daysome's calls on the
/// overlay layer, above a fullscreen app (mako's own layer, `top`, is under one). It comes
/// before the mode, so the do-not-disturb mode still hides them.
let makoOverlayConfiguration = """
    [app-name=Daysome]
    layer=overlay

    """ + makoConfiguration

extension DesktopWorld {
    /// The Wayland user's directory (its home and runtime directory live in it).
    var waylandDirectory: String { "\(self.directory.path)/wayland" }
    var waylandHome: String { "\(self.waylandDirectory)/home" }
    var waylandRuntime: String { "\(self.waylandDirectory)/xdg" }

    /// The unprivileged user (created once, shared by the Wayland worlds), as (uid, gid).
    func waylandUser() async throws -> (uid: uid_t, gid: gid_t) {
        if let entry = getpwnam(waylandUserName) { return (entry.pointee.pw_uid, entry.pointee.pw_gid) }
        guard getuid() == 0 else {
            throw HarnessError(
                "sway refuses root and this test is not root: run it as root, or create '\(waylandUserName)'")
        }
        let useradd = try findExecutable("useradd", package: "passwd")
        let made = try await self.run(
            useradd, ["--system", "--no-create-home", "--shell", "/usr/sbin/nologin", waylandUserName])
        // Exit 9: another world made it at the same moment.
        guard made.status == 0 || made.status == 9, let entry = getpwnam(waylandUserName) else {
            throw HarnessError("could not create the user '\(waylandUserName)': \(made)")
        }
        return (entry.pointee.pw_uid, entry.pointee.pw_gid)
    }

    /// What the Wayland user's processes see: its own home and runtime directory, this world's
    /// bus and Xvfb, and sway's sockets once sway made them. GSettings keep to the user's own
    /// keyfile, as in the other worlds: through dconf, a write went to the dconf-service this
    /// world's bus starts as root, and swaync (whose Do Not Disturb is its GSettings `dnd-state`)
    /// read its switch back off at once.
    func waylandEnvironment() -> [String: String] {
        var environment = [
            "PATH": childPath, "HOME": self.waylandHome, "LANG": "C.UTF-8", "XDG_RUNTIME_DIR": self.waylandRuntime,
            "XDG_CONFIG_HOME": "\(self.waylandHome)/.config", "DBUS_SESSION_BUS_ADDRESS": self.busAddress,
            "NO_AT_BRIDGE": "1", "GDK_BACKEND": "wayland", "WLR_BACKENDS": "x11", "WLR_RENDERER": "pixman",
            "GSETTINGS_BACKEND": "keyfile",
        ]
        if let display = self.display { environment["DISPLAY"] = display }
        let entries = directoryEntries(self.waylandRuntime).map(\.name)
        if let socket = entries.first(where: { $0.hasPrefix("wayland-") && !$0.hasSuffix(".lock") }) {
            environment["WAYLAND_DISPLAY"] = socket
        }
        if let ipc = entries.first(where: { $0.hasPrefix("sway-ipc.") }) {
            environment["SWAYSOCK"] = "\(self.waylandRuntime)/\(ipc)"
        }
        return environment
    }

    /// `command` as the Wayland user: `setpriv` in front, when the test is root.
    func asWaylandUser(_ command: [String]) async throws -> [String] {
        guard getuid() == 0 else { return command }
        let user = try await self.waylandUser()
        let setpriv = try findExecutable("setpriv", package: "util-linux")
        return [setpriv, "--reuid=\(user.uid)", "--regid=\(user.gid)", "--clear-groups", "--"] + command
    }

    /// Runs a short tool as the Wayland user, in its environment.
    func runAsWaylandUser(_ executable: String, _ arguments: [String]) async throws -> ToolResult {
        let command = try await self.asWaylandUser([executable] + arguments)
        return try await self.run(command[0], Array(command.dropFirst()), environment: self.waylandEnvironment())
    }

    /// Starts a long-lived process as the Wayland user.
    func spawnAsWaylandUser(_ executable: String, _ arguments: [String], log: String) async throws -> SpawnedProcess {
        let command = try await self.asWaylandUser([executable] + arguments)
        let process = try SpawnedProcess(
            command[0], Array(command.dropFirst()), environment: self.waylandEnvironment(),
            stderrPath: "\(self.directory.path)/\(log)")
        self.adopt(process)
        return process
    }

    /// The user's home and runtime directory (0700, its own), its sway and mako configuration,
    /// and sway on this world's Xvfb, once it answers on its IPC socket.
    func startSway() async throws {
        // The user passes through this world's directory to its own, and to the bus's socket.
        chmod(self.directory.path, 0o711)
        for path in [self.waylandDirectory, self.waylandHome, self.waylandRuntime] { mkdir(path, 0o700) }
        try makeDirectories("\(self.waylandHome)/.config/sway")
        try makeDirectories("\(self.waylandHome)/.config/mako")
        try writeFile("\(self.waylandHome)/.config/sway/config", swayConfiguration)
        try writeFile(
            "\(self.waylandHome)/.config/mako/config",
            self.server.id == DesktopServer.makoOverlay.id ? makoOverlayConfiguration : makoConfiguration)
        if getuid() == 0 {
            let user = try await self.waylandUser()
            for path in [
                self.waylandDirectory, self.waylandHome, "\(self.waylandHome)/.config",
                "\(self.waylandHome)/.config/sway", "\(self.waylandHome)/.config/mako", self.waylandRuntime,
                "\(self.waylandHome)/.config/sway/config", "\(self.waylandHome)/.config/mako/config",
            ] {
                chown(path, user.uid, user.gid)
            }
        }
        let sway = try await self.spawnAsWaylandUser(
            try findExecutable("sway", package: "sway"), ["-c", "\(self.waylandHome)/.config/sway/config"],
            log: "sway.log")
        let swaymsg = try findExecutable("swaymsg", package: "sway")
        // Beside GNOME Shell and Plasma starting at once, on a new machine (the Wayland user made
        // by the first world), sway took longer than 30 s to answer for two of five worlds: the
        // same cases alone answered in seconds. Its start is not what these tests measure.
        _ = try await poll("sway to answer on its socket", timeout: 90, interval: 0.2) { () -> Bool? in
            if sway.poll() { throw HarnessError("sway exited: " + self.directory.read("sway.log")) }
            guard self.waylandEnvironment()["SWAYSOCK"] != nil else { return nil }
            let outputs = try await self.runAsWaylandUser(swaymsg, ["-t", "get_outputs"])
            return outputs.status == 0 && outputs.stdout.contains("\"width\": 640") ? true : nil
        }
    }

    /// Whether sway has a fullscreen window (its tree says `"fullscreen_mode": 1`).
    func swayHasFullscreenWindow() async throws -> Bool {
        let tree = try await self.runAsWaylandUser(try findExecutable("swaymsg", package: "sway"), ["-t", "get_tree"])
        return tree.stdout.contains("\"fullscreen_mode\": 1")
    }

    /// A grim screenshot of sway's output, as a PNG at `path` (grim runs as the user, into its
    /// own directory; the test reads it from there).
    func grim(to path: String) async throws {
        let shot = "\(self.waylandRuntime)/screen.png"
        let result = try await self.runAsWaylandUser(try findExecutable("grim", package: "grim"), [shot])
        guard result.status == 0 else { throw HarnessError("grim failed: \(result)") }
        let convert = try await self.run(
            try findExecutable("convert", package: "imagemagick"),
            [shot, "-strip", "-define", "png:exclude-chunks=date,time", path])
        guard convert.status == 0 else { throw HarnessError("\(convert)") }
    }

    /// grim's screenshot, one gray byte a pixel.
    func swayGrayScreen() async throws -> [UInt8] {
        let shot = "\(self.waylandRuntime)/screen.png"
        let result = try await self.runAsWaylandUser(try findExecutable("grim", package: "grim"), [shot])
        guard result.status == 0 else { throw HarnessError("grim failed: \(result)") }
        let file = "\(self.directory.path)/screen.gray"
        let convert = try await self.run(
            try findExecutable("convert", package: "imagemagick"),
            [shot, "-colorspace", "gray", "-depth", "8", "gray:\(file)"])
        guard convert.status == 0 else { throw HarnessError("\(convert)") }
        return readBytes(file)
    }

    /// The centre of the lit pixels on a 640-wide gray screen: where the card is.
    func litCentre() async throws -> (x: Int, y: Int)? {
        let gray = try await self.grayScreen()
        var (count, sumX, sumY) = (0, 0, 0)
        for (index, value) in gray.enumerated() where value > 24 {
            count += 1
            sumX += index % 640
            sumY += index / 640
        }
        return count == 0 ? nil : (sumX / count, sumY / count)
    }
}
