// What a server shows, read back from the server's own screen rather than from the daemon's
// log: on Xvfb the root window's pixels (the empty screen is black; a card lights thousands of
// pixels), on GNOME Shell its message tray through the probe extension. Clicks land where she
// would tap: on the card's window (xdotool), through `dunstctl action`, or the banner's own
// activation inside the shell.

import DaysomeCore
import Glibc

/// A card lights at least this many pixels of the 640x480 screen (the smallest seen here,
/// xfce4-notifyd's, lit about 17,000).
let litPixelsOfACard = 3_000

extension DesktopWorld {
    /// What the server shows now, in words, or nil when no card of ours is up. On GNOME Shell
    /// the banner must carry `title`; on X the screen must be lit by a card.
    func shownCard(title: String) async throws -> String? {
        switch self.server.screen {
        case .gnomeShell:
            let banner = try await self.banner()
            return banner.shown && banner.title == title ? "banner \(banner)" : nil
        case .plasma:
            return try await self.plasmaCard()
        case .x11, .dunst, .sway:
            let lit = try await self.litPixels()
            return lit >= litPixelsOfACard ? "\(lit) lit pixels" : nil
        case .phosh:
            // Its banner lights about 30,000 more; the bar's clock changing a digit, a few hundred.
            let lit = try await self.litPixels() - self.baseline
            return lit >= 4 * litPixelsOfACard ? "\(lit) pixels lit beyond its shell's own" : nil
        }
    }

    /// Pixels brighter than the empty screen, in a grayscale screenshot of the root window.
    func litPixels() async throws -> Int {
        try await self.grayScreen().reduce(0) { $0 + ($1 > 24 ? 1 : 0) }
    }

    /// The geometry of the server's card window (mapped, smaller than the screen).
    func cardWindow() async throws -> (x: Int, y: Int, width: Int, height: Int)? {
        guard let pid = self.serverProcess?.pid else { return nil }
        let xdotool = try findExecutable("xdotool", package: "xdotool")
        let search = try await self.run(xdotool, ["search", "--onlyvisible", "--pid", String(pid), ""])
        for window in search.stdout.split(separator: "\n") {
            let geometry = try await self.run(xdotool, ["getwindowgeometry", "--shell", String(window)])
            var values: [String: Int] = [:]
            for line in geometry.stdout.split(separator: "\n") {
                let parts = line.split(separator: "=", maxSplits: 1)
                if parts.count == 2, let value = Int(parts[1]) { values[String(parts[0])] = value }
            }
            if let x = values["X"], let y = values["Y"], let width = values["WIDTH"], let height = values["HEIGHT"],
                width > 40, width < 640, height > 20
            {
                return (x, y, width, height)
            }
        }
        return nil
    }

    /// Clicks the card as she would: the body, or (xfce4-notifyd) its button. Returns the wall
    /// time just before the click itself left (after the card was found on screen).
    @discardableResult
    func click() async throws -> Double {
        let tapped: Double
        switch self.server.screen {
        case .gnomeShell:
            tapped = wallSeconds()
            let clicked = try await self.probe("Click")
            guard clicked.contains("true") else { throw HarnessError("no banner to click: \(clicked)") }
        case .dunst:
            tapped = wallSeconds()
            let result = try await self.dunstctl(["action", "0"])
            guard result.status == 0 else { throw HarnessError("\(result)") }
        case .phosh:
            // The banner at the top of its (portrait, cropped) output.
            tapped = wallSeconds()
            let result = try await self.run(
                try findExecutable("xdotool", package: "xdotool"), ["mousemove", "180", "90", "click", "1"])
            guard result.status == 0 else { throw HarnessError("\(result)") }
        case .sway:
            // A tap on the card, through sway's pointer on Xvfb.
            guard let card = try await self.litCentre() else { throw HarnessError("no card on sway's screen to click") }
            tapped = wallSeconds()
            let result = try await self.run(
                try findExecutable("xdotool", package: "xdotool"),
                ["mousemove", String(card.x), String(card.y), "click", "1"])
            guard result.status == 0 else { throw HarnessError("\(result)") }
        case .x11, .plasma:
            var fromBottom: Int?
            if case .x11(let offset) = self.server.screen { fromBottom = offset }
            guard let card = try await self.cardWindow() else { throw HarnessError("no card window to click") }
            let x = card.x + card.width / 2
            let y = card.y + (fromBottom.map { card.height - $0 } ?? card.height / 2)
            tapped = wallSeconds()
            let result = try await self.run(
                try findExecutable("xdotool", package: "xdotool"), ["mousemove", String(x), String(y), "click", "1"])
            guard result.status == 0 else { throw HarnessError("\(result)") }
        }
        return tapped
    }

    /// A PNG of the whole screen at `path`, without timestamps (so an unchanged picture is an
    /// unchanged file), taken once the screen holds still.
    func screenshot(to path: String) async throws {
        switch self.server.screen {
        case .gnomeShell:
            let raw = "\(self.directory.path)/gnome-screenshot.png"
            let taken = try await self.probe("Screenshot", [raw])
            guard taken.contains("true") else { throw HarnessError("GNOME's screenshot failed: \(taken)") }
            let result = try await self.run(
                try findExecutable("convert", package: "imagemagick"),
                [raw, "-resize", "50%", "-strip", "-define", "png:exclude-chunks=date,time", path])
            guard result.status == 0 else { throw HarnessError("\(result)") }
        case .sway:
            var previous = try await self.grayScreen()
            _ = try await poll("the screen to hold still", timeout: 5, interval: 0.2) { () -> Bool? in
                let now = try await self.grayScreen()
                defer { previous = now }
                return now == previous ? true : nil
            }
            try await self.grim(to: path)
        case .x11, .dunst, .phosh, .plasma:
            // A banner that slides in (Phosh's) is photographed once the screen holds still.
            var previous = try await self.grayScreen()
            _ = try await poll("the screen to hold still", timeout: 5, interval: 0.2) { () -> Bool? in
                let now = try await self.grayScreen()
                defer { previous = now }
                return now == previous ? true : nil
            }
            let result = try await self.run(
                try findExecutable("import", package: "imagemagick"),
                ["-window", "root", "-strip", "-define", "png:exclude-chunks=date,time", path])
            guard result.status == 0 else { throw HarnessError("\(result)") }
        }
    }
}

extension DesktopWorld: ShowsNotifications {
    var serverEnvironment: [String: String]? { self.environment }
    var serverDiagnosis: String { "server log: " + String(self.directory.read("server-2.log").suffix(1_000)) }
}

/// A file's bytes (empty when it cannot be read).
func readBytes(_ path: String) -> [UInt8] {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return [] }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count <= 0 { break }
        bytes += buffer[0..<count]
    }
    return bytes
}
