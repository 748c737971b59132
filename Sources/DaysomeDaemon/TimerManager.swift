// What the systemd backend asks of the user's manager: the five calls of `SystemdManager` it
// makes. The seam is here, under the backend, so that the embedded world runs the backend's own
// decisions (the names it picks, the clear that overtakes a lay whose list is still out) against
// a manager whose replies come on the loop, as the real one's do.

import SystemdKit

/// The user manager's calls the systemd backend makes. An answer comes on the loop, after the call
/// returned, but for a message that could not be built, whose failure may come at once.
package protocol TimerManager: AnyObject {
    /// The units matching `patterns`, asked and answered before the loop runs (start-up only).
    func listUnits(matching patterns: [String]) throws(BusError) -> [ListedUnit]
    /// The units matching `patterns`, answered on the loop.
    func listUnits(matching patterns: [String], completion: @escaping (Result<[ListedUnit], BusError>) -> Void)
    /// The timers matching `patterns` with their calendars as the manager computed them,
    /// answered on the loop: what `pending` relays.
    func listTimers(matching patterns: [String], completion: @escaping (Result<[ListedTimer], BusError>) -> Void)
    /// Starts a transient timer and its service; the manager's answer comes on the loop.
    func startTimer(
        _ timer: TransientTimer, completion: @escaping (Result<String, BusError>) -> Void)
        throws(BusError)
    /// Stops the unit `name`; the manager's answer comes on the loop.
    func stopUnit(named name: String, completion: @escaping (Result<String, BusError>) -> Void) throws(BusError)
    /// Calls `changed` whenever the manager says something changed; true when it says every
    /// change on this connection, so that an answer it gave stands until `changed` runs. False
    /// where a change could pass unheard: each question is then asked afresh.
    func watchChanges(_ changed: @escaping () -> Void) -> Bool
    /// Hears now whatever the manager already said on this connection.
    func catchUp()
}

extension SystemdManager: TimerManager {
    package func startTimer(
        _ timer: TransientTimer, completion: @escaping (Result<String, BusError>) -> Void
    )
        throws(BusError)
    {
        // Floating: the bus frees the call, its handler and what it holds once the reply came.
        let call = try self.startTransientTimer(timer, completion: completion)
        do { try call.setFloating(true) } catch { throw BusError(error) }
    }

    package func stopUnit(named name: String, completion: @escaping (Result<String, BusError>) -> Void) throws(BusError)
    {
        let call = try self.stopUnit(name, completion: completion)
        do { try call.setFloating(true) } catch { throw BusError(error) }
    }

    package func watchChanges(_ changed: @escaping () -> Void) -> Bool {
        guard self.hearsEverySignal else { return false }
        do { try self.watchEverySignal(changed) } catch { return false }
        return true
    }

    package func catchUp() {
        try? self.bus.processWaiting()
    }
}
