// `daysomectl status`'s lock line, from the status's `lock` part: whether the session is locked
// (then the display is away whatever the file says), and what each source is.

import DaysomeCore

/// `Lock: locked (logind), the file says foreground; logind: session …; screenSaver: no screensaver …`.
func lockStatusLine(_ lock: StatusSnapshot.Lock) -> String {
    let lockedBy = LockSource.allCases.filter { lock.sources[$0]?.locked == true }.map(\.rawValue)
    let state =
        lockedBy.isEmpty
        ? "unlocked" : "locked (\(lockedBy.joined(separator: ", "))), away whatever the file says"
    // A source the daemon did not write (one older than the source) is left out, not guessed.
    let details = LockSource.allCases.compactMap { name -> String? in
        guard let source = lock.sources[name] else { return nil }
        let watched = source.watched ? "watched" : "not watched"
        return "\(name.rawValue) \(watched): \(printable(source.detail ?? "?"))"
    }
    return "Lock: \(state); the file says \(lock.fileSays.rawValue); " + details.joined(separator: "; ")
}
