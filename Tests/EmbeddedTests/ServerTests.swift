// The notification server's ids, on the embedded daemon: a sample whose id comes back after her
// return is closed once it arrives, and ids a restarted server never gave are never closed there
// (they might be another app's cards).

import DaysomeCore
import DaysomeDaemon
import DaysomeFiles
import DaysomeWorld
import Testing

@Suite("The server's ids, on the embedded daemon")
struct ServerTests {
    @Test func aTrySampleIsWithdrawnWhenTheDisplayReturnsBeforeTheServersIdArrives() throws {
        let tablet = try tablet("try-return", at: "2026-06-01T10:00:00Z")
        defer { tablet.remove() }
        tablet.server.hang()
        let answer = tablet.control("try")
        #expect(answer.contains("a sample call is shown"), "\(answer)")
        tablet.advance(seconds: 1)
        // She comes back while the server still holds the sample's id.
        try tablet.writeDisplay("foreground")
        tablet.advance(seconds: 1)
        tablet.server.wake()
        tablet.advance(seconds: 1)
        #expect(tablet.server.notified.count == 1, "\(tablet.server.notified)")
        let id = try #require(tablet.server.notified.first?.id)
        #expect(tablet.server.closed == [id], "the sample was not closed once its id arrived")
        #expect(tablet.server.cards.isEmpty)
    }

