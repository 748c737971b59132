// A WeekPicture drawn as SVG: the heading, one row a day with its shading, bars, marks and
// labels, the hour axis and the legend. Every text passes through SVGWriter, escaped.

import DaysomeCore

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

    func draw(row: DayRow, labels: [PlacedLabel], into out: inout SVGWriter) {
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

    func hourAxis(_ out: inout SVGWriter, y: Double) {
        for hour in stride(from: 0, through: 24, by: 2) {
            let label = hour < 10 ? "0\(hour):00" : "\(hour):00"
            out.text(label, x: self.x(Double(hour) * 3600), y: y, size: 11, fill: Palette.secondary, anchor: "middle")
        }
    }

    func legend(_ out: inout SVGWriter, y: Double) {
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
func clockText(_ second: Double) -> String {
    let value = Int(second)
    guard value < 86_400 else { return "24:00" }
    return ClockTime(hour: value / 3600, minute: value / 60 % 60)?.description ?? "?"
}

/// A card's label: its title, and for a call that was not shown, why not in two words.
func labelText(_ card: WeekPicture.Card) -> String {
    card.state == .dropped ? card.title + " (not shown)" : card.title
}

let monthNames = [
    "January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November",
    "December",
]

/// `clocks go back` / `02:00 → 01:00`: a clock change in the day's own words.
func clockChangeWords(_ change: ZoneTransition) -> [String] {
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
