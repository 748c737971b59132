// Five households in the family's own language, each planned for a known week (from Saturday
// 2026-10-24 12:00 local): the heading, title and body of each call, as the display would say
// them. German compounds, French and Polish word order, Arabic right to left with the clock in
// the household's 12-hour style, Japanese without spaces.

import DaysomeCore
import Testing

/// What one call says: its local time, heading, title and body.
private struct Said: Equatable, CustomStringConvertible {
    let local: String
    let heading: String
    let title: String
    let body: String

    init(_ local: String, _ heading: String, _ title: String, _ body: String) {
        (self.local, self.heading, self.title, self.body) = (local, heading, title, body)
    }

    init(_ start: Start) {
        self.init(
            start.local.date.isoString + " " + start.local.clockTime.description, start.heading, start.title,
            start.body)
    }

    var description: String { "\(self.local) | \(self.heading) | \(self.title) | \(self.body)" }
}

/// The week of a fixture from Saturday 2026-10-24 12:00 local, which must load without a problem.
private func week(_ name: String) throws -> [Start] {
    let load = loadFixture("households/\(name).json")
    #expect(load.problems.isEmpty, "\(load.problems)")
    #expect(load.household.words != .english)
    let from = try #require(TimeParsing.instant("2026-10-24T12:00", zone: load.household.zone))
    let plan = Planner.plan(load.household, from: from)
    // Saturday from noon: 4 calls; Sunday to Friday: 5 a day; Saturday morning: breakfast; Monday: the visitor.
    #expect(plan.starts.count == 4 + 6 * 5 + 1 + 1)
    return plan.starts
}

/// Saturday's four calls, Sunday's breakfast and Monday's visitor.
private func knownCalls(_ starts: [Start]) -> [Said] {
    Array(starts.prefix(5).map(Said.init))
        + starts.filter { $0.local.date.isoString == "2026-10-26" }.prefix(2).map(Said.init)
}

@Suite("Calls in the family's own language")
struct FamilyLanguageFixtureTests {
    @Test("German: Samstagnachmittag, a compound heading, and Mittagessen und Tabletten")
    func german() throws {
        #expect(
            knownCalls(try week("german")) == [
                Said("2026-10-24 13:00", "Samstagnachmittag", "Mittagessen und Tabletten", "Linsensuppe"),
                Said("2026-10-24 16:00", "Samstagnachmittag", "Etwas trinken", "16:00"),
                Said("2026-10-24 19:30", "Samstagabend", "Abendbrot, Tabletten und Wasser", "Brot und Käse"),
                Said("2026-10-24 21:30", "Samstagnacht", "Schlafenszeit", "21:30"),
                Said("2026-10-25 08:30", "Sonntagmorgen", "Frühstück", "08:30"),
                Said("2026-10-26 08:30", "Montagmorgen", "Frühstück", "08:30"),
                Said("2026-10-26 11:00", "Montagmorgen", "Putzhilfe", "Frau Weber"),
            ])
    }

    @Test("French: Samedi après-midi, and Dîner, Comprimés et Tisane")
    func french() throws {
        #expect(
            knownCalls(try week("french")) == [
                Said("2026-10-24 13:00", "Samedi après-midi", "Déjeuner et Comprimés", "Soupe de légumes"),
                Said("2026-10-24 16:00", "Samedi après-midi", "Un verre d'eau", "16:00"),
                Said("2026-10-24 19:30", "Samedi soir", "Dîner, Comprimés et Tisane", "Omelette aux fines herbes"),
                Said("2026-10-24 21:30", "Samedi nuit", "Au lit", "21:30"),
                Said("2026-10-25 08:30", "Dimanche matin", "Petit déjeuner", "08:30"),
                Said("2026-10-26 08:30", "Lundi matin", "Petit déjeuner", "08:30"),
                Said("2026-10-26 11:00", "Lundi matin", "Aide ménagère", "Mme Martin"),
            ])
    }

    @Test("Polish, in England: Sobota po południu, and Obiad, tabletki i herbata")
    func polish() throws {
        #expect(
            knownCalls(try week("polish")) == [
                Said("2026-10-24 13:00", "Sobota po południu", "Obiad, tabletki i herbata", "Zupa pomidorowa"),
                Said("2026-10-24 16:00", "Sobota po południu", "Coś do picia", "16:00"),
                Said("2026-10-24 19:30", "Sobota wieczorem", "Kolacja i tabletki", "Kanapki z serem"),
                Said("2026-10-24 21:30", "Sobota w nocy", "Pora spać", "21:30"),
                Said("2026-10-25 08:30", "Niedziela rano", "Śniadanie", "08:30"),
                Said("2026-10-26 08:30", "Poniedziałek rano", "Śniadanie", "08:30"),
                Said("2026-10-26 11:00", "Poniedziałek rano", "Sprzątanie", "Pani Ania"),
            ])
    }

    @Test("Arabic, right to left: السبت بعد الظهر, and the body's clock time in the household's style")
    func arabic() throws {
        let starts = try week("arabic")
        #expect(
            knownCalls(starts) == [
                Said("2026-10-24 13:00", "السبت بعد الظهر", "الغداء والدواء", "شوربة عدس"),
                Said("2026-10-24 16:00", "السبت بعد الظهر", "مشروب", "4:00 م"),
                Said("2026-10-24 19:30", "السبت مساءً", "العشاء، الدواء وشاي", "خبز وجبن"),
                Said("2026-10-24 21:30", "السبت ليلًا", "وقت النوم", "9:30 م"),
                Said("2026-10-25 08:30", "الأحد صباحًا", "الفطور", "8:30 ص"),
                Said("2026-10-26 08:30", "الاثنين صباحًا", "الفطور", "8:30 ص"),
                Said("2026-10-26 11:00", "الاثنين صباحًا", "عاملة التنظيف", "فاطمة"),
            ])
        // The daemon adds no direction marks of its own: the family's text is the whole text.
        let marks: ClosedRange<UInt32> = 0x200E...0x200F
        for start in starts {
            for text in [start.heading, start.title, start.body] {
                #expect(
                    !text.unicodeScalars.contains { marks.contains($0.value) || (0x202A...0x2069).contains($0.value) })
            }
        }
    }

    @Test("Japanese, no spaces between words: 土曜日の午後, 晩ご飯、薬、お茶 and 午後4:00")
    func japanese() throws {
        let starts = try week("japanese")
        #expect(
            knownCalls(starts) == [
                Said("2026-10-24 13:00", "土曜日の午後", "昼ご飯と薬", "うどん"),
                Said("2026-10-24 16:00", "土曜日の午後", "水分補給", "午後4:00"),
                Said("2026-10-24 19:30", "土曜日の夕方", "晩ご飯、薬、お茶", "焼き魚"),
                Said("2026-10-24 21:30", "土曜日の夜", "寝る時間", "午後9:30"),
                Said("2026-10-25 08:30", "日曜日の朝", "朝ご飯", "午前8:30"),
                Said("2026-10-26 08:30", "月曜日の朝", "朝ご飯", "午前8:30"),
                Said("2026-10-26 11:00", "月曜日の朝", "ヘルパーさん", "田中さん"),
            ])
        for start in starts {
            for text in [start.heading, start.title, start.body] { #expect(!text.contains(" "), "\(text)") }
        }
    }
}
