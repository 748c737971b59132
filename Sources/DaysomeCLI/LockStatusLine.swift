// `daysomectl status`'s lock line, from the `lock` object of status.json: whether the session is
// locked (then the display is away whatever the file says), and what each source is.

import DaysomeCore

/// `Lock: locked (logind), the file says foreground; logind: session …; screenSaver: no screensaver …`,
/// or nil for a daemon that publishes no `lock` object.
func lockStatusLine(_ lock: JSONObject?) -> String? {
    guard let lock else { return nil }
    let sources = lock["sources"]?.objectValue
    let names = ["logind", "screenSaver"]
    let lockedBy = names.filter { sources?[$0]?.objectValue?["locked"]?.boolValue == true }
    let state =
        lockedBy.isEmpty
        ? "unlocked" : "locked (\(lockedBy.joined(separator: ", "))), away whatever the file says"
    let details = names.map { name -> String in
        let source = sources?[name]?.objectValue
        let watched = source?["watched"]?.boolValue == true ? "watched" : "not watched"
        return "\(name) \(watched): \(printable(source?["detail"]?.stringValue ?? "?"))"
    }
    return "Lock: \(state); the file says \(lock["fileSays"]?.stringValue ?? "?"); " + details.joined(separator: "; ")
}
