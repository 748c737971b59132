// A storm of display flips with faults underneath, for either backend: the notification server
// hung (SIGSTOP for 3 s) across a call's minute, killed and started again with a call on screen,
// the session bus restarted, and (systemd) the user manager re-executed. A start falls due every
// minute while the display is away, so calls fire under the faults. What it counts is what a
// family would notice: a card over the display (rule 1), a call twice, a call that neither came
// nor was recorded as dropped (a silent miss), the daemon dying, and how long its loop stood
// still while the server hung (a ping through its control socket).

import Glibc

/// What a fault storm saw.
public struct FaultStormReport: CustomStringConvertible {
    public var flips = 0
    public var faults: [String] = []
    /// Rule 1 as the server saw it (a card over the display).
    public var breaches: [String] = []
    /// A start delivered twice, beyond the one repost a wiped card gets.
    public var doubles: [String] = []
    /// A start whose minute came while away, with neither `delivered` nor `dropped` in history.
    public var silentMisses: [String] = []
    /// Settled states checked, and how many held (foreground: nothing shown, nothing pending).
    public var settlesChecked = 0
    public var settlesHeld: [String] = []
    public var settleFailures: [String] = []
    public var deaths = 0
    /// The longest ping round trip while the server hung, in seconds.
    public var longestStallWhileHung = 0.0
    public var calls = 0

    /// What a family would have noticed, one line each; empty when the storm left nothing wrong.
    /// A loop that waited on the hung server stood still 200 ms and more at a time.
    public var problems: [String] {
        var problems: [String] = []
        if !self.breaches.isEmpty { problems.append("rule 1 breaches: \(self.breaches.prefix(5))") }
        if !self.doubles.isEmpty { problems.append("double deliveries: \(self.doubles)") }
        if !self.silentMisses.isEmpty { problems.append("silent misses: \(self.silentMisses)") }
        if !self.settleFailures.isEmpty { problems.append("settles that did not hold: \(self.settleFailures)") }
        if self.deaths > 0 { problems.append("the daemon died") }
        if self.calls < 2 { problems.append("the storm's calls never reached the server (\(self.calls))") }
        if self.longestStallWhileHung >= 0.15 {
            problems.append("the loop stood still \(milliText(self.longestStallWhileHung)) while the server hung")
        }
        return problems
    }

    public var description: String {
        "\(self.flips) flips, faults [\(self.faults.joined(separator: "; "))]: \(self.breaches.count) rule 1 breaches, "
            + "\(self.doubles.count) double deliveries, \(self.silentMisses.count) silent misses, "
            + "\(self.settlesChecked - self.settleFailures.count)/\(self.settlesChecked) settles held, "
            + "\(self.deaths) daemon deaths, longest loop stall while the server hung "
            + "\(milliText(self.longestStallWhileHung)); \(self.calls) calls sent to the server"
    }
}

