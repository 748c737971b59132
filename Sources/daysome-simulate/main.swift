// daysome-simulate: the seeded simulator's command line (scripts/simulate calls it).

import DaysomeFiles
import DaysomeSimulator
import Glibc

exit(SimulateCommand.main(Array(CommandLine.arguments.dropFirst())))
