// `daysomectl status` says whether the session is locked, and which sources the daemon watches.

import DaysomeCore
import Testing

@testable import DaysomeCLI

@Suite struct LockStatusLineTests {
    func lock(_ text: String) throws -> JSONObject? {
        try JSONParser.parse(text).objectValue
    }

    @Test func aLockedSessionIsShownAsAwayWhateverTheFileSays() throws {
        let line = lockStatusLine(
            try self.lock(
                """
                { "locked": true, "fileSays": "foreground", "sources": {
                  "logind": { "watched": true, "locked": true, "detail": "session /org/freedesktop/login1/session/c1" },
                  "screenSaver": { "watched": false, "locked": null, "detail": "no screensaver on the session bus" } } }
                """))
        #expect(
            line
                == "Lock: locked (logind), away whatever the file says; the file says foreground; "
                + "logind watched: session /org/freedesktop/login1/session/c1; "
                + "screenSaver not watched: no screensaver on the session bus")
    }

    @Test func noSourceWatchedIsShownUnlockedWithTheReasons() throws {
        let line = lockStatusLine(
            try self.lock(
                """
                { "locked": false, "fileSays": "away", "sources": {
                  "logind": { "watched": false, "locked": null, "detail": "no system bus (ENOENT)" },
                  "screenSaver": { "watched": false, "locked": null, "detail": "no screensaver on the session bus" } } }
                """))
        #expect(line?.hasPrefix("Lock: unlocked; the file says away; logind not watched: no system bus") == true)
    }

    @Test func anOlderDaemonWithoutALockObjectPrintsNoLockLine() {
        #expect(lockStatusLine(nil) == nil)
    }
}