extension TestWorld {
    /// Runs the storm over `minutes` call minutes in this world (a user manager and dunst), with a
    /// daemon started here. `reexecManager`: also re-execute the user manager (systemd backend).
    public func runFaultStorm(seed: UInt64, minutes: Int = 2, reexecManager: Bool) async throws -> FaultStormReport {
        var random = SeededRandom(seed: seed)
        var report = FaultStormReport()
        let first = nextMinute(leaving: 30)
        let starts = (0..<minutes).map { first + Int64($0) * 60 }
        let items = starts.enumerated().map { index, minute in
            #"{ "id": "fault-\#(index)", "label": "Fault call \#(index)", "kind": "meal", "#
                + #""time": "\#(utcClockTime(minute))", "repeat": "daily" }"#
        }
        try replaceFile(
            self.household,
            #"{ "version": 1, "timeZone": "UTC", "settings": { "notifyInOtherApps": true }, "items": [ "#
                + items.joined(separator: ", ") + " ] }\n")
        let bus = "unix:path=\(self.userRuntime)/bus"
        var recorders = [try await BusRecorder.start(address: bus, log: self.directory.path + "/fault-monitor-0.log")]
        // When a server died with whatever it showed: no NotificationClosed ever says so.
        var wipes: [Double] = []
        defer { for recorder in recorders { recorder.stop() } }
        let driver = try StormDriver(displayState: self.displayState, state: "foreground")
        // A household that respects Do Not Disturb: the daemon reads dunst's before each call.
        try await self.startDaemon(notifier: "freedesktop", arguments: ["--dnd", "respect"])

        /// Flips at random 50-700 ms apart until `until`.
        func flip(until: Double) async throws {
            while wallSeconds() + 0.8 < until {
                try driver.flip()
                report.flips += 1
                await pause(Double(draw(50...700, &random)) / 1_000)
            }
        }
        /// The display settles in the foreground: nothing shown and nothing pending within 2 s.
        func settleForeground(_ label: String) async throws {
            try driver.write("foreground")
            report.settlesChecked += 1
            do {
                _ = try await poll("nothing shown or pending (\(label))", timeout: 2) { () -> Bool? in
                    let shown = try await self.displayedCount()
                    let pending = try await self.pending().starts.count
                    return shown == 0 && pending == 0 ? true : nil
                }
            } catch {
                report.settleFailures.append("\(label): \(error)")
            }
        }

        for (index, minute) in starts.enumerated() {
            try await flip(until: Double(minute) - 4)
            try driver.write("away")
            if index == 0 {
                // Hung across the minute: the call's Do Not Disturb read and Notify wait for it.
                await pause(untilWall: Double(minute) - 1)
                try self.freezeNotificationServer(true)
                report.faults.append("server hung 3 s across the minute")
                let thaw = wallSeconds() + 3
                while wallSeconds() < thaw {
                    report.longestStallWhileHung = max(report.longestStallWhileHung, try self.pingDaemon())
                    usleep(10_000)
                }
                try self.freezeNotificationServer(false)
                await pause(untilWall: Double(minute) + 5)
                wipes.append(wallSeconds())
                try await self.restartNotificationServer()
                report.faults.append("server killed and started again with the call on screen")
            } else {
                await pause(untilWall: Double(minute) + 4)
                wipes.append(wallSeconds())
                try await self.restartSessionBus()
                report.faults.append("session bus restarted with the call on screen")
                recorders.append(
                    try await BusRecorder.start(
                        address: bus, log: self.directory.path + "/fault-monitor-\(recorders.count).log"))
                if reexecManager {
                    let reexec = try await self.systemctl(["daemon-reexec"])
                    report.faults.append("user manager re-executed (status \(String(describing: reexec.status)))")
                }
            }
            await pause(untilWall: Double(minute) + 9)
            try await settleForeground("after the call at +\(index) min")
            try await flip(until: Double(minute) + 22)
            try await settleForeground("after the flips at +\(index) min")
        }
        await pause(1)
        for recorder in recorders { recorder.stop() }
        let end = wallSeconds()
        var notifications = recorders.flatMap { $0.notifications() }.filter { $0.appName == "Daysome" }
        for index in notifications.indices where notifications[index].closedAt == nil {
            // A card the dead server showed left the screen with it.
            if let wipe = wipes.first(where: { $0 >= notifications[index].postedAt }) {
                notifications[index].closedAt = wipe
                notifications[index].closeReason = 0
            }
        }
        report.calls = notifications.count
        report.breaches = driver.log.breaches(of: notifications, window: 1.0, until: end)
        let history = try await self.history()
        for minute in starts {
            let at = rfc3339(minute)
            let delivered = history.filter { $0.event == "delivered" && $0.at == at }
            let again = delivered.filter { $0.reason?.contains("posted again once") == true }
            if delivered.count - again.count > 1 || again.count > 1 {
                report.doubles.append("\(at): \(delivered)")
            }
            if delivered.isEmpty && !history.contains(where: { $0.event == "dropped" && $0.at == at }) {
                report.silentMisses.append("\(at): \(history.filter { $0.at == at })")
            }
        }
        report.deaths = self.daemon == nil ? 1 : 0
        return report
    }
}