    /// `stamp`: the instance an earlier daemon stamped lunch's id with. One of another boot is gone
    /// for certain, its card with it, and history says so; one nobody can tell about ("boot?":
    /// the boot could not be read) is forgotten, and the log says so.
    @Test(arguments: ["an-earlier-boot 0000 :1.9", "boot? fake :1.9"])
    func aRestartedNotificationServerIsNeverSentACloseForTheOldServersIds(stamp: String) throws {
        let tablet = try tablet(
            "old-ids-\(stamp.hasPrefix("boot?"))", at: "2026-06-01T10:00:00Z", display: "foreground", start: false)
        defer { tablet.remove() }
        // Another app's card on this (new) server instance, whose id an old lay.json also names.
        let id = tablet.server.showAnotherAppsCard("Another app")
        let now = tablet.now
        let state = tablet.paths.stateDirectory
        try FileIO.makeDirectories(state, mode: 0o700)
        try FileIO.writeAtomically(
            state + "/lay.json",
            """
            {"format": 2, "layCounter": 4, "lay": null, "called": [],
             "delivered": [{"lay": 4, "at": "\(Instant(seconds: now.seconds - 60).rfc3339)", "itemIds": ["lunch"],
                            "expiresAt": "\(Instant(seconds: now.seconds + 3_600).rfc3339)", "notificationId": \(id),
                            "server": "\(stamp)"}]}
            """)
        // Its history says it was laid and delivered (a call on screen, not one never posted).
        try FileIO.writeAtomically(
            state + "/history.jsonl",
            """
            {"time":"\(Instant(seconds: now.seconds - 3_600).rfc3339)","event":"laid","lay":4,"at":null,"itemIds":[],"reason":null}
            {"time":"\(Instant(seconds: now.seconds - 60).rfc3339)","event":"delivered","lay":4,"at":"\(Instant(seconds: now.seconds - 60).rfc3339)","itemIds":["lunch"],"reason":null}

            """)
        // The display is in front at start-up: a trusted id would be withdrawn (closed) now.
        try tablet.startDaemon()
        try tablet.writeDisplay("away")
        try tablet.writeDisplay("foreground")
        tablet.advance(seconds: 1)
        #expect(tablet.server.cards.map(\.id) == [id], "the other app's card \(id) was closed by the daemon")
        #expect(tablet.server.closed.isEmpty)
        if stamp.hasPrefix("boot?") {
            #expect(!tablet.logged("Forgetting 1 notification id(s)").isEmpty, "\(tablet.log.map(\.message))")
        } else {
            let withdrawn = tablet.events(.withdrawn).filter { $0.itemIds == ["lunch"] }
            #expect(
                withdrawn.map(\.reason) == [DaemonMachine.leftWhileStopped],
                "history does not say what became of lunch: \(tablet.history())")
        }
        #expect(tablet.server.notified.isEmpty, "lunch was posted again: \(tablet.server.notified)")
    }

    /// The server restarts with lunch on screen: lunch went with it, and comes back on the new
    /// server once, which her return then takes down. `atOnce`: the new server took the name
    /// before the daemon had read that the old one went, so the bus's answer about the old one
    /// comes after the new one is known.
    @Test(arguments: [false, true])
    func aCallWipedByAServerRestartIsShownOnceOnTheNewServerAndHerReturnTakesItDown(atOnce: Bool) throws {
        let tablet = try tablet("wiped-\(atOnce)", at: "2026-06-01T11:59:00Z")
        defer { tablet.remove() }
        tablet.advance(to: at("2026-06-01T12:00:10Z"))
        #expect(tablet.shown == ["Lunch"])
        let old = tablet.server.instance
        tablet.server.restart(atOnce: atOnce)
        tablet.advance(seconds: 1)
        #expect(tablet.server.instance != old)
        #expect(
            tablet.shown == ["Lunch"],
            "lunch went with the old server and was not shown again: \(tablet.log.map(\.message))")
        #expect(tablet.server.notified.count == 2, "\(tablet.server.notified)")
        let server = try tablet.status().notificationServer
        #expect(server.present && server.name == FakeNotificationServer.name, "\(server)")
        tablet.advance(seconds: 30)
        #expect(tablet.server.notified.count == 2, "shown a third time: \(tablet.server.notified)")
        try tablet.writeDisplay("foreground")
        tablet.advance(seconds: 1)
        #expect(tablet.shown.isEmpty, "a card stayed over the day: \(tablet.server.cards)")
    }

    /// Lunch on screen at 12:00:10, then the daemon killed: what happens while none runs is the
    /// test's.
    static func lunchOnScreenThenStopped(_ name: String) throws -> EmbeddedTablet {
        let tablet = try tablet(name, at: "2026-06-01T11:59:00Z")
        tablet.advance(to: at("2026-06-01T12:00:10Z"))
        #expect(tablet.shown == ["Lunch"])
        tablet.killDaemon()
        return tablet
    }

    /// Lunch is on screen when the daemon stops; while none runs, another server takes the name
    /// over and the first runs on, lunch still on its screen. The next daemon asks the bus whether
    /// the server that stamped lunch's id still runs: it does, so lunch is no restart's to forget.
    /// Her return closes it there (rule 1), and the server that answers now never shows it.
    @Test func aServerTakenOverWhileNoDaemonRanStillHasItsCardClosedThereAtHerReturn() throws {
        let tablet = try Self.lunchOnScreenThenStopped("takeover-stopped")
        defer { tablet.remove() }
        tablet.server.takeOver()
        tablet.advance(seconds: 20)
        try tablet.startDaemon()
        tablet.advance(seconds: 5)
        #expect(tablet.shown == ["Lunch"], "\(tablet.server.cards), \(String(describing: tablet.server.replaced))")
        #expect(tablet.server.notified.count == 1, "posted again on the new server: \(tablet.server.notified)")
        try tablet.writeDisplay("foreground")
        tablet.advance(seconds: 1)
        #expect(
            tablet.shown.isEmpty,
            "lunch stayed over the day on the server taken over: \(tablet.log.map(\.message))")
        #expect(tablet.server.closed.isEmpty, "an id was closed on the server that took over: \(tablet.server.closed)")
        #expect(!tablet.history().contains { $0.reason?.contains("restarted") == true }, "\(tablet.history())")
    }

    /// The same takeover, then the first server exits while the new daemon runs: lunch went with
    /// it. History says so, and it is not posted again: it is from before the daemon's restart,
    /// when she may have dismissed it unheard.
    @Test func aServerTakenOverWhileNoDaemonRanIsFollowedUntilItLeaves() throws {
        let tablet = try Self.lunchOnScreenThenStopped("takeover-stopped-leaves")
        defer { tablet.remove() }
        tablet.server.takeOver()
        try tablet.startDaemon()
        tablet.advance(seconds: 5)
        tablet.server.replacedExits()
        tablet.advance(seconds: 1)
        #expect(tablet.shown.isEmpty)
        #expect(tablet.server.notified.count == 1, "posted again: \(tablet.server.notified)")
        let withdrawn = tablet.events(.withdrawn).filter { $0.itemIds == ["lunch"] }
        #expect(
            withdrawn.count == 1 && withdrawn[0].reason?.contains("exited after another took its name over") == true,
            "history does not say lunch went with the server: \(tablet.history())")
    }

    /// Lunch is on screen when the daemon stops; while none runs, the server restarts and lunch
    /// goes with it. The next daemon asks the bus whether the server that stamped lunch's id still
    /// runs: it is gone. Lunch is not posted again (she may have dismissed it before the restart,
    /// unheard: never twice), and history says what became of it (never silent).
    @Test func aCardWhoseServerRestartedWhileNoDaemonRanIsToldInHistoryAndNotShownAgain() throws {
        let tablet = try Self.lunchOnScreenThenStopped("restart-stopped")
        defer { tablet.remove() }
        tablet.server.restart()
        tablet.advance(seconds: 20)
        try tablet.startDaemon()
        tablet.advance(seconds: 30)
        #expect(tablet.shown.isEmpty)
        #expect(tablet.server.notified.count == 1, "posted again: \(tablet.server.notified)")
        let withdrawn = tablet.events(.withdrawn).filter { $0.itemIds == ["lunch"] }
        #expect(
            withdrawn.map(\.reason) == [DaemonMachine.leftWhileStopped],
            "history does not say what became of lunch: \(tablet.history())")
    }

    /// Moved from the real-process suite (FaultTests): a card wiped by a server restart is posted
    /// again once, and history says why; a second restart leaves it gone, and history says that
    /// too. The real restart on a real bus stays in the fault storm and the desktop matrix.
    @Test func aCardWipedByAServerRestartIsPostedAgainOnceAndNotAfterASecondRestart() throws {
        let tablet = try tablet("wiped-twice", at: "2026-06-01T11:59:00Z")
        defer { tablet.remove() }
        tablet.advance(to: at("2026-06-01T12:00:10Z"))
        tablet.server.restart()
        tablet.advance(seconds: 1)
        #expect(tablet.shown == ["Lunch"])
        // One call, one `delivered` line; the card posted again is `reposted`, so counting
        // `delivered` lines counts calls.
        #expect(tablet.events(.delivered).filter { $0.at == at("2026-06-01T12:00:00Z") }.count == 1)
        let reposted = tablet.events(.reposted).filter { $0.at == at("2026-06-01T12:00:00Z") }
        #expect(reposted.count == 1, "\(tablet.history())")
        #expect(reposted.last?.reason?.contains("posted again once") == true, "\(reposted)")
        // Once means once.
        tablet.server.restart()
        tablet.advance(seconds: 2)
        #expect(tablet.shown.isEmpty, "posted a second time")
        #expect(tablet.server.notified.count == 2, "\(tablet.server.notified)")
        #expect(tablet.events(.delivered).count == 1, "\(tablet.history())")
        #expect(tablet.events(.reposted).count == 1, "\(tablet.history())")
        #expect(
            tablet.events(.withdrawn).contains {
                $0.at == at("2026-06-01T12:00:00Z") && $0.reason?.contains("restarted") == true
            }, "\(tablet.history())")
        #expect(tablet.exitCode == nil)
    }
}
