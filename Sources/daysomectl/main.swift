// daysomectl: parse, run, print, exit. Everything else is in DaysomeCLI.

import DaysomeCLI
import DaysomeFiles
import Glibc

// In a shell without XDG_RUNTIME_DIR, the daemon scripts/run started in /run/user/<uid> is found.
let output = DaysomeCtl.run(
    Array(CommandLine.arguments.dropFirst()),
    context: CommandContext(
        environment: SessionRuntimeDirectory.environment(processEnvironment(only: CommandContext.variablesRead)),
        now: currentInstant(),
        currentDirectory: currentDirectory()))
writeText(output.stdout, to: 1)
writeText(output.stderr, to: 2)
exit(output.status.rawValue)
