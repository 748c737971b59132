// A week on one page, as SVG: one row a local day, local clock hours across (00:00 to 24:00),
// each call a mark with its title and a bar for the life of its card, the display's away and
// on-screen periods shaded, and a day when the clocks change marked and labelled. Pure: a model
// in, a String out. Labels are the family's text: every one is escaped, never truncated.
// Colours are warm (an off-white ground, sand, ochre, browns, sage and olive greens): nothing
// that means anything is blue, and nothing is red.

import DaysomeCore

/// The picture of a replayed (or laid, or planned) span.
public struct WeekPicture: Sendable {
    /// What became of a call.
    public enum CardState: Sendable, Equatable {
        /// Posted: a notification was shown.
        case delivered
        /// Laid or planned and not yet due.
        case planned
        /// Due, and not shown (rule 2 or rule 1 decided).
        case dropped
    }

    /// How a card's life ended.
    public enum CardEnd: Sendable, Equatable {
        /// Closed when the card would leave the display.
        case expired
        /// Withdrawn because the display came back.
        case withdrawn
        /// Still on at the end of the picture, or not yet shown.
        case open
    }

    /// One call.
    public struct Card: Sendable, Equatable {
        public var at: Instant
        public var title: String
        /// When its card left (or would leave) the display.
        public var until: Instant
        public var state: CardState
        public var end: CardEnd

        public init(at: Instant, title: String, until: Instant, state: CardState, end: CardEnd) {
            self.at = at
            self.title = title
            self.until = until
            self.state = state
            self.end = end
        }
    }

    /// A labelled instant, such as a new lay.
    public struct Marker: Sendable, Equatable {
        public var at: Instant
        public var text: String

        public init(at: Instant, text: String) {
            self.at = at
            self.text = text
        }
    }

    /// The first line: what this is a picture of.
    public var heading: String
    /// The second line: the span and the counts.
    public var summary: String
    public var zone: Zone
    public var from: Instant
    public var to: Instant
    /// The display's periods; empty when unknown (a plan).
    public var display: [DisplayPeriod]
    public var cards: [Card]
    public var markers: [Marker]

    public init(
        heading: String, summary: String, zone: Zone, from: Instant, to: Instant, display: [DisplayPeriod] = [],
        cards: [Card], markers: [Marker] = []
    ) {
        self.heading = heading
        self.summary = summary
        self.zone = zone
        self.from = from
        self.to = max(from, to)
        self.display = display
        self.cards = cards
        self.markers = markers
    }
}

// MARK: Models from the core

extension WeekPicture {
    /// The picture of a replay: each delivered call to its expiry or withdrawal, drops as hollow marks.
    public static func replay(_ result: ReplayResult, zone: Zone, source: String) -> WeekPicture {
        var cards: [Card] = []
        var ends: [DeliveryKey: (Instant, CardEnd)] = [:]
        for event in result.events {
            guard let at = event.at else { continue }
            let key = DeliveryKey(lay: event.lay, at: at)
            if event.kind == .expired && ends[key] == nil { ends[key] = (event.time, .expired) }
            if event.kind == .withdrawn && ends[key] == nil { ends[key] = (event.time, .withdrawn) }
        }
        for event in result.events {
            guard let at = event.at else { continue }
            let title = event.start?.title ?? event.itemIds.joined(separator: ", ")
            switch event.kind {
            case .delivered:
                let end = ends[DeliveryKey(lay: event.lay, at: at)]
                let until = end?.0 ?? min(event.start?.expiresAt ?? result.to, result.to)
                cards.append(Card(at: at, title: title, until: until, state: .delivered, end: end?.1 ?? .open))
            case .dropped:
                cards.append(Card(at: at, title: title, until: at, state: .dropped, end: .open))
            default:
                break
            }
        }
        let markers = result.events(.laid).map { Marker(at: $0.time, text: "lay \($0.lay)") }
        let delivered = result.events(.delivered).count
        let lays = result.events(.laid).count
        var summary = "\(describeLocal(result.from, zone)) → \(describeLocal(result.to, zone))"
        summary += " · " + (lays == 1 ? "1 lay" : "\(lays) lays")
        summary += " · " + (delivered == 1 ? "1 call" : "\(delivered) calls")
        summary += ", \(result.events(.expired).count) expired, \(result.events(.withdrawn).count) withdrawn"
        summary += ", \(result.events(.dropped).count) dropped"
        if result.display.count == 1 {
            summary +=
                result.display[0].state == .away ? " · display away throughout" : " · display on screen throughout"
        }
        return WeekPicture(
            heading: "Daysome replay · \(source) · \(zone.name)", summary: summary, zone: zone, from: result.from,
            to: result.to, display: result.display, cards: cards, markers: markers)
    }

