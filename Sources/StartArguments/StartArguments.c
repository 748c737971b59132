// The argument vector for Swift's CommandLine, handed over by glibc instead of searched for.
//
// The Swift runtime finds argv on Linux with a static constructor (ArgvGrabber, in the runtime's
// CommandLine.cpp) that opens /proc/self/maps, parses every line with sscanf to find the stack,
// and walks back from `environ`: at each start of each program, whether or not it reads its
// arguments. For daysomectl that was about 5 % of `pending` (issue 44: `pending` must be no
// slower than `atq`). glibc calls each ELF constructor with (argc, argv, envp), so the vector is
// simply kept here, and the two runtime entry points that CommandLine.cpp defines are defined
// here instead: the linker, finding them, never takes that file out of the static runtime, so its
// constructor is not linked at all. Only daysomed and daysomectl link this target. Linked against
// the shared runtime (debug builds), the runtime may call its own finder or these: the vector is
// the same either way.
//
// Were a toolchain to rename either function, CommandLine.cpp would be linked again beside these
// and the start would only get slower; a clash in name would fail the link.

#include "StartArguments.h"

static char **startArgv;
static int startArgc;

// Before the runtime's own constructors (default priority), so no Swift code runs before it.
__attribute__((constructor(101))) static void keepStartArguments(int argc, char **argv, char **envp) {
    (void)envp;
    startArgc = argc;
    startArgv = argv;
}

// Both as the runtime declares them (SWIFT_CC(swift)): the stdlib's CommandLine calls the first;
// the second lets a host (the REPL, a test) replace the vector.
__attribute__((swiftcall)) char **_swift_stdlib_getUnsafeArgvArgc(int *outArgLen) {
    static char *empty[] = {0};
    if (!startArgv) {
        *outArgLen = 0;
        return empty;
    }
    *outArgLen = startArgc;
    return startArgv;
}

__attribute__((swiftcall)) void _swift_stdlib_overrideUnsafeArgvArgc(char **argv, int argc) {
    startArgv = argv;
    startArgc = argc;
}
