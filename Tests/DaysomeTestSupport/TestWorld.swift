// TestWorld: one test's processes and files under one 0700 run directory in .testrun/. A test
// names the services it wants (a private session bus, Xvfb and dunst, a `systemd --user` manager
// in a cgroup of its own with its socket-activated bus, a PulseAudio null sink) and the options
// of the daemons it will start; the world starts exactly those, spawns the real daysomed, and
// reads it through the real daysomectl. `stop()` stops every process it started, by pid, newest
// first, the user manager last. Nothing is shared between worlds, so worlds run side by side.
// The services live in their own files (SessionServices, UserManager, SoundServer), the daemon
// in DaemonControl.

import DaysomeCore
import Glibc

// The package's release build (scripts/build-deb) compiles this library too, where the Testing
// module is not there to import: there the cgroup check below is left out.
#if canImport(Testing)
import Testing
#endif

/// One test's world: its run directory, the services it started and the daemons it runs.
public final class TestWorld: ShowsNotifications {
    /// The services a world can start, in the order `start` starts them.
    public struct Services: OptionSet, Sendable {
        public let rawValue: Int

        public init(rawValue: Int) {
            self.rawValue = rawValue
        }

        /// A private dbus-daemon with no service directories (nothing is bus-activated).
        public static let sessionBus = Services(rawValue: 1 << 0)
        /// `systemd --user` in a cgroup of its own; its socket-activated bus becomes the session bus.
        public static let userManager = Services(rawValue: 1 << 1)
        /// Xvfb on a display it picks, and dunst owning org.freedesktop.Notifications on the bus.
        public static let notificationServer = Services(rawValue: 1 << 2)
        /// PulseAudio with a null sink kept running, whose monitor a test can record.
        public static let soundServer = Services(rawValue: 1 << 3)
    }

    public let directory: TestDirectory
    public let daysomed: String
    public let daysomectl: String
    /// What every daemon of this world is started with unless its `startDaemon` says otherwise.
    public let daemonDefaults: DaemonOptions
    public var outputCount = 0
    /// Every process this world started and has not stopped, oldest first (the manager apart).
    var processes: [SpawnedProcess] = []
    /// The user manager started last (a restart replaces it).
    public internal(set) var manager: SpawnedProcess?
    /// Managers terminated or crashed by a test, stopped again (with their children) at the end.
    var retiredManagers: [SpawnedProcess] = []
    /// Children a killed manager left behind (its bus): signalled by pid when the world stops.
    var orphans: [pid_t] = []
    /// The cgroups the managers run in, removed (once empty) when the world stops.
    var cgroups: [String] = []
    /// `unix:<socket>` of this world's PulseAudio, once it runs.
    public internal(set) var pulseServer: String?
    /// The session bus: a private dbus-daemon's, or the user manager's socket-activated one.
    public internal(set) var busAddress: String?
    /// dunst's environment (and dunstctl's), once it runs.
    public internal(set) var serverEnvironment: [String: String]?
    /// The running dunst, if any.
    var dunst: SpawnedProcess?
    /// Every daemon started, oldest first.
    public internal(set) var daemons: [Daemon] = []

    public var home: String { "\(self.directory.path)/home" }
    public var configHome: String { "\(self.directory.path)/home/.config" }
    /// $XDG_RUNTIME_DIR of every child (0700, outside /tmp): also the user manager's.
    public var userRuntime: String { "\(self.directory.path)/xdg" }

    /// What every child gets: nothing inherited from the test process, the scratch home, and
    /// this world's sound server and bus. A sound server named explicitly (and absent, until one
    /// runs) keeps a player from autospawning one that this harness did not start.
    public var environment: [String: String] {
        var environment = [
            "PATH": childPath, "HOME": self.home, "LANG": "C.UTF-8", "XDG_RUNTIME_DIR": self.userRuntime,
            "XDG_CONFIG_HOME": self.configHome, "XDG_STATE_HOME": "\(self.home)/.local/state",
            "PULSE_SERVER": self.pulseServer ?? "unix:\(self.directory.path)/no-sound-server",
            "PIPEWIRE_REMOTE": "\(self.directory.path)/no-sound-server",
        ]
        if let address = self.busAddress {
            environment["DBUS_SESSION_BUS_ADDRESS"] = address
        }
        return environment
    }

