// Which state directory `daysomectl history` reads, and whether it fell back. The runtime
// directory alone names a daemon: with that daemon gone, `history` used to print the default state
// directory's history (another daemon's, perhaps) with exit 0 and no word. Pure: the options and
// what the runtime directory holds in, the choice out.

/// Where `history` reads, and why.
enum HistorySource: Equatable {
    /// `--state-dir` named it.
    case given(String)
    /// The daemon running for the runtime directory published it.
    case running(String)
    /// A daemon no longer running published it there last: its own history, but nothing runs.
    case lastPublished(String)
    /// Nothing is published for the default runtime directory: the default state directory.
    case defaultDirectory(String)
    /// `--runtime-dir` names a directory no daemon ever published a state directory in: there is no
    /// history to read there, and the default would be another daemon's.
    case noDaemon

    /// Decides from the options and the runtime directory's status.json.
    /// - Parameters:
    ///   - stateDirectory: `--state-dir`, when given.
    ///   - runtimeDirectoryGiven: whether `--runtime-dir` was given.
    ///   - running: whether a daemon holds the runtime directory's lock.
    ///   - published: the state directory status.json names, if any (from a live or a dead daemon).
    ///   - defaultDirectory: the design's default state directory.
    static func decide(
        stateDirectory: String?, runtimeDirectoryGiven: Bool, running: Bool, published: String?,
        defaultDirectory: String
    ) -> HistorySource {
        if let stateDirectory { return .given(stateDirectory) }
        if let published { return running ? .running(published) : .lastPublished(published) }
        return runtimeDirectoryGiven ? .noDaemon : .defaultDirectory(defaultDirectory)
    }

    /// The directory read, nil for `noDaemon`.
    var directory: String? {
        switch self {
        case .given(let path), .running(let path), .lastPublished(let path), .defaultDirectory(let path): return path
        case .noDaemon: return nil
        }
    }

    /// Whether neither the option nor a running daemon named the directory: it may not be the
    /// history the caller meant.
    var fellBack: Bool {
        switch self {
        case .given, .running, .noDaemon: return false
        case .lastPublished, .defaultDirectory: return true
        }
    }

    /// The footer under the text output: where the history was read.
    func footer(runtimeDirectory: String) -> String {
        switch self {
        case .given(let path): return "State directory: \(path) (given by --state-dir)"
        case .running(let path): return "State directory: \(path) (of the daemon running for '\(runtimeDirectory)')"
        case .lastPublished(let path):
            return "State directory: \(path) (the last one published for '\(runtimeDirectory)'; no daemon runs there)"
        case .defaultDirectory(let path):
            return "State directory: \(path) (the default; no daemon runs for '\(runtimeDirectory)')"
        case .noDaemon: return ""
        }
    }

    /// The stderr line of a fall-back, or nil: said where a script reads warnings, whatever the format.
    func warning(runtimeDirectory: String) -> String? {
        switch self {
        case .lastPublished(let path):
            return "no daemon runs for '\(runtimeDirectory)': reading the state directory it last published, '\(path)'"
        case .defaultDirectory(let path):
            return "no daemon published a state directory in '\(runtimeDirectory)': reading the default, '\(path)'"
        case .noDaemon:
            return "no daemon has published a state directory in '\(runtimeDirectory)': "
                + "give --state-dir DIR to read a history there"
        case .given, .running: return nil
        }
    }
}
