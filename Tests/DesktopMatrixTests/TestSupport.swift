// The harness (SpawnedProcess, TestDirectory, dunst, the session bus) comes from the
// DaysomeTestSupport library. Re-exported here once, so this target's other files, which another
// change is rewriting at the same time, need no import line of their own; each may import it
// itself later and this file go.

@_exported import DaysomeTestSupport
