// The floor for resident memory and wakeups: a Swift program that only sleeps. scripts/bench
// builds it in release (`swiftc -O`) and reads its VmRSS and context switches beside daysomed's.
import Glibc

while true {
    sleep(3600)
}
