// The embedded world's systemd user manager, for `--backend systemd`. The daemon's own
// SystemdBackend talks to it as to the real one: it lists units, starts transient timers (each
// calendar entry a CalendarSpec expression in UTC, elapsing at every instant it names; one it
// cannot read is refused, as the manager refuses a spec it cannot parse) and stops them, and its
// replies come on the daemon's loop, after the call returned, so a clear can overtake a lay
// whose list is still out. Its timers outlive the daemon (they are the manager's), fire at their
// instants by running the service's `daysomectl fire --lay N` (here: the Manager's `fire`, as
// the control socket would), elapse unheard while no daemon runs, and are all lost when the
// manager restarts.

import DaysomeCore
import DaysomeDaemon
import Glibc
import SystemdKit

/// A user manager's transient timers for the embedded daemon.
public final class FakeSystemdManager: TimerManager {
    /// One instant a timer fires at, and the lay its service fires.
    public struct Timer: Sendable, Equatable {
        public let lay: UInt64
        public let at: Instant
    }

    /// A transient timer unit the manager holds: its name, the lay its service fires, and the
    /// instants it has yet to fire at.
    private struct Unit {
        let name: String
        let lay: UInt64
        /// The specs it was started with, as the manager keeps its TimersCalendar.
        let calendars: [String]
        var left: [Instant]
    }

    /// Every instant a timer the manager holds has yet to fire at, in the order laid.
    public var timers: [Timer] {
        self.units.flatMap { unit in unit.left.map { Timer(lay: unit.lay, at: $0) } }
    }
    /// The names of the timer units it holds, in the order started.
    public var unitNames: [String] { self.units.map(\.name) }
    /// Each fire it ran, with the daemon's reply (`delivered 1`, …): what its services logged.
    public private(set) var fires: [(lay: UInt64, at: Instant, reply: String)] = []
    private var units: [Unit] = []
    private var loop: (any Loop)?
    private weak var manager: Manager?
    private var armed: [any LoopSource] = []
    /// Replies on their way, kept until they ran (the loop holds a source only while kept).
    private var replies: [any LoopSource] = []
    /// Counts the manager's lives: a reply of an earlier one reaches its caller as a lost connection.
    private var life = 0
    /// A slow manager: it handles each call at once but its replies wait for `answer()`.
    public var holdsReplies = false
    private var heldReplies: [() -> Void] = []

    init() {}

    /// A daemon connected: its loop runs the timers now. Those that came due while none ran have
    /// elapsed (their fire found no daemon).
    func attach(loop: any Loop, manager: Manager) {
        self.loop = loop
        self.manager = manager
        let now = Instant(seconds: Int64(loop.now(CLOCK_REALTIME) / 1_000_000))
        for index in self.units.indices { self.units[index].left.removeAll { $0 < now } }
        self.units.removeAll { $0.left.isEmpty }
        self.rearm()
    }

    /// The daemon died: its fires and the replies it waited for reach nobody until one runs again.
    func detach() {
        self.loop = nil
        self.manager = nil
        self.armed = []
        self.replies = []
    }

    // MARK: The manager's calls

    package func listUnits(matching patterns: [String]) throws(BusError) -> [ListedUnit] {
        self.units.filter { unit in patterns.contains { fnmatch($0, unit.name, 0) == 0 } }.map {
            ListedUnit(
                name: $0.name, description: "Daysome lay \($0.lay)", loadState: "loaded", activeState: "active",
                subState: "waiting")
        }
    }

    package func listUnits(matching patterns: [String], completion: @escaping (Result<[ListedUnit], BusError>) -> Void)
    {
        // The manager answers with the units as they are when it handles the call.
        let units = (try? self.listUnits(matching: patterns)) ?? []
        self.reply { completion($0 ? .success(units) : .failure(Self.disconnected)) }
    }

    package func listTimers(
        matching patterns: [String], completion: @escaping (Result<[ListedTimer], BusError>) -> Void
    ) {
        // Each entry's next elapse is its first instant the timer has yet to fire at; 0 when none is left.
        let timers = self.units.filter { unit in patterns.contains { fnmatch($0, unit.name, 0) == 0 } }.map { unit in
            ListedTimer(
                unit: ListedUnit(
                    name: unit.name, description: "Daysome lay \(unit.lay)", loadState: "loaded", activeState: "active",
                    subState: "waiting"),
                entries: unit.calendars.map { spec in
                    let next = (CalendarSpec.instants(of: spec) ?? []).filter(unit.left.contains).min()
                    return TimerCalendarEntry(
                        base: "OnCalendar", spec: spec,
                        nextElapse: next.map { UInt64(max(0, $0.seconds)) * 1_000_000 } ?? 0)
                })
        }
        self.reply { completion($0 ? .success(timers) : .failure(Self.disconnected)) }
    }

