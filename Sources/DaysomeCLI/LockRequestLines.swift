// `daysomectl status`'s lines on who decides the lock, beside the lock line: which lockers are
// watched, which one decides, and a logind Lock request that stands (one no locker answered
// locked nothing: she still sees the day). Kept apart from `lockStatusLine`, which says each
// source's detail.

import DaysomeCore

/// `Lockers watched: logind, gnomeScreenSaver; decided by gnomeScreenSaver`, and a
/// `Lock request: …` line while one stands.
func lockDecisionLines(_ lock: StatusSnapshot.Lock) -> [String] {
    let watched = LockSource.lockers.filter { lock.sources[$0]?.watched == true }.map(\.rawValue)
    let decider = lock.decidedBy.map { "decided by \($0.rawValue)" } ?? (lock.locked ? "locked" : "the file decides")
    var lines = [
        watched.isEmpty
            ? "Lockers watched: none; the file alone decides"
            : "Lockers watched: \(watched.joined(separator: ", ")); \(decider)"
    ]
    if let request = lock.request {
        let outcome: String
        switch request.state {
        case .waiting: outcome = "waiting for a locker to answer"
        case .answered: outcome = "answered by \(request.answeredBy?.rawValue ?? "a locker")"
        case .unanswered: outcome = "no locker answered: she still sees the day"
        }
        lines.append("Lock request: lock requested at \(request.at.rfc3339), \(outcome)")
    }
    return lines
}
