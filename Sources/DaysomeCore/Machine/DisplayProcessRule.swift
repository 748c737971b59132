// The display-pid rule, decided without I/O: a `foreground pid=N` line counts while process N
// lives. The shell reads the file and its mtime, opens N's pidfd when asked, and watches the one
// pid this rule says; every judgement is made here, on times it is given.

/// What the display's pid says about a `foreground pid=N` line, decided once per pid: once N has
/// exited, a line naming N written before that exit stays away even when another process takes N
/// (a crash left the file and the pid was reused). A line written after the exit is the display's
/// new word: a relaunched display may, rarely, get the same pid. Which is which is told by the
/// file itself where its stamp was taken at the exit (every write replaces the file, so the line
/// of the exit is the same inode with the same mtime): a wall clock stepped back between the exit
/// and the new line cannot make that line look older. Only exits kept without a stamp compare
/// times.
public struct DisplayProcessRule: Sendable, Equatable {
    /// The pid whose exit the shell watches: the display's process while it counts.
    public private(set) var watched: Int32?
    /// Pids seen exiting and when (nanoseconds of realtime), oldest first.
    public private(set) var exited: [ExitedProcess] = []
    /// How many exits are kept: a display restarts a few times a day, and pids wrap slowly.
    public static let remembered = 64

    public struct ExitedProcess: Sendable, Equatable {
        public let pid: Int32
        public let at: Int64
        /// The display file in place when it exited (nil: none, or kept by an older daemon).
        public let file: DisplayFileStamp?

        public init(pid: Int32, at: Int64, file: DisplayFileStamp? = nil) {
            self.pid = pid
            self.at = at
            self.file = file
        }
    }

    /// What a line read means: decided, or decided once the shell has looked at a process.
    public enum Reading: Sendable, Equatable {
        case decided(DisplayState, note: String?)
        /// Open the pidfd of `pid` and say what was found (`found(_:_:at:)`).
        case lookAt(Int32)
    }

    /// What the shell found when it opened a pid's pidfd.
    public enum Process: Sendable, Equatable {
        case running
        /// A zombie: its pidfd is already readable.
        case exited
        /// No such process, or it could not be opened (the error's words).
        case gone(String)
    }

    public init() {}

    /// A rule that remembers `exited` (oldest first), as a daemon restarted in the same boot
    /// reads them back from the runtime directory (`exitsText`).
    public init(remembering exited: [ExitedProcess]) {
        self.exited = Array(exited.suffix(Self.remembered))
    }

    /// This rule also remembering `more` (an earlier daemon's record): each exit once, oldest first.
    public func remembering(_ more: [ExitedProcess]) -> DisplayProcessRule {
        var all = self.exited
        for exit in more where !all.contains(where: { $0.pid == exit.pid && $0.at == exit.at }) { all.append(exit) }
        all.sort { $0.at < $1.at }
        return DisplayProcessRule(remembering: all)
    }

    /// The exits as kept in the runtime directory: `pid nanoseconds [inode mtime]`, a line each,
    /// oldest first.
    public var exitsText: String {
        self.exited.map { exit in
            "\(exit.pid) \(exit.at)" + (exit.file.map { " \($0.inode) \($0.modified)" } ?? "") + "\n"
        }.joined()
    }

    /// The exits read back from `exitsText` (an older daemon's lines have no file stamp); a line
    /// that does not read (torn, edited) is left out: forgetting an exit is what a daemon without
    /// this file did.
    public static func exits(fromText text: String) -> [ExitedProcess] {
        text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ")
            guard fields.count == 2 || fields.count == 4, let pid = Int32(fields[0]), pid > 0,
                let at = Int64(fields[1])
            else { return nil }
            guard fields.count == 4 else { return ExitedProcess(pid: pid, at: at) }
            guard let inode = UInt64(fields[2]), let modified = Int64(fields[3]) else { return nil }
            return ExitedProcess(pid: pid, at: at, file: DisplayFileStamp(inode: inode, modified: modified))
        }
    }

    /// A line read from the display state file, which was last written at `writtenAt`
    /// (nanoseconds of realtime; nil where it cannot be told) and is the file `file`.
    public mutating func read(_ line: DisplayStateLine, writtenAt: Int64?, file: DisplayFileStamp? = nil) -> Reading {
        guard line.state == .foreground, let pid = line.pid else {
            self.watched = nil
            return .decided(line.state, note: nil)
        }
        if self.watched == pid { return .decided(.foreground, note: nil) }
        self.watched = nil
        if let exit = self.exited.last(where: { $0.pid == pid }) {
            let writtenBefore: Bool
            if let atExit = exit.file, let file {
                writtenBefore = atExit == file
            } else {
                writtenBefore = writtenAt.map { $0 <= exit.at } ?? true
            }
            guard !writtenBefore else {
                return .decided(.away, note: "The display's process \(pid) exited earlier; the display is away")
            }
            self.exited.removeAll { $0.pid == pid }
        }
        return .lookAt(pid)
    }

    /// What the shell found at `pid`, which the last `read` asked it to look at, at `now`
    /// (nanoseconds of realtime).
    /// `file`: the display file the line was read from.
    public mutating func found(
        _ process: Process, _ pid: Int32, at now: Int64, file: DisplayFileStamp? = nil
    ) -> (DisplayState, note: String?) {
        switch process {
        case .running:
            self.watched = pid
            return (.foreground, nil)
        case .exited:
            self.remember(pid, at: now, file: file)
            return (.away, "The display's process \(pid) has exited; the display is away")
        case .gone(let why):
            return (.away, "The display's process \(pid) is gone (\(why)); the display is away")
        }
    }

    /// The watched process exited at `now`, with `file` the display file in place then. Returns
    /// the note to log where the display, whose last line is `last`, is away because of it; nil
    /// where that line did not count on this process.
    public mutating func watchedExited(
        _ pid: Int32, at now: Int64, last: DisplayStateLine?, file: DisplayFileStamp? = nil
    ) -> String? {
        if self.watched == pid { self.watched = nil }
        self.remember(pid, at: now, file: file)
        guard last?.pid == pid, last?.state == .foreground else { return nil }
        return "The display's process \(pid) exited in the foreground; the display is away"
    }

    private mutating func remember(_ pid: Int32, at now: Int64, file: DisplayFileStamp?) {
        self.exited.append(ExitedProcess(pid: pid, at: now, file: file))
        if self.exited.count > Self.remembered { self.exited.removeFirst() }
    }
}

/// Which display state file is in place: its inode and its mtime (nanoseconds of realtime). The
/// display replaces the file at each write (a new inode), so the same stamp is the same line.
public struct DisplayFileStamp: Sendable, Equatable {
    public let inode: UInt64
    public let modified: Int64

    public init(inode: UInt64, modified: Int64) {
        self.inode = inode
        self.modified = modified
    }
}
