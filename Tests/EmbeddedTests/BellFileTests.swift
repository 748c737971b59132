// The synthesised bell is written into the runtime directory after READY (the loop's first turn),
// not before it, and never missing when a call rings: a start with the bell still unwritten writes
// it before the player is started.

import DaysomeCore
import DaysomeFiles
import DaysomeWorld
import Glibc
import Testing

@testable import DaysomeDaemon

@Suite struct BellFileTests {
    private func options(_ root: String, player: String) throws -> DaemonOptions {
        let arguments = [
            "--household", root + "/household.json", "--display-state", root + "/display",
            "--runtime-dir", root + "/run", "--state-dir", root + "/state", "--notifier", "log",
            "--player", player,
        ]
        guard case .run(let options) = try DaemonOptions.parse(arguments, environment: ["HOME": root]) else {
            throw BellTestError()
        }
        #expect(mkdir(root, 0o700) == 0 || errno == EEXIST)
        #expect(mkdir(root + "/run", 0o700) == 0)
        return options
    }

    private func scratch(_ name: String) -> String {
        "/" + #filePath.split(separator: "/").dropLast(3).joined(separator: "/") + "/.testrun/bell-\(name)-\(getpid())"
    }

    private func contents(_ path: String) -> [UInt8]? {
        try? SystemDisk.shared.read(path, limit: 1 << 20, followLinks: false, regularOnly: true)
    }

    /// A player writing the synthesised bell into a fresh runtime directory, and its loop.
    private func player(_ name: String) throws -> (ChimePlayer, ManualLoop, root: String) {
        let root = self.scratch(name)
        let loop = ManualLoop(realtime: 1_796_000_000_000_000)
        let player = ChimePlayer(
            options: try self.options(root, player: "/nonexistent/player"), environment: [:], loop: loop,
            logger: Logger(sink: { _, _, _ in }))
        return (player, loop, root)
    }

    @Test func theBellIsWrittenInTheLoopsFirstTurnAfterReadyNotBeforeIt() throws {
        let (player, loop, root) = try self.player("turn")
        defer { _ = system("rm -rf '\(root)'") }
        #expect(access(player.file, F_OK) != 0, "the bell was synthesised before READY")
        loop.runPending()
        let written = self.contents(player.file) == Bell.wav()
        #expect(written, "the loop's first turn did not write the bell")
    }

    @Test func aRingBeforeTheFirstTurnWritesTheBellBeforeThePlayerStarts() throws {
        let (player, _, root) = try self.player("ring")
        defer { _ = system("rm -rf '\(root)'") }
        player.play()
        let written = self.contents(player.file) == Bell.wav()
        #expect(written, "the player was started on a bell not yet written")
    }
}

private struct BellTestError: Error {}
