// daysomed's entry point: parse the options, run the Manager, map failures to exit codes.

import DaysomeCore
import DaysomeFiles
import Glibc

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
            let manager = try Manager(options: options, environment: environment)
            return try manager.run()
        } catch {
            writeText("daysomed: \(error)\n", to: 2)
            return 1
        }
    }
}
