// Where the daemon and the tool find their files, from the XDG variables as the design fixes
// them. Both programs compute the same defaults, so a bare `daysomectl pending` finds a bare
// `daysomed`; the runtime directory alone identifies a daemon.

import Glibc

/// The paths of one daemon.
public struct Paths: Sendable, Equatable {
    public var household: String
    public var displayState: String
    public var runtimeDirectory: String
    public var stateDirectory: String

    /// The design's defaults from an environment.
    public init(environment env: [String: String]) {
        let home = env["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? "/"
        let config = env["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.config"
        let runtime = env["XDG_RUNTIME_DIR"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/run/user/\(getuid())"
        let state = env["XDG_STATE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.local/state"
        self.household = config + "/daysome/household.json"
        self.displayState = runtime + "/daysome/display"
        self.runtimeDirectory = runtime + "/daysome"
        self.stateDirectory = state + "/daysome"
    }

    /// These paths with each relative one made absolute against `directory` (see `absolutePath`).
    public func absolute(in directory: String) -> Paths {
        var paths = self
        paths.household = absolutePath(self.household, in: directory)
        paths.displayState = absolutePath(self.displayState, in: directory)
        paths.runtimeDirectory = absolutePath(self.runtimeDirectory, in: directory)
        paths.stateDirectory = absolutePath(self.stateDirectory, in: directory)
        return paths
    }

    /// The live queue the daemon publishes after every change of its wheel or backend.
    public var queueFile: String { self.runtimeDirectory + "/queue.json" }
    /// The daemon's status: pid, display, lay, errors.
    public var statusFile: String { self.runtimeDirectory + "/status.json" }
    /// Where a 0.2.0 daemon kept a standing logind Lock request across its restart. A request
    /// never locks now, and none from before a restart counts: the daemon removes it at start.
    public var lockRequestFile: String { self.runtimeDirectory + "/lock-request" }
    /// The daemon's state while the state directory refuses it (a full or read-only disk): kept
    /// in the runtime directory, which survives a restart of the daemon, so a restart inside the
    /// grace window knows what was called and never calls it again. Gone once lay.json caught up.
    public var unsavedLayFile: String { self.runtimeDirectory + "/lay.unsaved.json" }
    /// The empty file an earlier daemon made when neither lay.json nor its unsaved copy could be
    /// written: still read (a restart then proves nothing) and removed once lay.json caught up.
    /// Today's daemon records this in its lock file instead (RuntimeRecord.swift), which needs no
    /// new inode; anything but a plain file here is named in `status` and set aside.
    public var unprovenMarkerFile: String { self.runtimeDirectory + "/lay.unproven" }
    /// The display's processes seen exiting in this boot (`pid nanoseconds` a line): a daemon
    /// restarted after the display crashed still knows that a `foreground pid=N` line it finds was
    /// left by a process that is gone, though another process has taken N since.
    public var displayExitsFile: String { self.runtimeDirectory + "/display-exits" }
    /// The control socket a running daemon listens on.
    public var controlSocket: String { self.runtimeDirectory + "/control" }
    /// The lay counter and current lay, kept across boots.
    public var layFile: String { self.stateDirectory + "/lay.json" }
    /// The bounded history of laid, cleared, delivered, reposted, withdrawn, expired and dropped.
    public var historyFile: String { self.stateDirectory + "/history.jsonl" }
}

/// This boot's id (`/proc/sys/kernel/random/boot_id`), or nil where the sandbox hides it
/// (`ProcSubset=pid`): the session bus's own id, new at every boot, still tells boots apart.
public func readBootId() -> String? {
    guard let bytes = try? FileIO.read("/proc/sys/kernel/random/boot_id", limit: 64) else { return nil }
    let text = String(decoding: bytes, as: UTF8.self).filter { $0 != "\n" }
    return text.isEmpty ? nil : text
}
