// Plays the chime through the session's sound server with a standard player, so the call is
// heard on desktops whose notification server plays nothing (dunst, KDE). The bell is written
// once to the runtime directory from the core's synthesis; the player runs without a shell and
// is reaped through a pidfd when it exits. Nothing about sound comes from the household file.

import DaysomeCore
import DaysomeFiles
import Glibc
import SystemdKit

/// Plays a sound file with the first available player.
final class ChimePlayer {
    let file: String
    let player: String?
    private let loop: EventLoop
    private let logger: Logger
    private var playing: [Int32: (Pidfd, EventSource)] = [:]

    /// The players tried in order when none is configured: PipeWire, PulseAudio, ALSA.
    static let candidates = ["pw-play", "paplay", "aplay"]

    init(options: DaemonOptions, environment: [String: String], loop: EventLoop, logger: Logger) {
        self.loop = loop
        self.logger = logger
        if let file = options.chimeFile {
            self.file = file
        } else {
            self.file = options.paths.runtimeDirectory + "/bell.wav"
            do {
                try FileIO.writeAtomically(self.file, Bell.wav(), mode: 0o600)
            } catch {
                logger.log(.warning, "\(error); the bell is silent")
            }
        }
        self.player = options.player ?? Self.find(Self.candidates, path: environment["PATH"] ?? "/usr/bin:/bin")
        if self.player == nil {
            logger.log(.warning, "No sound player found (\(Self.candidates.joined(separator: ", "))); calls are silent")
        }
    }

    /// The first program of `names` found on a PATH.
    static func find(_ names: [String], path: String) -> String? {
        for name in names {
            for directory in path.split(separator: ":") where directory.hasPrefix("/") {
                let candidate = "\(directory)/\(name)"
                if access(candidate, X_OK) == 0 { return candidate }
            }
        }
        return nil
    }

    /// Starts the player; it runs on while the loop goes on.
    func play() {
        guard let player = self.player else { return }
        let argv = [player, self.file]
        var pid: pid_t = 0
        let cArgs = argv.map { strdup($0) } + [nil]
        defer { cArgs.forEach { free($0) } }
        let result = posix_spawn(&pid, player, nil, nil, cArgs, environ)
        guard result == 0 else {
            self.logger.log(.warning, "Failed to start '\(player)': \(String(cString: strerror(result))), ignoring")
            return
        }
        // Reap the player when it exits, so no zombie stays behind.
        do {
            let fd = try Pidfd.open(pid: pid)
            let source = try self.loop.addPidfdExit(fd.rawValue, description: "chime") { [weak self] _ in
                var status: Int32 = 0
                waitpid(pid, &status, 0)
                self?.playing[pid] = nil
            }
            self.playing[pid] = (fd, source)
        } catch {
            var status: Int32 = 0
            waitpid(pid, &status, WNOHANG)
        }
    }
}
