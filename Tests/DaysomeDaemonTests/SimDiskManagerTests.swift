// The Manager's start-up on the simulated disk: every file it reads or writes there (the runtime
// directory and its lock, the display's directory, the state directory, its lock, lay.json and
// the history) goes through the disk it is given, none to the machine's own.

import DaysomeCore
import DaysomeFiles
import DaysomeSimDisk
import Glibc
import SystemdKit
import Testing

@testable import DaysomeDaemon

@Suite("The Manager on the simulated disk")
struct SimDiskManagerTests {
    /// Under a root that exists on no real machine: a file the daemon made past the seam shows.
    let root = "/daysome-sim-\(getpid())"
    let now = Instant(seconds: 1_796_000_000)

    func options() throws -> DaemonOptions {
        let arguments = [
            "--household", self.root + "/home/she/.config/daysome/household.json", "--display-state",
            self.root + "/run/user/1000/daysome/display", "--runtime-dir", self.root + "/run/user/1000/daysome",
            "--state-dir", self.root + "/home/she/.local/state/daysome", "--notifier", "log",
        ]
        guard case .run(let options) = try DaemonOptions.parse(arguments, environment: ["HOME": self.root]) else {
            throw SeamTestError("the options did not parse to a run")
        }
        return options
    }

    func manager(on disk: SimDisk) throws -> Manager {
        // Only the start-up's files are asked of it here: every peer refuses, none is reached.
        let refused = Errno(rawValue: ENOTSUP)
        let nobody = Nobody()
        return try Manager(
            options: self.options(), environment: ["HOME": self.root],
            peers: ManagerPeers(
                loop: StillLoop(), clock: SteppedClock(self.now), logger: Logger { _, _, _ in },
                notifications: { () throws(Errno) in throw refused }, timers: { _ throws(Errno) in throw refused },
                leftoverTimers: { nil }, bell: { nobody }, returner: { nobody }, lockBuses: nobody, disk: DiskFaults(),
                controlSocket: false, serviceManager: { _ in }, stateDisk: disk))
    }

    func tablet() -> SimDisk {
        let disk = SimDisk()
        disk.installDirectory(self.root + "/home/she", permissions: 0o700)
        disk.mountTmpfs(at: self.root + "/run/user/1000")
        return disk
    }

    @Test func aDaemonStartsOnTheDiskItIsGivenAndTouchesNoOther() throws {
        let disk = self.tablet()
        let paths = try self.options().paths
        let manager = try self.manager(on: disk)
        defer { withExtendedLifetime(manager) {} }
        #expect(disk.names(in: paths.runtimeDirectory)?.contains("daemon.lock") == true)
        #expect(disk.isDirectory(paths.stateDirectory), "the state directory is made on the simulated disk")
        #expect(access(self.root, F_OK) != 0, "nothing was made on the machine's own disk")
    }

    @Test func aSecondDaemonOnTheSameDiskIsRefusedUntilTheFirstIsGoneOrThePowerIsCut() throws {
        let disk = self.tablet()
        var first: Manager? = try self.manager(on: disk)
        let refused = #expect(throws: DaemonError.self) { try self.manager(on: disk) }
        #expect("\(String(describing: refused))".contains("already owns"), "\(String(describing: refused))")
        withExtendedLifetime(first) {}
        first = nil
        var second: Manager? = try self.manager(on: disk)
        disk.cutPower()
        disk.powerOn()
        // The earlier process is gone with the power: its locks are, and so is its runtime directory.
        _ = try self.manager(on: disk)
        withExtendedLifetime(second) {}
        second = nil
    }

    @Test func theRecordInTheLockFileIsReadByTheNextDaemonOfTheBootAndGoneAfterABoot() throws {
        let disk = self.tablet()
        let runtime = try self.options().paths.runtimeDirectory
        let identity = disk.identity(of: self.root + "/home/she/.local/state/daysome")
        try disk.makeDirectories(runtime, mode: 0o700)
        do {
            let hold = try disk.lockRuntimeDirectory(runtime)
            #expect(hold.earlierRecord.allSatisfy { $0 == 0 })
            #expect(hold.keepRecord(RuntimeRecord(kept: .runtimeCopy, stateDirectory: identity).bytes))
        }
        do {
            let next = try disk.lockRuntimeDirectory(runtime)
            #expect(RuntimeRecord(bytes: next.earlierRecord)?.kept == .runtimeCopy)
        }
        disk.reboot()
        try disk.makeDirectories(runtime, mode: 0o700)
        let afterBoot = try disk.lockRuntimeDirectory(runtime)
        #expect(RuntimeRecord(bytes: afterBoot.earlierRecord) == nil, "a boot empties the runtime directory")
    }

    @Test func aStateDirectoryThatCannotBeMadeIsHeldThroughTheDirectoryAboveIt() throws {
        let disk = self.tablet()
        let state = self.root + "/home/she/.local/state/daysome"
        disk.setPermissions(self.root + "/home/she", 0o500)
        let standIn = try disk.lockStateDirectory(state, standingIn: true)
        #expect(standIn.lockedPath == self.root + "/home/she")
        let refused = #expect(throws: StateDirectoryLockError.self) {
            try disk.lockStateDirectory(self.root + "/home/she/other", standingIn: true)
        }
        guard case .taken(let taken) = refused else {
            Issue.record("not refused as taken: \(String(describing: refused))")
            return
        }
        #expect(taken.standIn == self.root + "/home/she")
        #expect(standIn.holds(self.root + "/home/she") && !standIn.holds(state))
    }
}

/// Every peer a start-up's files need none of: a silent bell, no returner, no bus.
private final class Nobody: BellPlayer, DisplayBringer, LockBuses {
    let file = ""
    let player: String? = nil
    let means: String? = nil
    let systemBusSocket: String? = nil
    func play() {}
    func bringBack(reason: String) {}
    func openSystem(lost: @escaping () -> Void) throws(Errno) -> any LogindPeer { throw Errno(rawValue: ENOTSUP) }
    func openSession(lost: @escaping () -> Void) throws(Errno) -> [(ScreenSaverInterface, any ScreenSaverPeer)] {
        throw Errno(rawValue: ENOTSUP)
    }
}