    /// The picture of a plan: every start it would lay, to its expiry.
    public static func plan(_ plan: Plan, zone: Zone, source: String) -> WeekPicture {
        let cards = plan.starts.map {
            Card(at: $0.at, title: $0.title, until: $0.expiresAt, state: .planned, end: .open)
        }
        let summary =
            "\(describeLocal(plan.from, zone)) → \(describeLocal(plan.until, zone)) · \(plan.starts.count) starts laid"
        return WeekPicture(
            heading: "Daysome plan · \(source) · \(zone.name)", summary: summary, zone: zone, from: plan.from,
            to: plan.until, cards: cards)
    }
}

/// `2026-10-25 13:00 +00:00` (seconds only when there are some).
func describeLocal(_ instant: Instant, _ zone: Zone) -> String {
    let local = zone.local(instant)
    var text = local.date.isoString + " " + local.clockTime.description
    let seconds = local.secondOfDay % 60
    if seconds != 0 { text += seconds < 10 ? ":0\(seconds)" : ":\(seconds)" }
    return text + " " + formatOffset(local.offset)
}

// MARK: Layout

/// One local day of the picture.
private struct DayRow {
    let date: LocalDate
    let start: Instant
    let end: Instant
    /// The clock changes during the day.
    let transitions: [ZoneTransition]
    var top: Double = 0
    var height: Double = 0
}

/// A label placed in lanes below the bars.
private struct PlacedLabel {
    let card: WeekPicture.Card
    let x: Double
    /// The first lane; a wrapped label takes one lane a line.
    let lane: Int
    let lines: [String]
    let anchorEnd: Bool

    var lastLane: Int { self.lane + self.lines.count - 1 }
}

/// The fixed geometry.
private enum Geometry {
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
private enum Palette {
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
    /// The picture as an SVG document (no XML declaration: it starts with `<svg`).
    public func svg() -> String {
        var rows = self.rows()
        let labels = rows.indices.map { self.placeLabels(row: rows[$0]) }
        let chartTop = 136.0
        var y = chartTop
        for index in rows.indices {
            let lanes = (labels[index].map(\.lastLane).max() ?? 0) + 1
            rows[index].top = y
            rows[index].height = max(
                Geometry.minimumRow, Geometry.firstLane + Double(lanes - 1) * Geometry.laneHeight + 13)
            y += rows[index].height + Geometry.rowGap
        }
        let chartBottom = y - Geometry.rowGap
        let height = chartBottom + 64

        var out = SVGWriter()
        out.open(
            "svg",
            [
                ("xmlns", "http://www.w3.org/2000/svg"), ("width", number(Geometry.width)), ("height", number(height)),
                ("viewBox", "0 0 \(number(Geometry.width)) \(number(height))"), ("role", "img"),
                ("font-family", "'DejaVu Sans', 'Noto Sans', 'Liberation Sans', Arial, sans-serif"),
            ])
        out.element("title", text: self.heading + ". " + self.summary)
        out.raw(
            """
            <defs>
            <pattern id="dst" width="7" height="7" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">\
            <rect width="7" height="7" fill="\(Palette.dstGround)"/>\
            <rect width="2.2" height="7" fill="\(Palette.dstLine)"/></pattern>
            <pattern id="outside" width="9" height="9" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">\
            <rect width="9" height="9" fill="\(Palette.outside)"/>\
            <rect width="1.2" height="9" fill="\(Palette.outsideLine)"/></pattern>
            </defs>

            """)
        out.rect(x: 0, y: 0, width: Geometry.width, height: height, fill: Palette.ground)
        out.text(self.heading, x: 24, y: 38, size: 19, fill: Palette.text, weight: "bold")
        out.text(self.summary, x: 24, y: 62, size: 13, fill: Palette.secondary)
        self.legend(&out, y: 90)
        self.hourAxis(&out, y: chartTop - 10)
        self.hourAxis(&out, y: chartBottom + 22)
        for (index, row) in rows.enumerated() {
            self.draw(row: row, labels: labels[index], into: &out)
        }
        out.text(
            "Hours are local clock time in \(self.zone.name); a day when the clocks change is marked.", x: 24,
            y: height - 14, size: 11.5, fill: Palette.muted)
        out.close("svg")
        return out.text
    }

