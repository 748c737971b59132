// A daemon on the wheel owns no timer in the user's manager, so any `daysome-` timer there was
// left by a systemd-backend daemon (the backend switched back, or the daemon gone for good): its
// fire would run a `daysomectl fire` that starts this daemon again, or fail 203/EXEC after a
// purge. At start-up the wheel stops them, without waiting on the manager; no manager, nothing to stop.

import DaysomeFiles
import SystemdKit

extension Manager {
    /// Stops every `daysome-` timer and service the user's manager holds (wheel backend only).
    func stopLeftoverTimers() {
        guard let manager = self.peers.leftoverTimers() else { return }
        self.leftoverTimers = (manager, nil)
        manager.listUnits(matching: ["daysome-*.timer", "daysome-*.service"]) { [weak self] result in
            guard let self else { return }
            guard case .success(let units) = result, !units.isEmpty else {
                self.forgetLeftoverTimers()
                return
            }
            self.logger.log(
                .notice,
                "Stopping what a systemd-backend daemon left in the manager: \(units.map(\.name).joined(separator: ", "))"
            )
            var left = units.count
            for unit in units {
                do {
                    try manager.stopUnit(named: unit.name) { [weak self] result in
                        if case .failure(let error) = result, error.name != "org.freedesktop.systemd1.NoSuchUnit" {
                            self?.logger.log(.warning, "Failed to stop \(unit.name): \(error)")
                        }
                        left -= 1
                        if left == 0 { self?.forgetLeftoverTimers() }
                    }
                } catch {
                    left -= 1
                }
            }
            if left == 0 { self.forgetLeftoverTimers() }
        }
    }

    /// Drops the connection once its last answer came: on the next iteration, not inside its own
    /// dispatch. The defer source is held with the connection and goes with it. (Each stop is a
    /// floating call the bus frees once its reply came; the connection is held until then.)
    private func forgetLeftoverTimers() {
        let done = try? self.loop.deferred(description: "leftover-timers-done") { [weak self] in
            self?.leftoverTimers = nil
        }
        self.leftoverTimers?.done = done
    }
}
