// Where things go in a WeekPicture: one row a local day (clock changes included), each call at
// its minute, labels in lanes that never overlap, and the fixed geometry and warm palette.

import DaysomeCore

/// One local day of the picture.
struct DayRow {
    let date: LocalDate
    let start: Instant
    let end: Instant
    /// The clock changes during the day.
    let transitions: [ZoneTransition]
    var top: Double = 0
    var height: Double = 0
}

/// A label placed in lanes below the bars.
struct PlacedLabel {
    let card: WeekPicture.Card
    let x: Double
    /// The first lane; a wrapped label takes one lane a line.
    let lane: Int
    let lines: [String]
    let anchorEnd: Bool

    var lastLane: Int { self.lane + self.lines.count - 1 }
}

/// The fixed geometry.
enum Geometry {
    static let width = 1500.0
    static let gutter = 186.0
    static let right = 28.0
    static let chartWidth = width - gutter - right
    static let barTop = 17.0
    static let barHeight = 12.0
    static let firstLane = 47.0
    static let laneHeight = 17.0
    static let labelSize = 12.5
    /// A label wider than this wraps onto more lines (never truncated).
    static let maxLabelWidth = 430.0
    static let rowGap = 8.0
    static let minimumRow = 78.0
}

/// The palette: warm, calm, never blue, never red.
enum Palette {
    static let ground = "#FBF7F0"
    static let rowFrame = "#E6D8C2"
    static let away = "#F3E6CC"
    static let onScreen = "#E2E9D0"
    static let outside = "#F7F2E9"
    static let outsideLine = "#E8DDCB"
    static let hour = "#E4D5BC"
    static let quarterDay = "#CDB897"
    static let text = "#3A2E22"
    static let secondary = "#6F5D49"
    static let muted = "#8E7C66"
    static let bar = "#D9A24B"
    static let barLight = "#EBC47C"
    static let barEdge = "#B47F2E"
    static let planned = "#F0DBB0"
    static let plannedLight = "#F7EAD0"
    static let plannedEdge = "#C49A52"
    static let mark = "#7B4A1D"
    static let withdrawn = "#5C7D33"
    static let lay = "#5C7D33"
    static let leader = "#BFA47C"
    static let dstGround = "#F7E7C6"
    static let dstLine = "#C08A36"
    static let dstText = "#8A5A17"
}

extension WeekPicture {
    /// The local days the span covers, each with its clock changes.
    func rows() -> [DayRow] {
        var rows: [DayRow] = []
        var date = self.zone.date(of: self.from)
        let last = self.zone.date(of: self.to > self.from ? self.to.adding(seconds: -1) : self.to)
        while date <= last {
            let start = self.zone.startOfDay(date)
            let end = self.zone.startOfDay(date.adding(days: 1))
            if end > start {
                let changes = self.zone.rules.transitions(after: start.seconds - 1, through: end.seconds - 1)
                rows.append(DayRow(date: date, start: start, end: end, transitions: changes))
            }
            date = date.adding(days: 1)
        }
        return rows
    }

    /// The pieces of `[a, b]` on each day row, as local seconds of the day: split at midnight and
    /// at every clock change, so an hour that happens twice is drawn twice, over itself.
    func segments(_ a: Instant, _ b: Instant, rows: [DayRow]) -> [(row: Int, x0: Double, x1: Double)] {
        var pieces: [(row: Int, x0: Double, x1: Double)] = []
        for (index, row) in rows.enumerated() where a < row.end && b > row.start {
            let lower = max(a, row.start)
            let upper = min(b, row.end)
            var cuts = [lower]
            for change in row.transitions where change.at > lower.seconds && change.at < upper.seconds {
                cuts.append(Instant(seconds: change.at))
            }
            cuts.append(upper)
            for piece in 0..<(cuts.count - 1) {
                let x0 = self.second(of: cuts[piece], row: row, endOfPiece: false)
                let x1 =
                    cuts[piece + 1] == row.end ? 86_400 : self.second(of: cuts[piece + 1], row: row, endOfPiece: true)
                pieces.append((index, x0, max(x0, x1)))
            }
        }
        return pieces
    }

    /// The local second of the day of an instant on a row; at the end of a piece, the wall time just before it.
    func second(of instant: Instant, row: DayRow, endOfPiece: Bool) -> Double {
        let offset = self.zone.rules.offset(at: endOfPiece ? instant.seconds - 1 : instant.seconds)
        let wall = instant.seconds + Int64(offset) - row.date.daysSinceEpoch * 86_400
        return Double(min(max(wall, 0), 86_400))
    }

