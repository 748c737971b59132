// The time machine on the seed household: the real state machine and timer wheel on a virtual
// clock, across the autumn clock change, with and without the display coming back.

import DaysomeCore
import Testing

@Suite("Replay")
struct ReplayTests {
    let seed = loadFixture("households/seed.json")
    var zone: Zone { self.seed.zone }

    @Test("Away throughout the autumn change: every delivery is a start of the plan, each followed by its expiry")
    func awayAcrossTheAutumnChange() {
        let from = at("2026-10-22T00:00", self.zone)
        let to = at("2026-10-29T00:00", self.zone)
        let result = Replay(household: self.seed, from: from, to: to).run()

        let plan = Planner.plan(self.seed, after: from, through: to).starts
        let delivered = result.events(.delivered)
        #expect(delivered.count == plan.count)
        #expect(delivered.map(\.at) == plan.map(\.at))
        #expect(delivered.map { $0.start?.title } == plan.map(\.title))
        // Delivered at their minute, under the one lay made at `from`.
        #expect(delivered.allSatisfy { $0.time == $0.at && $0.lay == 1 })
        #expect(result.events(.laid).map(\.time) == [from])
        #expect(result.events(.dropped).isEmpty)
        #expect(result.events(.withdrawn).isEmpty)

        // The lay itself is what `plan` shows for a lay made then.
        #expect(result.lays.count == 1)
        let layPlan = Planner.plan(self.seed, from: from).starts
        #expect(Array(result.lays[0].starts.prefix(layPlan.count)) == layPlan)
        #expect(result.events(.laid).first?.count == layPlan.count)

        // Each call is followed by its expiry, at the instant its card leaves the display.
        for (index, event) in result.events.enumerated() where event.kind == .delivered {
            let expiry = result.events[(index + 1)...].first { $0.kind == .expired && $0.at == event.at }
            #expect(expiry?.time == event.start?.expiresAt, "\(event.at?.rfc3339 ?? "")")
        }

        // Clock times are clock times: lunch is at 13:00 on both sides of the change.
        let lunches = delivered.filter { $0.itemIds == ["lunch"] }.map { self.zone.local($0.time) }
        #expect(lunches.count == 7)
        #expect(lunches.allSatisfy { $0.clockTime.description == "13:00" })
        #expect(lunches.map(\.offset) == [3600, 3600, 3600, 0, 0, 0, 0])
    }

    @Test("No catch-up after a return: back at 12:59 and away at 13:05, lunch is not called; a new lay follows")
    func returnAcrossLunch() {
        let from = at("2026-10-25T08:00", self.zone)
        let script = [
            DisplayChange(at: at("2026-10-25T12:59", self.zone), state: .foreground),
            DisplayChange(at: at("2026-10-25T13:05", self.zone), state: .away),
        ]
        let result = Replay(household: self.seed, from: from, to: at("2026-10-25T23:59", self.zone), display: script)
            .run()
        let lunch = at("2026-10-25T13:00", self.zone)
        #expect(!result.events.contains { $0.at == lunch })
        #expect(result.events(.laid).map(\.lay) == [1, 2])
        #expect(result.events(.laid).map(\.time) == [from, at("2026-10-25T13:05", self.zone)])
        #expect(result.events(.cleared).map(\.time) == [at("2026-10-25T12:59", self.zone)])
        // The next call is the 13:45 one, under the new lay.
        let after = result.events(.delivered).filter { $0.time > lunch }
        #expect(after.first?.at == at("2026-10-25T13:45", self.zone))
        #expect(after.allSatisfy { $0.lay == 2 })
        // And the new lay is what `plan` shows for a lay made at 13:05.
        let layPlan = Planner.plan(self.seed, from: at("2026-10-25T13:05", self.zone)).starts
        #expect(Array(result.lays[1].starts.prefix(layPlan.count)) == layPlan)
        #expect(
            result.display.map(\.state) == [.away, .foreground, .away]
                && result.display.map(\.from) == [from, script[0].at, script[1].at])
    }

    @Test("Never over the display: a return while a call is shown withdraws it at that instant")
    func returnWhileShown() {
        let script = [DisplayChange(at: at("2026-10-25T13:20:30", self.zone), state: .foreground)]
        let result = Replay(
            household: self.seed, from: at("2026-10-25T12:00", self.zone), to: at("2026-10-25T18:00", self.zone),
            display: script
        ).run()
        let withdrawn = result.events(.withdrawn)
        #expect(withdrawn.count == 1)
        #expect(withdrawn.first?.time == script[0].at)
        #expect(withdrawn.first?.at == at("2026-10-25T13:00", self.zone))
        #expect(withdrawn.first?.start?.title == "Lunch")
        #expect(result.events(.expired).isEmpty)
        #expect(result.shownAtEnd == 0)
        // Nothing after the return: the drink at 16:00 is not called.
        #expect(!result.events.contains { $0.kind == .delivered && $0.time > script[0].at })
    }

    @Test("Rule 1 at the same instant: a return at a start's very minute comes first, so nothing is delivered")
    func returnAtTheStartInstant() {
        let lunch = at("2026-10-25T13:00", self.zone)
        let result = Replay(
            household: self.seed, from: at("2026-10-25T12:00", self.zone), to: at("2026-10-25T14:00", self.zone),
            display: [DisplayChange(at: lunch, state: .foreground)]
        ).run()
        #expect(result.events(.delivered).isEmpty)
        #expect(result.events(.cleared).map(\.time) == [lunch])
    }

    @Test("The display is away at `from` unless the script says otherwise there")
    func initialDisplayState() {
        let from = at("2026-10-25T12:00", self.zone)
        let to = at("2026-10-25T14:00", self.zone)
        let foreground = Replay(
            household: self.seed, from: from, to: to, display: [DisplayChange(at: from, state: .foreground)]
        ).run()
        #expect(foreground.events.isEmpty)
        #expect(foreground.display == [DisplayPeriod(from: from, to: to, state: .foreground)])
        let away = Replay(household: self.seed, from: from, to: to).run()
        #expect(away.events(.laid).count == 1)
    }

    @Test("A week with a DST change replays in well under a second")
    func weekIsFast() {
        let from = at("2026-10-22T00:00", self.zone)
        let to = at("2026-10-29T00:00", self.zone)
        let script = [
            DisplayChange(at: at("2026-10-24T12:59", self.zone), state: .foreground),
            DisplayChange(at: at("2026-10-24T13:05", self.zone), state: .away),
        ]
        _ = Replay(household: self.seed, from: from, to: to, display: script).run()
        let started = monotonicSeconds()
        let rounds = 5
        var delivered = 0
        for _ in 0..<rounds {
            delivered +=
                Replay(household: self.seed, from: from, to: to, display: script).run().events(.delivered)
                .count
        }
        let each = (monotonicSeconds() - started) / Double(rounds)
        print("Replay of a DST week (seed household, 2026-10-22 to 2026-10-29 Europe/London): \(Int(each * 1000)) ms")
        #expect(delivered > 0)
        #expect(each < 2)
    }
}
