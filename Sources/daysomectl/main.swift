// daysomectl: parse, run, print, exit. Everything else is in DaysomeCLI.

import DaysomeCLI
import DaysomeFiles
import Glibc

let output = DaysomeCtl.run(
    Array(CommandLine.arguments.dropFirst()),
    context: CommandContext(
        environment: processEnvironment(), now: currentInstant(), currentDirectory: currentDirectory()))
writeText(output.stdout, to: 1)
writeText(output.stderr, to: 2)
exit(output.status.rawValue)
