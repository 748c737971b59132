// Where daysomectl looks when its shell has no XDG_RUNTIME_DIR: the session directory a daemon
// runs in (scripts/run starts one in /run/user/<uid>), only while one holds its lock there, and
// only in a private directory of this user. The real two terminals: DaemonPathsTests.

import DaysomeFiles
import Glibc
import Testing

@Suite("The session directory daysomectl finds without XDG_RUNTIME_DIR")
struct SessionRuntimeDirectoryTests {
    @Test func aDaemonRunningInTheSessionDirectoryIsFoundOnlyWhileItRunsAndOnlyWhereNothingIsSet() throws {
        let session = scratchDirectory()
        chmod(session, 0o700)
        defer { _ = system("rm -rf '\(session)'") }
        mkdir(session + "/daysome", 0o700)
        let bare = ["HOME": "/nonexistent"]
        #expect(SessionRuntimeDirectory.environment(bare, findingADaemonIn: session) == bare, "no daemon runs")
        var lock: DaemonLock? = try DaemonLock(runtimeDirectory: session + "/daysome")
        #expect(
            SessionRuntimeDirectory.environment(bare, findingADaemonIn: session)["XDG_RUNTIME_DIR"] == session)
        let empty = ["HOME": "/nonexistent", "XDG_RUNTIME_DIR": ""]
        #expect(
            SessionRuntimeDirectory.environment(empty, findingADaemonIn: session)["XDG_RUNTIME_DIR"] == session)
        // What the caller set stands, whatever runs elsewhere.
        let given = ["XDG_RUNTIME_DIR": "/run/user/4242"]
        #expect(SessionRuntimeDirectory.environment(given, findingADaemonIn: session) == given)
        // A directory others may write is no session's: its daemon could be anyone's.
        chmod(session, 0o777)
        #expect(SessionRuntimeDirectory.environment(bare, findingADaemonIn: session) == bare)
        chmod(session, 0o700)
        let link = session + ".link"
        symlink(session, link)
        defer { unlink(link) }
        #expect(SessionRuntimeDirectory.environment(bare, findingADaemonIn: link) == bare, "a symlink is followed")
        withExtendedLifetime(lock) {}
        lock = nil
        #expect(SessionRuntimeDirectory.environment(bare, findingADaemonIn: session) == bare, "the daemon is gone")
        #expect(SessionRuntimeDirectory.conventional == "/run/user/\(getuid())")
    }
}
