// Brings the day display back after a call (settings.bringDayBack) or when she clicks it: by
// (re)starting a configured systemd user unit over sd-bus, or by running a configured program
// without a shell; and by asking the session to wake the screen where a server offers
// org.freedesktop.ScreenSaver. What runs comes only from the daemon's options.

import DaysomeFiles
import Glibc
import SystemdKit

/// Brings the display back by the configured means.
final class DisplayReturner: DisplayBringer {
    private let unit: String?
    /// The loop a manager connection and the player's pidfd go on.
    private let loop: EventLoop
    /// The daemon's session bus, when it has one: asked to wake the screen.
    private let sessionBus: () -> Bus?
    private let command: String?
    private let logger: Logger
    private let environment: [String: String]
    private var slots: [BusSlot] = []
    private var manager: SystemdManager?
    private var session: Bus?
    private var children: ChildProcesses?

    init(
        options: DaemonOptions, environment: [String: String], logger: Logger, loop: EventLoop,
        sessionBus: @escaping () -> Bus?
    ) {
        self.loop = loop
        self.sessionBus = sessionBus
        self.unit = options.displayUnit
        self.command = options.displayCommand
        self.environment = environment
        self.logger = logger
    }

    /// How the display is brought back, for status; nil when no means is configured.
    var means: String? {
        if let unit { return "unit \(unit)" }
        if let command { return "command \(command)" }
        return nil
    }

    /// Brings the display back now.
    func bringBack(reason: String) {
        let loop = self.loop
        let sessionBus = self.sessionBus()
        guard let means = self.means else {
            self.logger.log(
                .notice, "Would bring the day back (\(reason)), but neither --display-unit nor --display-command is set"
            )
            return
        }
        self.logger.log(.info, "Bringing the day back (\(reason)) by \(means)")
        if let unit = self.unit {
            do {
                if self.manager == nil {
                    let manager = try SystemdManager.connectUser(runtimeDirectory: self.environment["XDG_RUNTIME_DIR"])
                    try manager.bus.attach(to: loop)
                    self.manager = manager
                }
                if let manager = self.manager {
                    self.slots.append(
                        try manager.restartUnit(unit) { [weak self] result in
                            if case .failure(let error) = result {
                                self?.logger.log(.error, "Failed to restart \(unit): \(error)")
                                self?.manager = nil
                            }
                        })
                }
            } catch {
                self.manager = nil
                self.logger.log(.error, "Failed to restart \(unit): \(error)")
            }
        } else if let command = self.command {
            // Reaped when it exits, whether it is a short script or the display itself: no
            // zombie stays behind for every call.
            let children = self.children ?? ChildProcesses(loop: loop, logger: self.logger)
            self.children = children
            children.spawn([command], what: "display-command", failure: .error) { [weak self] status in
                if status != 0 {
                    self?.logger.log(.warning, "'\(command)' ended with \(waitStatusText(status))")
                }
            }
        }
        self.wakeScreen(sessionBus: sessionBus, loop: loop)
        if self.slots.count > 64 { self.slots.removeFirst(32) }
    }

    /// `org.freedesktop.ScreenSaver.SimulateUserActivity`, where a server offers it: a day brought
    /// back behind a dark screen is brought back to nobody.
    private func wakeScreen(sessionBus: Bus?, loop: EventLoop) {
        if self.session == nil {
            self.session = sessionBus ?? (try? Bus.openUser())
            if sessionBus == nil { try? self.session?.attach(to: loop) }
        }
        guard let bus = self.session,
            let message = try? bus.newMethodCall(
                destination: "org.freedesktop.ScreenSaver", path: "/org/freedesktop/ScreenSaver",
                interface: "org.freedesktop.ScreenSaver", member: "SimulateUserActivity")
        else { return }
        guard let slot = try? bus.callAsync(message, timeout: 1_000_000, { _ in }) else {
            // A connection of our own that broke (the bus restarted) is opened afresh next time.
            if sessionBus == nil { self.session = nil }
            return
        }
        self.slots.append(slot)
    }
}