    package func startTimer(
        _ timer: TransientTimer, completion: @escaping (Result<String, BusError>) -> Void
    )
        throws(BusError)
    {
        guard !self.units.contains(where: { $0.name == timer.name }) else {
            self.answer(
                completion,
                with: .failure(
                    BusError(
                        name: "org.freedesktop.systemd1.UnitExists", message: "Unit \(timer.name) already exists.",
                        errno: EEXIST)))
            return
        }
        let lay = timer.service.argv.firstIndex(of: "--lay").flatMap { index in
            index + 1 < timer.service.argv.count ? UInt64(timer.service.argv[index + 1]) : nil
        }
        let expanded = timer.calendars.compactMap(CalendarSpec.instants(of:))
        guard let lay, expanded.count == timer.calendars.count else {
            self.answer(
                completion,
                with: .failure(
                    BusError(
                        name: "org.freedesktop.DBus.Error.InvalidArgs",
                        message: "the fake manager cannot read \(timer.service.argv) \(timer.calendars)",
                        errno: EINVAL)))
            return
        }
        // Entries naming one instant twice elapse once, as in the manager.
        self.units.append(
            Unit(name: timer.name, lay: lay, calendars: timer.calendars, left: Set(expanded.joined()).sorted()))
        self.rearm()
        self.answer(completion, with: .success("/org/freedesktop/systemd1/job/1"))
    }

    package func stopUnit(named name: String, completion: @escaping (Result<String, BusError>) -> Void) throws(BusError)
    {
        let held = self.units.contains { $0.name == name }
        self.units.removeAll { $0.name == name }
        self.rearm()
        self.answer(
            completion,
            with: held
                ? .success("/org/freedesktop/systemd1/job/2")
                : .failure(
                    BusError(
                        name: "org.freedesktop.systemd1.NoSuchUnit", message: "Unit \(name) not loaded.", errno: ENOENT)
                ))
    }

    /// This manager announces nothing, as the real one on the user bus to a client that did not
    /// subscribe: its `stop(lay:)` passes unheard, so the daemon asks it afresh each time.
    package func watchChanges(_ changed: @escaping () -> Void) -> Bool { false }

    package func catchUp() {}

    // MARK: Knobs

    /// `systemctl --user stop daysome-layN.timer`: lay N's timers are gone, and no daemon hears of it.
    public func stop(lay: UInt64) {
        self.units.removeAll { $0.lay == lay }
        self.rearm()
    }

    /// The replies held while `holdsReplies`, sent now in the order of their calls; later ones
    /// come on the loop again.
    public func answer() {
        self.holdsReplies = false
        let held = self.heldReplies
        self.heldReplies = []
        for reply in held { reply() }
    }

    /// The manager restarted (`systemctl --user daemon-reexec`, a crash): its transient timers
    /// are gone, the daemon's connection to it dropped, and its calls still out get no answer.
    public func restart() {
        self.units = []
        self.life += 1
        self.rearm()
        self.manager?.managerLost()
    }

    // MARK: Inside

    static let disconnected = BusError(
        name: "org.freedesktop.DBus.Error.NoReply", message: "the manager left the bus", errno: ECONNRESET)

    /// Sends `result` as the reply of a call, or a lost connection where the manager restarted since.
    private func answer<Value>(
        _ completion: @escaping (Result<Value, BusError>) -> Void, with result: Result<Value, BusError>
    ) {
        self.reply { completion($0 ? result : .failure(Self.disconnected)) }
    }

    /// Runs `answer` on the loop's next iteration, as a reply off the bus: true while the manager
    /// that took the call still runs.
    private func reply(_ answer: @escaping (Bool) -> Void) {
        guard let loop = self.loop else { return }
        let life = self.life
        if self.holdsReplies {
            self.heldReplies.append { [weak self] in answer(life == self?.life) }
            return
        }
        var source: (any LoopSource)?
        source = try? loop.deferred(description: "manager-reply") { [weak self] in
            guard let self else { return }
            self.replies.removeAll { $0 === source }
            // The source holds this closure, and the closure the source: let go once it ran.
            source = nil
            answer(life == self.life)
        }
        if let source { self.replies.append(source) }
    }

    /// One loop timer per instant held: each runs the fires due then.
    private func rearm() {
        self.armed = []
        guard let loop = self.loop else { return }
        for at in Set(self.timers.map(\.at)).sorted() {
            let usec = UInt64(max(0, at.seconds)) * 1_000_000
            if let source = try? loop.timer(
                clock: CLOCK_REALTIME, at: usec, description: "manager-timer",
                { [weak self] in
                    self?.fire(at: at)
                })
            {
                self.armed.append(source)
            }
        }
    }

    /// Each unit with an instant due fires its service once; a unit with none left is gone (a
    /// transient timer that elapsed for the last time unloads).
    private func fire(at: Instant) {
        var due: Set<UInt64> = []
        for index in self.units.indices where self.units[index].left.contains(where: { $0 <= at }) {
            self.units[index].left.removeAll { $0 <= at }
            due.insert(self.units[index].lay)
        }
        self.units.removeAll { $0.left.isEmpty }
        for lay in due.sorted() {
            let reply = self.manager?.control("fire \(lay)") ?? "no daemon"
            self.fires.append((lay, at, reply))
        }
    }
}
