// The display state file's unusable line as `status` shows it: capped, so a 4 KiB blob never fills
// every status, and without the newline every writer ends its line with.

import DaysomeCore
import Testing

@Suite struct DisplayFileProblemTests {
    @Test func anUnusableDisplayLineIsShownWithoutItsNewlineAndCappedAtFortyCharacters() {
        #expect(DisplayFileProblem.shownLine(Array("Foreground\n".utf8)) == "Foreground")
        #expect(DisplayFileProblem.shownLine([0xFF, 0x41]) == "\u{FFFD}A")
        let long = DisplayFileProblem.shownLine(Array(String(repeating: "é", count: 500).utf8))
        #expect(long == String(repeating: "é", count: 40) + "…")
        #expect(DisplayFileProblem.shownLine([]) == "")
    }
}