    /// The local days the span covers, each with its clock changes.
    private func rows() -> [DayRow] {
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
    private func segments(_ a: Instant, _ b: Instant, rows: [DayRow]) -> [(row: Int, x0: Double, x1: Double)] {
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
    private func second(of instant: Instant, row: DayRow, endOfPiece: Bool) -> Double {
        let offset = self.zone.rules.offset(at: endOfPiece ? instant.seconds - 1 : instant.seconds)
        let wall = instant.seconds + Int64(offset) - row.date.daysSinceEpoch * 86_400
        return Double(min(max(wall, 0), 86_400))
    }

    private func x(_ second: Double) -> Double { Geometry.gutter + Geometry.chartWidth * second / 86_400 }

    private func rowIndex(of instant: Instant, rows: [DayRow]) -> Int? {
        rows.firstIndex { $0.start <= instant && instant < $0.end } ?? (instant == self.to ? rows.indices.last : nil)
    }

    /// Places a row's labels in lanes below the bars, latest first, so that no label covers
    /// another and no leader crosses a label. A long label wraps onto lanes of its own.
    private func placeLabels(row: DayRow) -> [PlacedLabel] {
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

    // MARK: Drawing

    private func draw(row: DayRow, labels: [PlacedLabel], into out: inout SVGWriter) {
        let top = row.top
        let height = row.height
        let rows = [row]
        // The ground of the row: outside the span hatched, then the display's periods.
        out.rect(
            x: self.x(0), y: top, width: Geometry.chartWidth, height: height, fill: "url(#outside)",
            stroke: Palette.rowFrame)
        for piece in self.segments(self.from, self.to, rows: rows) {
            out.rect(
                x: self.x(piece.x0), y: top, width: self.x(piece.x1) - self.x(piece.x0), height: height,
                fill: Palette.ground)
        }
        for period in self.display {
            let fill = period.state == .away ? Palette.away : Palette.onScreen
            for piece in self.segments(period.from, period.to, rows: rows) {
                out.rect(
                    x: self.x(piece.x0), y: top, width: self.x(piece.x1) - self.x(piece.x0), height: height, fill: fill)
            }
        }
        // Name a stretch on screen where there is room to.
        for period in self.display where period.state == .foreground {
            for piece in self.segments(period.from, period.to, rows: rows)
            where self.x(piece.x1) - self.x(piece.x0) >= 70 {
                out.text(
                    "on screen", x: self.x(piece.x0) + 5, y: top + height - 8, size: 11, fill: Palette.lay,
                    italic: true)
            }
        }
        // Hours.
        for hour in 1..<24 {
            let x = self.x(Double(hour) * 3600)
            out.line(
                x1: x, y1: top, x2: x, y2: top + height, stroke: hour % 6 == 0 ? Palette.quarterDay : Palette.hour,
                width: hour % 6 == 0 ? 1.2 : 0.8)
        }
        // The clock change: the hour that happens twice, or never.
        for change in row.transitions {
            let before = self.second(of: Instant(seconds: change.at), row: row, endOfPiece: true)
            let after = self.second(of: Instant(seconds: change.at), row: row, endOfPiece: false)
            guard before != after else { continue }
            out.rect(
                x: self.x(min(before, after)), y: top + 1, width: abs(self.x(after) - self.x(before)),
                height: height - 2, fill: "url(#dst)", opacity: 0.75)
            let span = "\(clockText(min(before, after)))–\(clockText(max(before, after)))"
            out.text(
                after < before ? "\(span) twice" : "no \(span)", x: self.x(max(before, after)) + 5, y: top + 13,
                size: 11, fill: Palette.dstText, weight: "bold")
        }
        out.rect(
            x: self.x(0), y: top, width: Geometry.chartWidth, height: height, fill: "none", stroke: Palette.rowFrame)
        // The day, and the clock change in words.
        let date = row.date
        out.text(date.weekday.englishName, x: 24, y: top + 22, size: 15, fill: Palette.text, weight: "bold")
        out.text(
            "\(date.day) \(monthNames[date.month - 1]) \(date.year)", x: 24, y: top + 40, size: 12,
            fill: Palette.secondary)
        var lineY = top + 58
        for change in row.transitions {
            for line in clockChangeWords(change) {
                out.text(line, x: 24, y: lineY, size: 11.5, fill: Palette.dstText, weight: "bold")
                lineY += 14
            }
        }
        // New lays.
        for marker in self.markers where row.start <= marker.at && marker.at < row.end {
            let x = self.x(self.second(of: marker.at, row: row, endOfPiece: false))
            out.line(
                x1: x, y1: top + 2, x2: x, y2: top + Geometry.barTop + Geometry.barHeight + 6, stroke: Palette.lay,
                width: 1.6, dash: "4 2")
            out.text(marker.text, x: x + 4, y: top + 12, size: 11, fill: Palette.lay, weight: "bold")
        }
        // Each card's life, alternating two tones so that cards end to end stay apart; then the marks.
        let shown = self.cards.filter { $0.state != .dropped }.sorted { $0.at < $1.at }
        for (index, card) in shown.enumerated() {
            for piece in self.segments(card.at, card.until, rows: rows) {
                let width = max(self.x(piece.x1) - self.x(piece.x0) - 1.5, 2)
                let delivered = card.state == .delivered
                let fill =
                    delivered
                    ? (index % 2 == 0 ? Palette.bar : Palette.barLight)
                    : (index % 2 == 0 ? Palette.planned : Palette.plannedLight)
                out.rect(
                    x: self.x(piece.x0), y: top + Geometry.barTop, width: width, height: Geometry.barHeight,
                    fill: fill, stroke: delivered ? Palette.barEdge : Palette.plannedEdge, radius: 3)
                if card.end == .withdrawn, piece.x1 == self.segments(card.at, card.until, rows: rows).last?.x1 {
                    let end = self.x(piece.x1)
                    out.rect(
                        x: end - 1.5, y: top + Geometry.barTop - 4, width: 4, height: Geometry.barHeight + 8,
                        fill: Palette.withdrawn, radius: 1.5)
                }
            }
        }
        let middle = top + Geometry.barTop + Geometry.barHeight / 2
        for label in labels {
            let baseline = top + Geometry.firstLane + Double(label.lane) * Geometry.laneHeight
            out.line(
                x1: label.x, y1: middle + 5, x2: label.x, y2: baseline + 3, stroke: Palette.leader, width: 1)
            let dropped = label.card.state == .dropped
            if dropped {
                out.circle(x: label.x, y: middle, r: 4.5, fill: Palette.ground, stroke: Palette.muted, width: 1.8)
            } else {
                out.circle(x: label.x, y: middle, r: 4.5, fill: Palette.mark, stroke: Palette.ground, width: 1.5)
            }
            for (index, line) in label.lines.enumerated() {
                out.text(
                    line, x: label.anchorEnd ? label.x - 4 : label.x + 4,
                    y: baseline + Double(index) * Geometry.laneHeight, size: Geometry.labelSize,
                    fill: dropped ? Palette.muted : Palette.text, anchor: label.anchorEnd ? "end" : nil, italic: dropped
                )
            }
        }
    }

    private func hourAxis(_ out: inout SVGWriter, y: Double) {
        for hour in stride(from: 0, through: 24, by: 2) {
            let label = hour < 10 ? "0\(hour):00" : "\(hour):00"
            out.text(label, x: self.x(Double(hour) * 3600), y: y, size: 11, fill: Palette.secondary, anchor: "middle")
        }
    }

    private func legend(_ out: inout SVGWriter, y: Double) {
        var x = 24.0
        func item(_ text: String, _ draw: (inout SVGWriter, Double) -> Void) {
            draw(&out, x)
            out.text(text, x: x + 26, y: y + 4, size: 12, fill: Palette.secondary)
            x += 26 + textWidth(text, size: 12) + 22
        }
        if !self.display.isEmpty {
            item("display away: calls may come") { out, x in
                out.rect(x: x, y: y - 8, width: 20, height: 14, fill: Palette.away, stroke: Palette.rowFrame)
            }
            item("day display on screen: no calls") { out, x in
                out.rect(x: x, y: y - 8, width: 20, height: 14, fill: Palette.onScreen, stroke: Palette.rowFrame)
            }
        }
        if self.cards.contains(where: { $0.state == .delivered }) {
            item("a call, and its card until it leaves") { out, x in
                out.rect(
                    x: x, y: y - 5, width: 20, height: 9, fill: Palette.bar, stroke: Palette.barEdge, radius: 3)
                out.circle(x: x + 2, y: y - 0.5, r: 4, fill: Palette.mark, stroke: Palette.ground, width: 1.2)
            }
        }
        if self.cards.contains(where: { $0.state == .planned }) {
            item("laid, not yet due") { out, x in
                out.rect(
                    x: x, y: y - 5, width: 20, height: 9, fill: Palette.planned, stroke: Palette.plannedEdge, radius: 3)
                out.circle(x: x + 2, y: y - 0.5, r: 4, fill: Palette.mark, stroke: Palette.ground, width: 1.2)
            }
        }
        if !self.display.isEmpty {
            item("withdrawn: the display came back") { out, x in
                out.rect(x: x, y: y - 5, width: 14, height: 9, fill: Palette.bar, stroke: Palette.barEdge, radius: 3)
                out.rect(x: x + 13, y: y - 9, width: 4, height: 17, fill: Palette.withdrawn, radius: 1.5)
            }
            item("due, not shown") { out, x in
                out.circle(x: x + 10, y: y - 0.5, r: 4.5, fill: Palette.ground, stroke: Palette.muted, width: 1.8)
            }
        }
        item("the clocks change") { out, x in
            out.rect(x: x, y: y - 8, width: 20, height: 14, fill: "url(#dst)", stroke: Palette.rowFrame)
        }
    }
}

/// `01:00` for a second of the day.
private func clockText(_ second: Double) -> String {
    let value = Int(second)
    guard value < 86_400 else { return "24:00" }
    return ClockTime(hour: value / 3600, minute: value / 60 % 60)?.description ?? "?"
}

/// A card's label: its title, and for a call that was not shown, why not in two words.
private func labelText(_ card: WeekPicture.Card) -> String {
    card.state == .dropped ? card.title + " (not shown)" : card.title
}

private let monthNames = [
    "January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November",
    "December",
]

/// `clocks go back` / `02:00 → 01:00`: a clock change in the day's own words.
private func clockChangeWords(_ change: ZoneTransition) -> [String] {
    let delta = Int64(change.offsetAfter) - Int64(change.offsetBefore)
    let way = delta > 0 ? "clocks go forward" : "clocks go back"
    let wallBefore = change.at + Int64(change.offsetBefore)
    let wallAfter = change.at + Int64(change.offsetAfter)
    guard abs(delta) < 86_400 else { return [way, "by \(abs(delta) / 3600) hours"] }
    func clock(_ wall: Int64) -> String {
        let second = ((wall % 86_400) + 86_400) % 86_400
        return ClockTime(hour: Int(second / 3600), minute: Int(second / 60 % 60))?.description ?? "?"
    }
    return [way, "\(clock(wallBefore)) → \(clock(wallAfter))"]
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

/// A number for an attribute: at most one decimal, no exponent.
private func number(_ value: Double) -> String {
    let tenths = Int64((value * 10).rounded())
    let sign = tenths < 0 ? "-" : ""
    let magnitude = abs(tenths)
    return magnitude % 10 == 0 ? "\(sign)\(magnitude / 10)" : "\(sign)\(magnitude / 10).\(magnitude % 10)"
}

/// Text as XML character data or an attribute value: markup escaped, characters XML forbids replaced.
func xmlEscaped(_ text: String) -> String {
    var out = ""
    out.reserveCapacity(text.utf8.count)
    for scalar in text.unicodeScalars {
        switch scalar {
        case "&": out += "&amp;"
        case "<": out += "&lt;"
        case ">": out += "&gt;"
        case "\"": out += "&quot;"
        case "'": out += "&apos;"
        case "\n", "\r", "\t": out += " "
        default:
            let value = scalar.value
            if value < 0x20 || value == 0x7F || value == 0xFFFE || value == 0xFFFF {
                out += "\u{FFFD}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
    }
    return out
}

/// Builds SVG text; every attribute value and every text node passes through `xmlEscaped`.
private struct SVGWriter {
    var text = ""

    mutating func raw(_ markup: String) { self.text += markup }

    mutating func open(_ name: String, _ attributes: [(String, String)]) {
        self.text += "<" + name + self.attributes(attributes) + ">\n"
    }

    mutating func close(_ name: String) { self.text += "</\(name)>\n" }

    mutating func element(_ name: String, text: String) {
        self.text += "<\(name)>\(xmlEscaped(text))</\(name)>\n"
    }

    mutating func rect(
        x: Double, y: Double, width: Double, height: Double, fill: String, stroke: String? = nil, radius: Double? = nil,
        opacity: Double? = nil
    ) {
        var list = [("x", number(x)), ("y", number(y)), ("width", number(width)), ("height", number(height))]
        if let radius { list.append(("rx", number(radius))) }
        list.append(("fill", fill))
        if let stroke { list += [("stroke", stroke), ("stroke-width", "1")] }
        if let opacity { list.append(("opacity", number(opacity))) }
        self.text += "<rect" + self.attributes(list) + "/>\n"
    }

    mutating func line(
        x1: Double, y1: Double, x2: Double, y2: Double, stroke: String, width: Double, dash: String? = nil
    ) {
        var list = [
            ("x1", number(x1)), ("y1", number(y1)), ("x2", number(x2)), ("y2", number(y2)), ("stroke", stroke),
            ("stroke-width", number(width)),
        ]
        if let dash { list.append(("stroke-dasharray", dash)) }
        self.text += "<line" + self.attributes(list) + "/>\n"
    }

    mutating func circle(x: Double, y: Double, r: Double, fill: String, stroke: String, width: Double) {
        let list = [
            ("cx", number(x)), ("cy", number(y)), ("r", number(r)), ("fill", fill), ("stroke", stroke),
            ("stroke-width", number(width)),
        ]
        self.text += "<circle" + self.attributes(list) + "/>\n"
    }

    mutating func text(
        _ content: String, x: Double, y: Double, size: Double, fill: String, weight: String? = nil,
        anchor: String? = nil, italic: Bool = false
    ) {
        var list = [("x", number(x)), ("y", number(y)), ("font-size", number(size)), ("fill", fill)]
        if let weight { list.append(("font-weight", weight)) }
        if let anchor { list.append(("text-anchor", anchor)) }
        if italic { list.append(("font-style", "italic")) }
        self.text += "<text" + self.attributes(list) + ">" + xmlEscaped(content) + "</text>\n"
    }

    private func attributes(_ list: [(String, String)]) -> String {
        list.map { " \($0.0)=\"\(xmlEscaped($0.1))\"" }.joined()
    }
}
