// A carer's `daysomectl try`, decided by the machine: every combination of what the household
// says, where she is, and what the shell can tell, checked on the virtual clock.

import DaysomeCore
import Testing

@Suite("A carer's try")
struct TryTests {
    /// A notifier that answers at once, a player, and no Do Not Disturb in the way.
    static let plain = TryFacts(
        notifier: true, readsDoNotDisturb: false, bellHeld: false, respectsDoNotDisturb: true, player: true)

    func daemon(chime: Chime = .bell, display: DisplayState = .away) -> VirtualDaemon {
        var home = lunchAndTea()
        home.settings.chime = chime
        return VirtualDaemon(home, now: instant("2026-06-01T08:00:00Z"), display: display)
    }

    func bells(_ daemon: VirtualDaemon) -> Int {
        daemon.actions.filter { $0 == .chime }.count
    }

    func asksTheServerFirst(_ daemon: VirtualDaemon) -> Bool {
        daemon.actions.contains(.readDoNotDisturbForTheBell)
    }

    @Test func aTryWhileSheIsAwayRingsTheBellAndShowsASampleForTenSeconds() {
        var daemon = self.daemon()
        let reply = daemon.tryCall(Self.plain)
        #expect(reply == "the bell is playing; a sample call is shown for ten seconds")
        #expect(self.bells(daemon) == 1)
        #expect(daemon.posts.map(\.start.title) == ["Daysome"])
        daemon.run(until: instant("2026-06-01T08:00:11Z"))
        #expect(daemon.shown.isEmpty)
    }

    @Test func aTryOverTheDayDisplayOnlyRingsTheBellAndShowsNothing() {
        var daemon = self.daemon(display: .foreground)
        let reply = daemon.tryCall(Self.plain)
        #expect(reply == "the bell is playing; nothing shown, because the day display is in front (rule 1)")
        #expect(self.bells(daemon) == 1)
        #expect(daemon.posts.isEmpty)
    }

    @Test func aTryWithTheChimeOffRingsNoBellAndNeverAsksTheServer() {
        var daemon = self.daemon(chime: .off)
        var facts = Self.plain
        facts.readsDoNotDisturb = true
        let reply = daemon.tryCall(facts)
        #expect(reply == "the bell is off (settings.chime); a sample call is shown for ten seconds")
        #expect(self.bells(daemon) == 0)
        #expect(!self.asksTheServerFirst(daemon))
        #expect(daemon.posts.count == 1)
    }

    @Test func aTrysBellWaitsForTheServersDoNotDisturbWhereTheNotifierCanReadIt() {
        var daemon = self.daemon()
        var facts = Self.plain
        facts.readsDoNotDisturb = true
        let reply = daemon.tryCall(facts)
        #expect(
            reply
                == "the bell plays unless the server's Do Not Disturb is on (respected); a sample call is shown for ten seconds"
        )
        #expect(self.asksTheServerFirst(daemon))
        #expect(self.bells(daemon) == 0, "the bell rang before the server's word")
        facts.respectsDoNotDisturb = false
        #expect(daemon.tryCall(facts).hasPrefix("the bell is playing; "))
    }

    @Test func aRespectedDoNotDisturbSilencesTheTrysBellAndAMissingPlayerIsSaid() {
        let held = DaemonMachine.tryBell(held: true, player: true)
        #expect(held.words == "the bell stays silent: the notification server is paused (Do Not Disturb, respected)")
        #expect(!held.actions.contains(.chime))
        let noPlayer = DaemonMachine.tryBell(held: false, player: false)
        #expect(noPlayer.words == "no sound player was found (pw-play, paplay, aplay): the bell is silent")
        #expect(noPlayer.actions.isEmpty)
        #expect(DaemonMachine.tryBell(held: false, player: true) == ("the bell is playing", [.chime]))
        var daemon = self.daemon()
        var facts = Self.plain
        facts.bellHeld = true
        #expect(daemon.tryCall(facts).hasPrefix("the bell stays silent: "))
        #expect(self.bells(daemon) == 0)
    }

    @Test func aTryWithNoNotifierRingsTheBellAndSaysNothingCanBeShown() {
        var daemon = self.daemon()
        var facts = Self.plain
        facts.notifier = false
        #expect(daemon.tryCall(facts) == "the bell is playing; no notifier")
        #expect(daemon.posts.isEmpty)
    }

    /// Every combination: the sample only while she is away and a notifier runs (rule 1), the bell
    /// at most once and never with the chime off, never past a respected Do Not Disturb, and
    /// either now or after the server's word, not both.
    @Test(arguments: [Chime.bell, .off], [DisplayState.away, .foreground])
    func everyTryKeepsRuleOneAndTheBellsSettings(chime: Chime, display: DisplayState) {
        for bits in 0..<32 {
            let facts = TryFacts(
                notifier: bits & 1 != 0, readsDoNotDisturb: bits & 2 != 0, bellHeld: bits & 4 != 0,
                respectsDoNotDisturb: bits & 8 != 0, player: bits & 16 != 0)
            var daemon = self.daemon(chime: chime, display: display)
            let reply = daemon.tryCall(facts)
            let shown = !daemon.posts.isEmpty
            #expect(shown == (display == .away && facts.notifier), "\(facts): \(reply)")
            #expect(
                reply.hasSuffix(shown ? "a sample call is shown for ten seconds" : ")")
                    || reply.hasSuffix("no notifier"))
            let bells = self.bells(daemon)
            let asks = self.asksTheServerFirst(daemon)
            #expect(bells <= 1 && !(bells == 1 && asks), "\(facts)")
            if chime == .off { #expect(bells == 0 && !asks, "\(facts)") }
            if facts.bellHeld && !facts.readsDoNotDisturb { #expect(bells == 0, "\(facts)") }
            if chime == .bell && !facts.readsDoNotDisturb && !facts.bellHeld && facts.player {
                #expect(bells == 1, "\(facts): \(reply)")
            }
            if chime == .bell && facts.readsDoNotDisturb { #expect(asks && bells == 0, "\(facts)") }
        }
    }
}
