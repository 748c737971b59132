// The floor for a short-lived Swift program's start: print one line and exit. scripts/bench
// builds it as the package builds daysomectl and races `daysomectl --version` against it.
print("hello")
