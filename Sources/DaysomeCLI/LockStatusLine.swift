// `daysomectl status`'s lock line, from the status's `lock` part: whether the session is locked
// (then the display is away whatever the file says), and what each source is.

import DaysomeCore

/// `Lock: locked (logind), the file says foreground; logind: session …; screenSaver: no screensaver …`.
/// While the file holds an unusable line it is not said to say anything: the state is only kept.
func lockStatusLine(_ lock: StatusSnapshot.Lock, fileProblem: DisplayFileProblem? = nil) -> String {
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
    let file =
        fileProblem.map { "the file is unreadable (keeping \($0.keeping.rawValue))" }
        ?? "the file says \(lock.fileSays.rawValue)"
    return "Lock: \(state); \(file); " + details.joined(separator: "; ")
}
