// The floor for resident memory and wakeups: a Swift program that only sleeps. scripts/bench
// builds it as the package builds daysomed (scripts/lib/release-build.sh: the runtime linked in)
// and reads its memory and context switches beside daysomed's.
import Glibc

while true {
    sleep(3600)
}
