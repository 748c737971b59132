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
