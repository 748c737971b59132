// Whether `$XDG_RUNTIME_DIR` can give the daemon's runtime defaults. It is the login session's
// private directory (pam_systemd makes it, 0700, and removes it at the last logout): neither
// program creates it when it is missing (it would be created 0755, readable by everyone, and
// outlive the session), and daysomed never guesses it. daysomectl, where it is unset, looks in
// `/run/user/<uid>` for a daemon that runs there (`SessionRuntimeDirectory`): where scripts/run
// starts one in a shell without it, so a second terminal finds the daemon as the README says.

import Glibc

/// Why `$XDG_RUNTIME_DIR` cannot name the runtime directory.
public enum RuntimeEnvironmentProblem: Error, Equatable, CustomStringConvertible {
    /// Unset or empty: the program was started outside a login session.
    case unset
    /// Set to a relative path, which the XDG spec says to ignore.
    case notAbsolute(String)
    /// Set to a path that is not an existing directory.
    case missing(String, reason: String)

    /// Unset or relative is bad input (2): no retry helps until the caller sets it. A missing
    /// directory is a runtime failure (1): the session that makes it may not have started yet.
    public var isBadInput: Bool {
        if case .missing = self { return false }
        return true
    }

    public var description: String {
        let instead = "start from a login session (pam_systemd sets it), or give --runtime-dir and --display-state"
        switch self {
        case .unset:
            return "XDG_RUNTIME_DIR is not set: \(instead)"
        case .notAbsolute(let value):
            return "XDG_RUNTIME_DIR '\(value)' is not an absolute path: \(instead)"
        case .missing(let value, let reason):
            return "XDG_RUNTIME_DIR '\(value)' cannot be used (\(reason)); it is the login session's to create, "
                + "not daysome's: \(instead)"
        }
    }

    /// The problem with `environment`'s `XDG_RUNTIME_DIR`, or nil when it names an existing directory.
    public static func check(_ environment: [String: String]) -> RuntimeEnvironmentProblem? {
        guard let value = environment["XDG_RUNTIME_DIR"], !value.isEmpty else { return .unset }
        guard value.hasPrefix("/") else { return .notAbsolute(value) }
        var info = stat()
        guard stat(value, &info) == 0 else { return .missing(value, reason: Errno(rawValue: errno).text) }
        guard (info.st_mode & S_IFMT) == S_IFDIR else { return .missing(value, reason: "not a directory") }
        return nil
    }
}

/// The runtime directory a daemon was given where the caller's shell has no `$XDG_RUNTIME_DIR`:
/// `/run/user/<uid>`, what pam_systemd would have made and what scripts/run gives a daemon it
/// starts in such a shell. Found, never guessed: only where a daemon of this user runs there.
public enum SessionRuntimeDirectory {
    /// `/run/user/<uid>`.
    public static var conventional: String { "/run/user/\(getuid())" }

    /// `environment` with `XDG_RUNTIME_DIR` set to `directory` where it is unset (or empty) and a
    /// daemon holds its lock in `directory/daysome`, the default under it; `environment` as it is
    /// otherwise. The directory must be a directory of this user that no one else can write (not a
    /// symlink), as a session's is, so that no other user's daemon is taken for this one.
    public static func environment(
        _ environment: [String: String], findingADaemonIn directory: String = conventional
    ) -> [String: String] {
        guard environment["XDG_RUNTIME_DIR"].map(\.isEmpty) ?? true else { return environment }
        var info = stat()
        guard lstat(directory, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR, info.st_uid == getuid(),
            info.st_mode & 0o022 == 0, DaemonLock.isHeld(runtimeDirectory: directory + "/daysome")
        else { return environment }
        var found = environment
        found["XDG_RUNTIME_DIR"] = directory
        return found
    }
}
