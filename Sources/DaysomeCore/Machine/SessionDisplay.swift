// Whether a session has a display a notification server could be started on: what the daemon
// asks before it lets a post activate one (at boot with lingering there is none, and a server
// started then aborts while the bus holds the activation for two minutes). Pure: the daemon
// reads the environments, the user manager's over the bus and its own.

/// The display variables of a session's environment.
public enum SessionDisplay {
    /// The variables a notification server finds its display by.
    static let variables = ["DISPLAY", "WAYLAND_DISPLAY"]

    /// Whether `entries` (`NAME=value`, as the user manager's `Environment` property lists them)
    /// name a display. An empty value names none: a session can export `DISPLAY=` with no X
    /// server behind it, and a server started for it aborts just the same.
    public static func isNamed(inEntries entries: [String]) -> Bool {
        entries.contains { entry in
            self.variables.contains { entry.hasPrefix($0 + "=") && entry.count > $0.count + 1 }
        }
    }

    /// Whether `environment` (a process's own) names a display; an empty value names none.
    public static func isNamed(in environment: [String: String]) -> Bool {
        self.variables.contains { !(environment[$0] ?? "").isEmpty }
    }
}
