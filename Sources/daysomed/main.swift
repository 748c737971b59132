// daysomed: the Daysome notification daemon. Everything is in DaysomeDaemon.

import DaysomeDaemon
import Glibc

exit(Daemon.main(Array(CommandLine.arguments.dropFirst())))
