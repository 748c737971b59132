// Heard and seen: the bell with each call, and the day brought back three seconds after it
// (settings.bringDayBack) unless she came back first; a click brings it back at once.

import DaysomeCore
import Testing

func bringBacks(_ actions: [MachineAction]) -> [String] {
    actions.compactMap { if case .bringDisplayBack(let reason) = $0 { return reason } else { return nil } }
}

@Suite("Chime and bring-back")
struct BringBackTests {
    func home(bringBack: Bool, chime: Chime = .bell) -> Household {
        var home = lunchAndTea()
        home.settings.bringDayBack = bringBack
        home.settings.chime = chime
        return home
    }

    @Test("With bringDayBack on, the day comes back three seconds after a call, not before")
    func bringsBackAfterThreeSeconds() {
        var daemon = VirtualDaemon(self.home(bringBack: true), now: instant("2026-06-01T08:00:00Z"), display: .away)
        daemon.run(until: instant("2026-06-01T12:00:02Z"))
        #expect(daemon.posts.count == 1)
        #expect(bringBacks(daemon.actions).isEmpty)
        daemon.run(until: instant("2026-06-01T12:00:03Z"))
        #expect(bringBacks(daemon.actions).count == 1)
    }

    @Test("A return before the three seconds cancels bringing the day back")
    func returnCancels() {
        var daemon = VirtualDaemon(self.home(bringBack: true), now: instant("2026-06-01T08:00:00Z"), display: .away)
        daemon.run(until: instant("2026-06-01T12:00:01Z"))
        daemon.send(.display(.foreground))
        daemon.run(until: instant("2026-06-01T12:00:10Z"))
        #expect(bringBacks(daemon.actions).isEmpty)
    }

    @Test("Off by default: no bring-back without the setting, but a click on the call brings the day back")
    func offByDefaultButClickWorks() {
        var daemon = VirtualDaemon(self.home(bringBack: false), now: instant("2026-06-01T08:00:00Z"), display: .away)
        daemon.run(until: instant("2026-06-01T12:00:10Z"))
        #expect(bringBacks(daemon.actions).isEmpty)
        let id = daemon.machine.persisted.delivered.first?.notificationId ?? 0
        daemon.send(.clicked(notificationId: id))
        #expect(bringBacks(daemon.actions) == ["she clicked the call"])
    }

    @Test("The bell plays with each call while the chime is on, and never when it is off")
    func chimeFollowsTheSetting() {
        var ringing = VirtualDaemon(self.home(bringBack: false), now: instant("2026-06-01T08:00:00Z"), display: .away)
        ringing.run(until: instant("2026-06-01T18:30:00Z"))
        #expect(ringing.actions.filter { $0 == .chime }.count == 2)
        var silent = VirtualDaemon(
            self.home(bringBack: false, chime: .off), now: instant("2026-06-01T08:00:00Z"), display: .away)
        silent.run(until: instant("2026-06-01T18:30:00Z"))
        #expect(silent.posts.count == 2)
        #expect(!silent.actions.contains(.chime))
    }

    @Test("The bell is a real sound: a WAV of about two seconds that starts softly and dies away")
    func bellIsARealSound() {
        let wav = Bell.wav()
        #expect(Array(wav[0..<4]) == Array("RIFF".utf8))
        #expect(Array(wav[8..<16]) == Array("WAVEfmt ".utf8))
        let samples = stride(from: 44, to: wav.count - 1, by: 2).map {
            Int16(bitPattern: UInt16(wav[$0]) | UInt16(wav[$0 + 1]) << 8)
        }
        #expect(samples.count == 79_380)
        func loudness(_ range: Range<Int>) -> Int { samples[range].map { abs(Int($0)) }.max() ?? 0 }
        // Soft attack, a clear peak at a third of full scale, and a tail that fades.
        #expect(loudness(0..<20) < 2_000)
        #expect((10_000...11_000).contains(loudness(0..<4_410)))
        #expect(loudness(70_000..<79_380) < loudness(0..<4_410) / 10)
    }
}
