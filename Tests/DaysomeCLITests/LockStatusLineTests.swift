// `daysomectl status` says whether the session is locked, and which sources the daemon watches.

import DaysomeCore
import Testing

@testable import DaysomeCLI

@Suite struct LockStatusLineTests {
    @Test func aLockedSessionIsShownAsAwayWhateverTheFileSays() {
        let line = lockStatusLine(
            StatusSnapshot.Lock(
                locked: true, fileSays: .foreground,
                sources: [
                    .logind: .init(watched: true, locked: true, detail: "session /org/freedesktop/login1/session/c1"),
                    .screenSaver: .init(watched: false, locked: nil, detail: "no screensaver on the session bus"),
                    .logindLockSignal: .init(watched: true, locked: false, detail: "following session c1"),
                ]))
        #expect(
            line
                == "Lock: locked (logind), away whatever the file says; the file says foreground; "
                + "logind watched: session /org/freedesktop/login1/session/c1; "
                + "screenSaver not watched: no screensaver on the session bus; "
                + "logindLockSignal watched: following session c1")
    }

    @Test func noSourceWatchedIsShownUnlockedWithTheReasons() {
        let line = lockStatusLine(
            StatusSnapshot.Lock(
                locked: false, fileSays: .away,
                sources: [
                    .logind: .init(watched: false, locked: nil, detail: "no system bus (ENOENT)"),
                    .screenSaver: .init(watched: false, locked: nil, detail: "no screensaver on the session bus"),
                ]))
        #expect(line.hasPrefix("Lock: unlocked; the file says away; logind not watched: no system bus"))
    }

    @Test func statusNamesTheWatchedLockersAndTheOneThatDecided() {
        let lines = lockDecisionLines(
            StatusSnapshot.Lock(
                locked: true, fileSays: .foreground,
                sources: [
                    .logind: .init(watched: true, locked: false, detail: "session c1"),
                    .screenSaver: .init(watched: false, locked: nil, detail: "no screensaver on the session bus"),
                    .logindLockSignal: .init(watched: true, locked: false, detail: "following session c1"),
                    .gnomeScreenSaver: .init(watched: true, locked: true, detail: "org.gnome.ScreenSaver"),
                ], decidedBy: .gnomeScreenSaver))
        #expect(lines == ["Lockers watched: logind, gnomeScreenSaver; decided by gnomeScreenSaver"])
        let none = lockDecisionLines(StatusSnapshot.Lock(locked: false, fileSays: .away, sources: [:]))
        #expect(none == ["Lockers watched: none; the file alone decides"])
    }

    @Test func aLockRequestNoLockerAnsweredIsSaidToLeaveHerTheDay() {
        let lines = lockDecisionLines(
            StatusSnapshot.Lock(
                locked: false, fileSays: .foreground,
                sources: [.logind: .init(watched: true, locked: false, detail: "session c1")],
                request: .init(at: Instant(seconds: 1_764_590_400), state: .unanswered)))
        #expect(
            lines == [
                "Lockers watched: logind; the file decides",
                "Lock request: lock requested at 2025-12-01T12:00:00Z, no locker answered: she still sees the day",
            ])
        for state in [StatusSnapshot.Lock.Request.State.waiting, .answered] {
            let line = lockDecisionLines(
                StatusSnapshot.Lock(
                    locked: state == .answered, fileSays: .foreground, sources: [:],
                    decidedBy: state == .answered ? .logind : nil,
                    request: .init(
                        at: Instant(seconds: 0), state: state, answeredBy: state == .answered ? .logind : nil))
            ).last
            #expect(
                line
                    == "Lock request: lock requested at 1970-01-01T00:00:00Z, "
                    + (state == .answered ? "answered by logind" : "waiting for a locker to answer"))
        }
    }

    /// The lock part was an optional extra before status was typed; now a running daemon always
    /// writes it, and a status without it is refused by name rather than read as "no lock".
    @Test func aStatusWithoutALockObjectIsRefusedNamingIt() throws {
        var object = try #require(aRunningStatus().json.objectValue)
        object.members.removeAll { $0.key == "lock" }
        #expect(throws: SnapshotProblem(key: "status.lock", "is missing")) {
            try StatusSnapshot(json: .object(object))
        }
    }
}

/// A running daemon's status, every part filled.
func aRunningStatus() -> StatusSnapshot {
    StatusSnapshot(
        pid: 4242, display: .away, lay: 12, backend: "wheel", notifyInOtherApps: true,
        notificationServer: .init(name: "dunst", present: true, capabilities: ["body"]), canDeliver: true,
        laidUntil: nil, nextStart: nil,
        household: .init(path: "/h.json", loadedAt: nil, items: 0, errors: []),
        daemon: .init(
            notifier: "freedesktop", notLaidReason: nil, pending: 0, delivered: 0, grace: 300,
            displayStatePath: "/run/d", runtimeDirectory: "/run", stateDirectory: "/state",
            chime: .init(on: true, player: nil, file: nil), bringDayBack: .init(on: false, means: nil, ready: false),
            doNotDisturb: "override",
            lock: .init(
                locked: false, fileSays: .away,
                sources: [
                    .logind: .init(watched: false, locked: nil, detail: nil),
                    .screenSaver: .init(watched: false, locked: nil, detail: nil),
                ]),
            wakeSystem: .init(on: false, reason: "never asked for")))
}

@Suite struct DisplayFileLineTests {
    @Test func anUnreadableDisplayLineIsShownEscapedAndTheLockLineSaysTheFileIsUnreadable() {
        let problem = DisplayFileProblem(line: "Fore\u{1B}ground", message: "holds neither", keeping: .foreground)
        #expect(displayFileLine(problem) == "Display file: unreadable line 'Fore\\u{1b}ground' (keeping foreground)")
        let unreadable = DisplayFileProblem(line: nil, message: "Is a directory", keeping: .away)
        #expect(displayFileLine(unreadable) == "Display file: unreadable (Is a directory) (keeping away)")
        let lock = StatusSnapshot.Lock(locked: false, fileSays: .foreground, sources: [:])
        #expect(
            lockStatusLine(lock, fileProblem: problem)
                == "Lock: unlocked; the file is unreadable (keeping foreground); ")
        #expect(lockStatusLine(lock) == "Lock: unlocked; the file says foreground; ")
    }
}
