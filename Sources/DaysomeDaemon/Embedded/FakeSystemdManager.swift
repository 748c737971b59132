// The embedded world's systemd user manager, for `--backend systemd`: it holds each lay's starts
// as transient timers, which outlive the daemon (they are the manager's), fire at their instant
// by running `daysomectl fire <lay>` (here: the Manager's `fire`, as the control socket would),
// elapse unheard while no daemon runs, and are all lost when the manager restarts.

import DaysomeCore
import Glibc
import SystemdKit

/// A user manager's transient timers for the embedded daemon.
public final class FakeSystemdManager: StartTimers {
    /// A timer: the lay it fires, and when.
    public struct Timer: Sendable, Equatable {
        public let lay: UInt64
        public let at: Instant
    }

    /// Every timer the manager holds, in the order laid.
    public private(set) var timers: [Timer] = []
    /// Each fire it ran, with the daemon's reply (`delivered 1`, …): what its services logged.
    public private(set) var fires: [(lay: UInt64, at: Instant, reply: String)] = []
    private var loop: (any Loop)?
    private weak var manager: Manager?
    private var armed: [any LoopSource] = []

    init() {}

    /// A daemon connected: its loop runs the timers now. Those that came due while none ran have
    /// elapsed (their fire found no daemon).
    func attach(loop: any Loop, manager: Manager) {
        self.loop = loop
        self.manager = manager
        let now = Instant(seconds: Int64(loop.now(CLOCK_REALTIME) / 1_000_000))
        self.timers.removeAll { $0.at < now }
        self.rearm()
    }

    /// The daemon died: its fires reach nobody until one runs again.
    func detach() {
        self.loop = nil
        self.manager = nil
        self.armed = []
    }

    func lay(_ lay: UInt64, starts: [Start], replacing: Bool, exactAlarms: Bool) {
        if replacing { self.timers = [] }
        self.timers += starts.map { Timer(lay: lay, at: $0.at) }
        self.rearm()
    }

    func stopAll() {
        self.timers = []
        self.rearm()
    }

    func highestLayHeld() -> UInt64 {
        self.timers.map(\.lay).max() ?? 0
    }

    /// `systemctl --user stop daysome-layN.timer`: lay N's timers are gone, and no daemon hears of it.
    public func stop(lay: UInt64) {
        self.timers.removeAll { $0.lay == lay }
        self.rearm()
    }

    /// The manager restarted (`systemctl --user daemon-reexec`, a crash): its transient timers
    /// are gone, and the daemon's connection to it dropped.
    public func restart() {
        self.timers = []
        self.rearm()
        self.manager?.managerLost()
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

    private func fire(at: Instant) {
        let due = self.timers.filter { $0.at <= at }
        self.timers.removeAll { $0.at <= at }
        for lay in Set(due.map(\.lay)).sorted() {
            let reply = self.manager?.control("fire \(lay)") ?? "no daemon"
            self.fires.append((lay, at, reply))
        }
    }
}
