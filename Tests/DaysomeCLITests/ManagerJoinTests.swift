// `pending` on the systemd backend joins the manager's timers with the lay record the daemon
// published. The join is checked here without a manager (SystemdIntegrationTests checks it with
// one): each start the timers hold is listed, with its record's items and title once, a start the
// record lacks is shown and named, and starts of the current lay at one instant keep the record's
// order.

import DaysomeCore
import Testing

@testable import DaysomeCLI

@Suite("pending joins the manager's timers with the lay record")
struct ManagerJoinTests {
    private let now = Instant(seconds: 1_796_000_000)

    private func entry(_ at: Int64, _ title: String) -> QueueSnapshot.Entry {
        QueueSnapshot.Entry(
            lay: 4, at: Instant(seconds: at), local: Instant(seconds: at).rfc3339, itemIds: [title.lowercased()],
            title: title, handle: "")
    }

    /// A timer whose one entry names each of `instants` (as `CalendarSpec` writes them), next
    /// elapsing at the first.
    private func timer(_ name: String, _ instants: [Int64]) -> ManagerTimers.Unit {
        let starts = instants.map { Instant(seconds: $0) }
        let specs = CalendarSpec.specs(covering: starts)
        return ManagerTimers.Unit(
            name: name, activeState: "active",
            entries: specs.map {
                ManagerTimers.Entry(base: "OnCalendar", spec: $0, nextElapse: UInt64(instants[0]) * 1_000_000)
            })
    }

    @Test("Each start the manager holds is listed once, with its record's words; one the record lacks is named")
    func eachStartIsListedOnceWithItsRecord() {
        let a = self.now.seconds + 3_600
        let b = a + 3_600
        let c = b + 3_600
        // Two entries at b: both kept, in the record's order, though the record lists them apart.
        let published = QueueSnapshot(
            backend: "systemd", display: .away, lay: 4, daemonRunning: true, publisher: nil,
            pending: [self.entry(b, "Tea"), self.entry(a, "Lunch"), self.entry(b, "Pills")])
        let timers = ManagerTimers(units: [self.timer("daysome-lay4.timer", [a, b, c])])
        let queue = ManagerQueue.queue(timers, published: published, running: true, now: self.now)
        #expect(queue.pending.map(\.title) == ["Lunch", "Tea", "Pills", "(not in the lay record)"])
        #expect(queue.pending.map(\.at.seconds) == [a, b, b, c])
        #expect(queue.pending.allSatisfy { $0.handle == "daysome-lay4.timer" })
    }

    @Test("A start a second timer of the current lay names again never shows the record's words twice")
    func aStartNamedTwiceShowsItsWordsOnce() {
        let a = self.now.seconds + 3_600
        let published = QueueSnapshot(
            backend: "systemd", display: .away, lay: 4, daemonRunning: true, publisher: nil,
            pending: [self.entry(a, "Lunch")])
        let timers = ManagerTimers(units: [
            self.timer("daysome-lay4.timer", [a]), self.timer("daysome-lay4-2.timer", [a]),
        ])
        let queue = ManagerQueue.queue(timers, published: published, running: true, now: self.now)
        #expect(queue.pending.map(\.title) == ["Lunch", "(not in the lay record)"])
    }

    @Test("A timer of another lay belongs to no current lay")
    func anotherLaysTimerIsShownAsSuch() {
        let a = self.now.seconds + 3_600
        let published = QueueSnapshot(
            backend: "systemd", display: .away, lay: 4, daemonRunning: true, publisher: nil,
            pending: [self.entry(a, "Lunch")])
        let timers = ManagerTimers(units: [self.timer("daysome-lay3.timer", [a])])
        let queue = ManagerQueue.queue(timers, published: published, running: true, now: self.now)
        #expect(queue.pending.map(\.title) == ["(belongs to no current lay)"])
        #expect(queue.pending.first?.lay == 3)
    }
}
