// The output filter's byte scan against its scalar rule, for every scalar below U+3000 and every
// place one can stand: the scan decides alone whether a tool's output is passed through unread.

import Testing

@testable import DaysomeCore

@Suite("Controls in a tool's output")
struct TerminalTextTests {
    @Test("The byte scan finds a control exactly where the scalar rule does, at the start, middle and end")
    func theByteScanFindsEveryControlTheScalarRuleFinds() {
        for value in UInt32(0)..<0x3000 {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let acts = TerminalText.isControl(scalar) && scalar != "\n" && scalar != "\t"
            for text in [String(scalar), "a\(scalar)", "\(scalar)b", "Tea \(scalar) at five"] {
                let clean = Array(text.utf8).withUnsafeBufferPointer { TerminalText.holdsNoControl($0) }
                #expect(clean == !acts, "U+\(String(value, radix: 16)) in \(text.debugDescription)")
            }
        }
    }

    @Test("Text with no control is passed through as it is; one with a control is escaped")
    func inertEscapesOnlyWhatActs() {
        let plain = "{\n\t\"title\": \"Mittagessen mit Käthe — Tee um fünf\"\n}\n"
        #expect(TerminalText.inert(plain) == plain)
        #expect(TerminalText.inert("a\u{9B}2J\u{2028}b\u{7F}") == "a\\u{9b}2J\\u{2028}b\\u{7f}")
    }
}
