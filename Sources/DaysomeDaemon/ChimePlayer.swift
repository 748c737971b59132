// Plays the chime through the session's sound server with a standard player, so the call is
// heard on desktops whose notification server plays nothing (dunst, KDE). The bell is written
// once to the runtime directory from the core's synthesis, after READY; the player runs without a shell and
// is reaped through a pidfd when it exits. Nothing about sound comes from the household file.

import DaysomeCore
import DaysomeFiles
import Glibc
import SystemdKit

/// Starts a player on the file: `exited` gets its wait status. False when it could not start.
package typealias PlayerStart = (_ argv: [String], _ exited: @escaping (Int32) -> Void) -> Bool

/// Plays a sound file with the first player that works.
package final class ChimePlayer: BellPlayer {
    package let file: String
    /// The players to try, in order: `--player`, else every candidate found on PATH.
    let players: [String]
    private let logger: Logger
    /// Runs a player: a child process (`ChildProcesses`), or a world's stand-in.
    private let start: PlayerStart
    /// The player that played last (or the first to try): a player that cannot reach a sound
    /// server (pw-play on a PulseAudio machine) gives way to the next, once.
    private var current = 0
    /// The bell file is ours to write and has not been written yet.
    private var bellToWrite = false
    private var writeSoon: (any LoopSource)?

    /// The players tried in order when none is configured: PipeWire, PulseAudio, ALSA.
    static let candidates = ["pw-play", "paplay", "aplay"]

    /// The player the next call starts with, for status; nil when there is none.
    package var player: String? { self.players.isEmpty ? nil : self.players[self.current] }

    /// The bell of `players` (absolute paths, tried in order) on `file`, each run by `start`.
    package init(file: String, players: [String], logger: Logger, start: @escaping PlayerStart) {
        self.file = file
        self.players = players
        self.logger = logger
        self.start = start
    }

    init(options: DaemonOptions, environment: [String: String], loop: any Loop, logger: Logger) {
        self.logger = logger
        let children = ChildProcesses(loop: loop, logger: logger)
        self.start = { argv, exited in children.spawn(argv, what: "chime", exited: exited) }
        if let file = options.chimeFile {
            self.file = file
        } else {
            self.file = options.paths.runtimeDirectory + "/bell.wav"
            self.bellToWrite = true
        }
        if let player = options.player {
            self.players = [player]
        } else {
            self.players = Self.findAll(Self.candidates, path: environment["PATH"] ?? "/usr/bin:/bin")
        }
        if self.players.isEmpty {
            logger.log(.warning, "No sound player found (\(Self.candidates.joined(separator: ", "))); calls are silent")
        }
        if self.bellToWrite {
            // Synthesised in the loop's first turn, after READY: the samples cost a start about 3 ms.
            self.writeSoon = try? loop.deferred(description: "bell") { [weak self] in self?.writeBell() }
        }
    }

    /// Each program of `names` found on a PATH (its first occurrence), in the order of `names`.
    static func findAll(_ names: [String], path: String) -> [String] {
        var found: [String] = []
        for name in names {
            for directory in path.split(separator: ":") where directory.hasPrefix("/") {
                let candidate = "\(directory)/\(name)"
                if access(candidate, X_OK) == 0 {
                    found.append(candidate)
                    break
                }
            }
        }
        return found
    }

    /// Starts the player; it runs on while the loop goes on.
    package func play() {
        self.writeBell()
        self.play(with: self.current, tried: 0)
    }

    /// Writes the synthesised bell into the runtime directory, once it succeeds; a failure is
    /// said and tried again at the next ring.
    private func writeBell() {
        self.writeSoon?.cancel()
        self.writeSoon = nil
        guard self.bellToWrite else { return }
        do {
            try FileIO.writeAtomically(self.file, Bell.wav(), mode: 0o600)
            self.bellToWrite = false
            // The samples' 317 KB given back, not kept resident by an idle daemon.
            Heap.releaseFreeMemory()
        } catch {
            self.logger.log(.warning, "\(error); the bell is silent")
        }
    }

    /// Plays with `players[index]`; if it fails (it cannot start, or exits non-zero: no server it
    /// can reach), the next player plays, until each has been tried once.
    private func play(with index: Int, tried: Int) {
        guard !self.players.isEmpty, tried < self.players.count else { return }
        let player = self.players[index]
        let next = (index + 1) % self.players.count
        let started = self.start([player, self.file]) { [weak self] status in
            guard let self else { return }
            if status == 0 {
                self.current = index
            } else if tried + 1 < self.players.count {
                self.logger.log(
                    .notice,
                    "'\(player)' could not play the bell (\(waitStatusText(status))); trying '\(self.players[next])'")
                self.play(with: next, tried: tried + 1)
            } else {
                self.logger.log(.warning, "'\(player)' could not play the bell (\(waitStatusText(status)))")
            }
        }
        if !started { self.play(with: next, tried: tried + 1) }
    }
}

/// Programs the daemon starts without a shell (the player, the display command): each starts with
/// no signal blocked and every signal at its default action (the daemon's loop blocks SIGTERM and
/// SIGINT, and a blocked mask is inherited across exec), and is reaped through a pidfd when it
/// exits, so none stays behind as a zombie.
final class ChildProcesses {
    private let loop: any Loop
    private let logger: Logger
    private var running: [pid_t: (fd: Pidfd, source: any LoopSource)] = [:]

    init(loop: any Loop, logger: Logger) {
        self.loop = loop
        self.logger = logger
    }

    /// Starts `argv[0]` (an absolute path) with `argv` and the daemon's environment; `exited` gets
    /// its wait status. Returns false, having logged why at `failure`, when it could not start.
    @discardableResult
    func spawn(
        _ argv: [String], what: String, failure: LogPriority = .warning, exited: ((Int32) -> Void)? = nil
    ) -> Bool {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let cArgs = argv.map { strdup($0) } + [nil]
        defer { cArgs.forEach { free($0) } }
        let result = posix_spawn(&pid, argv[0], nil, &attributes, cArgs, environ)
        guard result == 0 else {
            self.logger.log(failure, "Failed to start '\(argv[0])': \(Errno(rawValue: result).text)")
            return false
        }
        do {
            let fd = try Pidfd.open(pid: pid)
            let source = try self.loop.pidfdExit(fd.rawValue, description: what) { [weak self] in
                // Off the loop before its fd closes, then reaped.
                self?.running[pid]?.source.cancel()
                var status: Int32 = 0
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                self?.running[pid] = nil
                exited?(status)
            }
            self.running[pid] = (fd, source)
        } catch {
            // No pidfd to watch: reap it now if it has already gone, and never learn how it ended.
            self.logger.log(.warning, "Cannot watch '\(argv[0])' (pid \(pid)): \(error)")
            var status: Int32 = 0
            waitpid(pid, &status, WNOHANG)
        }
        return true
    }
}

/// A wait status in words: `exit status 1`, `signal 9`.
func waitStatusText(_ status: Int32) -> String {
    status & 0x7f == 0 ? "exit status \((status >> 8) & 0xff)" : "signal \(status & 0x7f)"
}
