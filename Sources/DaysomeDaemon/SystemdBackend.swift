// The systemd backend: each lay (and each top-up of it) becomes one transient timer in the
// user's manager, whose TimersCalendar carries the starts as few OnCalendar expressions in UTC
// (CalendarSpec: a start every minute for a week is three, not 10,080 entries the manager would
// each parse and compute; the planner already applied the DST rules; a zone name would also
// make the manager fork at every computation). The timer's service runs the project's own `daysomectl fire`,
// which asks this daemon to deliver: the daemon posts every notification itself. Nothing from
// the household reaches a unit: names, specs and arguments are built from numbers and paths.

import DaysomeCore
import DaysomeFiles
import Glibc
import SystemdKit

/// Lays and clears starts as transient timers of the user's systemd manager.
final class SystemdBackend {
    private(set) var manager: any TimerManager
    private let logger: Logger
    private let runtimeDirectory: String
    private let fireProgram: String
    private let environment: [String]
    /// Timers this daemon asked for, including ones whose creation is still in flight.
    private var requested: Set<String> = []
    /// The current lay's part counter and the names just stopped: nothing kept per lay.
    private(set) var names = TimerNames()
    /// Counts clears: a lay started before the latest clear never lays its timer.
    private var generation = 0
    /// What the manager last said of its daysome- timers, while it has announced no change since
    /// (only on a connection where it announces every change): `pending` is answered from it.
    private(set) var timersHeard: ManagerTimers?
    /// Counts the changes heard: an answer asked for before the latest is not kept.
    private(set) var changesHeard: UInt64 = 0
    /// Whether the manager announces every change on this connection.
    private var hearsChanges = false