    func x(_ second: Double) -> Double { Geometry.gutter + Geometry.chartWidth * second / 86_400 }

    /// Places a row's labels in lanes below the bars, latest first, so that no label covers
    /// another and no leader crosses a label. A long label wraps onto lanes of its own.
    func placeLabels(row: DayRow) -> [PlacedLabel] {
        let cards = self.cards.filter { row.start <= $0.at && $0.at < row.end }.sorted { $0.at > $1.at }
        var occupied: [[(Double, Double)]] = []
        func free(_ lane: Int, _ left: Double, _ right: Double) -> Bool {
            lane >= occupied.count || !occupied[lane].contains { $0.0 < right + 8 && left < $0.1 + 8 }
        }
        var placed: [PlacedLabel] = []
        for card in cards {
            let x = self.x(self.second(of: card.at, row: row, endOfPiece: false))
            let chartRight = Geometry.width - 6
            // Written to the right of its mark, unless there is little room there.
            let anchorEnd =
                chartRight - x < 160 && textWidth(labelText(card), size: Geometry.labelSize) > chartRight - x
            let room = anchorEnd ? x - Geometry.gutter - 4 : chartRight - x - 4
            let lines = wrap(labelText(card), width: min(Geometry.maxLabelWidth, room), size: Geometry.labelSize)
            let width = lines.map { textWidth($0, size: Geometry.labelSize) }.max() ?? 0
            let left = anchorEnd ? x - 4 - width : x + 4
            var lane = 0
            while true {
                let fits = (lane..<(lane + lines.count)).allSatisfy { free($0, left, left + width) }
                let stemClear = (0..<lane).allSatisfy { free($0, x - 1, x + 1) }
                // Beyond every lane in use a label always fits; its leader then crosses what it must.
                if (fits && stemClear) || lane >= occupied.count { break }
                lane += 1
            }
            while occupied.count < lane + lines.count { occupied.append([]) }
            for used in lane..<(lane + lines.count) { occupied[used].append((left, left + width)) }
            for above in 0..<lane { occupied[above].append((x - 1, x + 1)) }
            placed.append(PlacedLabel(card: card, x: x, lane: lane, lines: lines, anchorEnd: anchorEnd))
        }
        return placed
    }
}

/// A label in lines no wider than `width`, broken between words where it can and inside a word
/// only where one word is wider than a line. Nothing is dropped.
func wrap(_ text: String, width: Double, size: Double) -> [String] {
    let limit = max(width, size * 6)
    guard textWidth(text, size: size) > limit else { return [text] }
    var lines: [String] = []
    var line = ""
    for word in text.split(separator: " ", omittingEmptySubsequences: false).map(String.init) {
        let candidate = line.isEmpty ? word : line + " " + word
        if textWidth(candidate, size: size) <= limit {
            line = candidate
            continue
        }
        if !line.isEmpty { lines.append(line) }
        line = ""
        for character in word {
            if !line.isEmpty && textWidth(line + String(character), size: size) > limit {
                lines.append(line)
                line = ""
            }
            line.append(character)
        }
    }
    if !line.isEmpty || lines.isEmpty { lines.append(line) }
    return lines
}

/// About how wide a line of text is in a sans-serif face: wide enough that labels never collide.
func textWidth(_ text: String, size: Double) -> Double {
    var ems = 0.0
    for character in text {
        guard let scalar = character.unicodeScalars.first else { continue }
        let value = scalar.value
        switch value {
        case 0x200B...0x200F, 0x202A...0x202E, 0x2060...0x2069, 0xFE00...0xFE0F: ems += 0
        case 0x20: ems += 0.33
        case 0x21...0x7E:
            let ascii = Character(scalar)
            if "iljI.,:;'!|".contains(ascii) {
                ems += 0.3
            } else if "ftr()[]{}-".contains(ascii) {
                ems += 0.42
            } else if "mwMW@%".contains(ascii) {
                ems += 0.95
            } else if ascii.isUppercase || ascii.isNumber {
                ems += 0.7
            } else {
                ems += 0.62
            }
        case 0x2E80...: ems += 1.05
        default: ems += 0.66
        }
    }
    return ems * size
}