    /// A world with nothing running yet: its directories made (`bin` for programs a test gives
    /// the daemon on its PATH) and the built products found.
    public init(daemon defaults: DaemonOptions = DaemonOptions()) throws {
        self.daysomed = try builtProduct("daysomed")
        self.daysomectl = try builtProduct("daysomectl")
        self.daemonDefaults = defaults
        self.directory = try TestDirectory()
        for name in ["home", "home/.config", "xdg", "household", "out", "bin"] {
            try self.directory.makeDirectory(name)
        }
    }

    /// A world running `services` (the user manager before the notification server, which then
    /// uses its bus), whose daemons start with `defaults`. Whatever started is stopped again if
    /// a later service fails.
    public static func start(
        _ services: Services, daemon defaults: DaemonOptions = DaemonOptions()
    ) async throws -> TestWorld {
        let world = try TestWorld(daemon: defaults)
        do {
            try await world.start(services)
        } catch {
            world.stop()
            throw error
        }
        return world
    }

    /// Starts `services` in this world, in dependency order.
    public func start(_ services: Services) async throws {
        if services.contains(.soundServer) {
            try await self.startSoundServer()
        }
        if services.contains(.userManager) {
            try await self.startUserManager()
        } else if services.contains(.sessionBus) {
            try await self.startSessionBus()
        }
        if services.contains(.notificationServer) {
            try await self.startNotificationServer()
        }
    }

    deinit {
        self.stop()
    }

    /// Keeps `process` to be stopped with the world.
    public func adopt(_ process: SpawnedProcess) {
        self.processes.append(process)
    }

    /// Stops every process this world started, newest first, by pid; the user managers last (each
    /// stops what it started itself: its bus, the daysome- units, a daemon run as a unit), then
    /// what a killed manager left behind, and removes the managers' cgroups: one left behind is
    /// the failure of the test that stops the world (a later world's manager would share it).
    public func stop() {
        for process in self.processes.reversed() {
            process.stop()
        }
        self.processes.removeAll()
        if let manager = self.manager {
            stopManager(manager)
        }
        self.manager = nil
        for manager in self.retiredManagers {
            stopManager(manager)
        }
        self.retiredManagers.removeAll()
        for orphan in self.orphans {
            kill(orphan, SIGTERM)
        }
        self.orphans.removeAll()
        for cgroup in self.cgroups {
            removeCgroup(cgroup)
        }
        let left = self.cgroups.filter { access($0, F_OK) == 0 }
        #if canImport(Testing)
        if !left.isEmpty {
            let inside = left.map { cgroup in
                let pids = readFile("\(cgroup)/cgroup.procs").split(separator: "\n")
                return "\(cgroup) holding [\(pids.joined(separator: ", "))]"
            }
            Issue.record("the world stopped and left its cgroups behind: \(inside.joined(separator: "; "))")
        }
        #endif
        self.cgroups.removeAll()
    }

    // MARK: A power cut

    /// A power cut: every process of this world (the daemons, dunst, Xvfb, a private bus, the user
    /// manager and everything it started) killed with SIGKILL at once, each by its pid, and
    /// reaped; a private bus's socket goes with the runtime it would live in. The test wipes the
    /// runtime directories; the state directories survive.
    public func cutPower() async {
        let hadManager = self.manager != nil
        var started: [pid_t] = []
        var parents = self.manager.map { [$0.pid] } ?? []
        while let parent = parents.popLast() {
            let children = childPids(of: parent)
            started += children
            parents += children
        }
        for process in self.processes.reversed() {
            process.send(SIGKILL)
        }
        self.manager?.send(SIGKILL)
        for pid in started {
            kill(pid, SIGKILL)
        }
        for process in self.processes {
            _ = await process.exit(within: 5)
        }
        if let manager = self.manager {
            _ = await manager.exit(within: 5)
            self.retiredManagers.append(manager)
        }
        self.manager = nil
        self.processes.removeAll()
        self.dunst = nil
        self.serverEnvironment = nil
        if !hadManager {
            // A private bus's address dies with it; a manager's socket path is reused by the next.
            self.busAddress = nil
        }
        unlink("\(self.directory.path)/bus")
    }

    /// After `cutPower`: `services` again (the daemon is the test's to start).
    public func restoreServices(_ services: Services) async throws {
        try await self.start(services)
    }
}
