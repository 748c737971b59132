// The readable form of a plan: one block a local day, one row a start, columns aligned.
// Labels are never truncated; what a terminal acts on is shown escaped (`printable`) so one
// label or heading cannot break the table or the terminal.

import DaysomeCore

/// Renders plans as text.
enum PlanTable {
    static func render(_ plan: Plan, zone: Zone) -> String {
        let fromLocal = zone.local(plan.from)
        let untilLocal = zone.local(plan.until)
        var text = "\(plan.timeZone): from \(describe(fromLocal)) to \(describe(untilLocal)), "
        text += plan.starts.count == 1 ? "1 start\n" : "\(plan.starts.count) starts\n"
        if let reason = plan.notLaidReason {
            return text + "Nothing is laid: \(reason).\n"
        }
        if plan.starts.isEmpty { return text + "No item with its sound on starts in this window.\n" }
        let header = ["TIME", "TITLE", "BODY", "UNTIL", "HEADING"]
        var currentDate: LocalDate?
        var blocks: [(LocalDate, [[String]])] = []
        for start in plan.starts {
            let expiry = zone.local(start.expiresAt)
            var until = expiry.clockTime.description
            if expiry.date != start.local.date { until += " " + shortDate(expiry.date) }
            var time = start.local.clockTime.description + " " + formatOffset(start.local.offset)
            if let dst = start.dst { time += " (\(dst.rawValue))" }
            let row = [time, printable(start.title), printable(start.body), until, printable(start.heading)]
            if start.local.date != currentDate {
                blocks.append((start.local.date, []))
                currentDate = start.local.date
            }
            blocks[blocks.count - 1].1.append(row)
        }
        let allRows = [header] + blocks.flatMap(\.1)
        let widths = (0..<header.count).map { column in allRows.map { columns($0[column]) }.max() ?? 0 }
        func line(_ row: [String]) -> String {
            var out = "  "
            for (column, cell) in row.enumerated() {
                out += cell
                if column < row.count - 1 { out += String(repeating: " ", count: widths[column] - columns(cell) + 2) }
            }
            return out + "\n"
        }
        text += "\n" + line(header)
        for (date, rows) in blocks {
            text += "\(date.weekday.englishName) \(date.isoString)\n"
            for row in rows { text += line(row) }
        }
        return text
    }

    private static func describe(_ local: LocalDateTime) -> String {
        "\(local.date.isoString) \(formatClockSeconds(local)) \(formatOffset(local.offset))"
    }

    private static func formatClockSeconds(_ local: LocalDateTime) -> String {
        let s = local.secondOfDay
        let text = local.clockTime.description
        return s % 60 == 0 ? text : text + ":" + (s % 60 < 10 ? "0" : "") + String(s % 60)
    }

    private static func shortDate(_ date: LocalDate) -> String {
        String(date.weekday.englishName.prefix(3)) + " " + date.isoString
    }
}

/// Text with what a terminal acts on escaped (`TerminalText`: C0, C1, DEL, U+2028, U+2029 and
/// the bidirectional controls), a newline as `\n`.
func printable(_ text: String) -> String {
    var out = ""
    for scalar in text.unicodeScalars {
        if scalar == "\n" {
            out += "\\n"
        } else if TerminalText.actsOn(scalar) {
            out += TerminalText.escape(scalar)
        } else {
            out.unicodeScalars.append(scalar)
        }
    }
    return out
}

/// How many terminal columns a text takes: two for a character of the East Asian wide scripts
/// (kanji, kana, hangul, fullwidth forms: a Japanese title takes twice its length), one for any
/// other character, so the table stays aligned in the family's script.
func columns(_ text: String) -> Int {
    text.reduce(0) { total, character in
        guard let first = character.unicodeScalars.first?.value else { return total }
        let wide =
            (0x1100...0x115F).contains(first) || (0x2E80...0x303E).contains(first)
            || (0x3041...0x33FF).contains(first) || (0x3400...0x4DBF).contains(first)
            || (0x4E00...0x9FFF).contains(first) || (0xA000...0xA4CF).contains(first)
            || (0xAC00...0xD7A3).contains(first) || (0xF900...0xFAFF).contains(first)
            || (0xFE30...0xFE4F).contains(first) || (0xFF00...0xFF60).contains(first)
            || (0xFFE0...0xFFE6).contains(first) || (0x20000...0x3FFFD).contains(first)
        return total + (wide ? 2 : 1)
    }
}
