// The plan table in the family's script: a Japanese title takes two terminal columns a
// character, and the columns after it still line up.

import DaysomeCLI
import Testing

@Suite("plan's table in a wide script")
struct PlanTableWidthTests {
    @Test("A Japanese week's table stays aligned: every heading starts at the same terminal column")
    func japaneseColumnsLineUp() {
        let output = ctl([
            "plan", "--household", fixturePath("households/japanese.json"), "--from", "2026-10-24T12:00",
        ])
        #expect(output.status == .success)
        let rows = output.stdout.split(separator: "\n").filter { $0.hasPrefix("  ") && !$0.hasPrefix("  TIME") }
        #expect(rows.count == 36)
        // Kanji, kana and the ideographic comma (all at U+3000 and above here) take two columns.
        func width(_ text: Substring) -> Int {
            text.reduce(0) { $0 + (($1.unicodeScalars.first?.value ?? 0) >= 0x3000 ? 2 : 1) }
        }
        let starts = Set(
            rows.map { row in
                let heading = row.split(separator: " ").last ?? ""
                return width(row.dropLast(heading.count))
            })
        #expect(starts.count == 1, "\(starts)")
    }
}
