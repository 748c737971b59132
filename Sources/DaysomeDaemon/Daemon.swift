// daysomed's entry point and composition root: parse the options, build production's peers (the
// sd-event loop, the journal, the real session peers over sd-bus), run the Manager on them, map
// failures to exit codes. Nothing test-only is linked here: the embedded world's loop and fakes
// live in DaysomeWorld.

import DaysomeCore
import DaysomeFiles
import Glibc
import SystemdKit

/// The daemon program.
public enum Daemon {
    /// Runs daysomed with argv (without the program name); returns the exit status.
    public static func main(_ argv: [String]) -> Int32 {
        let environment = processEnvironment()
        var options: DaemonOptions
        do {
            switch try DaemonOptions.parse(argv, environment: environment) {
            case .help:
                print(DaemonOptions.help)
                return 0
            case .helpData:
                print(DaemonOptions.helpData(version: daysomeVersion).json.serialized(pretty: true))
                return 0
            case .version:
                print("daysomed \(daysomeVersion)")
                return 0
            case .run(let parsed): options = parsed
            }
        } catch {
            writeText("daysomed: \(error). See 'daysomed --help'.\n", to: 2)
            return 2
        }
        // The runtime directory and display state default to $XDG_RUNTIME_DIR's: without it (or
        // with it missing) there is no right place to guess, and none to create.
        let defaults = Paths(environment: environment)
        if options.paths.runtimeDirectory == defaults.runtimeDirectory
            || options.paths.displayState == defaults.displayState,
            let problem = RuntimeEnvironmentProblem.check(environment)
        {
            writeText("daysomed: \(problem)\n", to: 2)
            return problem.isBadInput ? 2 : 1
        }
        // What the daemon publishes names its files absolutely: a daysomectl run from another
        // directory must find the same ones.
        if let cwd = currentDirectory() { options = options.absolute(in: cwd) }
        do {
            let loop: EventLoop
            do {
                loop = try EventLoop()
            } catch {
                throw DaemonError.setup("Failed to create the event loop: \(error)")
            }
            let manager = try Manager(
                options: options, environment: environment,
                peers: Self.peers(on: loop, options: options, environment: environment))
            return try Self.run(manager, on: loop)
        } catch {
            writeText("daysomed: \(error)\n", to: 2)
            return 1
        }
    }

    /// Production's peers: the sd-event loop and its clock, the journal, and the session's real
    /// peers over sd-bus.
    static func peers(on loop: EventLoop, options: DaemonOptions, environment: [String: String]) -> ManagerPeers {
        let logger = Logger()
        let buses = PeersOnTheBus(loop: loop, environment: environment)
        return ManagerPeers(
            loop: loop, clock: LoopClock(loop), logger: logger,
            notifications: { () throws(Errno) in try buses.notifications() },
            timers: { manager throws(Errno) in try buses.timers { [weak manager] in manager?.managerLost() } },
            leftoverTimers: { try? buses.userManager() },
            bell: { ChimePlayer(options: options, environment: environment, loop: loop, logger: logger) },
            returner: {
                DisplayReturner(
                    options: options, environment: environment, logger: logger, loop: loop,
                    sessionBus: { [weak buses] in buses?.sessionBus })
            },
            lockBuses: LockBusesOnTheBus(loop: loop), disk: DiskFaults(), controlSocket: true,
            serviceManager: { _ = ServiceManager.notify($0) })
    }

    /// Runs `manager` on `loop` until SIGTERM or SIGINT; returns the exit status.
    static func run(_ manager: Manager, on loop: EventLoop) throws(DaemonError) -> Int32 {
        // A client that hangs up before reading its answer must not end the daemon (EPIPE instead).
        signal(SIGPIPE, SIG_IGN)
        do {
            try loop.enableSignalExit()
            _ = try loop.setWatchdog(true)
        } catch {
            throw .setup("\(error)")
        }
        try manager.start()
        let code: Int32
        do {
            code = try loop.run()
        } catch {
            throw .runtime("The event loop failed: \(error)")
        }
        manager.stopping()
        return code
    }
}