    /// The program a fire runs: `daysomectl` installed beside the running `daysomed`.
    static func fireProgram() -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        let own =
            count > 0
            ? String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) : "/usr/bin/daysomed"
        return directory(of: own) + "/daysomectl"
    }

    init(manager: any TimerManager, logger: Logger, runtimeDirectory: String, environment: [String: String]) {
        self.manager = manager
        self.logger = logger
        self.runtimeDirectory = runtimeDirectory
        self.fireProgram = Self.fireProgram()
        // What the fire needs to reach this daemon and the session: never anything from the household.
        self.environment = ["XDG_RUNTIME_DIR", "DBUS_SESSION_BUS_ADDRESS", "HOME", "XDG_STATE_HOME"].compactMap { key in
            environment[key].map { "\(key)=\($0)" }
        }
        self.watchManager()
    }

    /// Replaces the manager connection after the manager came back.
    func reconnect(_ manager: any TimerManager) {
        self.manager = manager
        self.requested = []
        self.names.reconnected()
        self.generation += 1
        self.watchManager()
    }

    private func watchManager() {
        self.managerChanged()
        self.hearsChanges = self.manager.watchChanges { [weak self] in self?.managerChanged() }
    }

    /// The manager said something changed (or this daemon asked it to change): what it said of its
    /// timers before is asked afresh.
    private func managerChanged() {
        self.timersHeard = nil
        self.changesHeard &+= 1
    }

    /// Keeps `timers`, the manager's answer to a question asked when `changesHeard` was `asked`,
    /// while no change came since and the manager announces every change.
    func heard(_ timers: ManagerTimers, askedAt asked: UInt64) {
        guard self.hearsChanges, asked == self.changesHeard else { return }
        self.timersHeard = timers
    }

    /// Adds one timer holding `starts` for a lay; with `replacing`, stops every daysome- timer first.
    /// Nothing waits on the manager: the timer is started from the reply that lists the names
    /// already taken, and only if no clear came in between (a clear overtakes a lay in progress).
    func lay(_ lay: UInt64, starts: [Start], replacing: Bool, exactAlarms: Bool) {
        if replacing { self.stopAll() }
        guard !starts.isEmpty else { return }
        let generation = self.generation
        // The expressions are written while the manager lists (its answer comes on a later turn
        // of the loop); a list that failed at once finds none yet and writes them then.
        var calendars: [String]?
        self.manager.listUnits(matching: ["daysome-lay\(lay)*"]) { [weak self] result in
            guard let self, self.generation == generation else { return }
            let existing = Set(((try? result.get()) ?? []).map(\.name))
            self.start(
                lay, calendars: calendars ?? CalendarSpec.specs(covering: starts.lazy.map(\.at)), starts: starts.count,
                taken: existing.union(self.requested), exactAlarms: exactAlarms)
        }
        calendars = CalendarSpec.specs(covering: starts.lazy.map(\.at))
    }

    private func start(_ lay: UInt64, calendars: [String], starts: Int, taken: Set<String>, exactAlarms: Bool) {
        let name = self.names.next(lay: lay, taken: taken)
        let timer = TransientTimer(
            name: name + ".timer", description: "Daysome lay \(lay): \(starts) starts",
            calendars: calendars,
            // The manager's default minute puts every timer of the machine at one offset, often 40-60 s late.
            accuracy: exactAlarms ? 1_000_000 : 60_000_000, wakeSystem: false,
            service: TransientService(
                name: name + ".service", description: "Daysome fire for lay \(lay)",
                argv: [self.fireProgram, "fire", "--lay", String(lay), "--runtime-dir", self.runtimeDirectory],
                environment: self.environment))
        self.requested.insert(timer.name)
        let timerName = timer.name
        do {
            self.managerChanged()
            try self.manager.startTimer(timer) { [weak self] result in
                if case .failure(let error) = result {
                    self?.logger.log(.error, "Failed to lay \(timerName) in the systemd manager: \(error)")
                }
            }
        } catch {
            self.logger.log(.error, "Failed to lay \(timer.name) in the systemd manager: \(error)")
        }
    }

    /// The highest lay number among the `daysome-layN[-k].timer` units the manager holds: after a
    /// lost or corrupt lay.json the counter starts above it, so no number is used twice.
    func highestLayHeld() -> UInt64 {
        let units = (try? self.manager.listUnits(matching: ["daysome-lay*.timer"])) ?? []
        return units.compactMap { unit -> UInt64? in
            guard unit.name.hasPrefix("daysome-lay"), unit.name.hasSuffix(".timer") else { return nil }
            let number = unit.name.dropFirst("daysome-lay".count).dropLast(".timer".count).prefix { $0 != "-" }
            return UInt64(number)
        }.max() ?? 0
    }

    /// Stops every daysome- timer the manager holds, and every one this daemon asked for even if
    /// its creation is still in flight: calls on one connection reach the manager in order. The
    /// ones asked for are stopped at once; the manager's list comes back without the loop
    /// waiting for it, and what it names is stopped then. A lay whose list was asked for before
    /// this clear never starts its timer (`generation`).
    func stopAll() {
        self.generation += 1
        let asked = self.requested
        self.stop(asked)
        self.requested = []
        self.manager.listUnits(matching: ["daysome-*.timer"]) { [weak self] result in
            guard let self else { return }
            switch result {
            case .success(let units):
                // Timers requested since this clear are not in the list: the manager listed
                // before it saw them. Those listed were there before the clear.
                self.stop(Set(units.map(\.name)).subtracting(asked))
            case .failure(let error):
                self.logger.log(.warning, "Failed to list daysome- timers: \(error)")
            }
        }
    }

    private func stop(_ names: Set<String>) {
        for name in names.sorted() {
            do {
                self.managerChanged()
                try self.manager.stopUnit(named: name) { [weak self] result in
                    if case .failure(let error) = result, error.name != "org.freedesktop.systemd1.NoSuchUnit" {
                        self?.logger.log(.warning, "Failed to stop \(name): \(error)")
                    }
                }
            } catch {
                self.logger.log(.warning, "Failed to stop \(name): \(error)")
            }
        }
        self.names.stopped(names)
    }
}
