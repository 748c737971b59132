// daysomectl loads libsystemd only when a verb reaches the bus (Sources/SystemdLoader): a real
// process, since what is at stake is what the dynamic loader does at exec. The loader's own
// account (LD_DEBUG=files) says which libraries it mapped and why.

import DaysomeTestSupport
import Glibc
import Testing

@Suite("daysomectl's libsystemd")
struct LazySystemdTests {
    /// Runs the built daysomectl with LD_DEBUG=files; returns the loader's lines and the exit code.
    func run(
        _ arguments: [String], runtime: String, in directory: TestDirectory
    ) async throws -> (
        loader: String, status: Int32?
    ) {
        let err = "\(directory.path)/ld-debug.err"
        unlink(err)
        let process = try SpawnedProcess(
            try builtProduct("daysomectl"), arguments + ["--runtime-dir", runtime],
            environment: [
                "PATH": "/usr/bin:/bin", "HOME": directory.path, "XDG_RUNTIME_DIR": runtime, "LD_DEBUG": "files",
            ],
            stderrPath: err)
        guard await process.exit(within: 20) else {
            process.stop()
            throw HarnessError("daysomectl \(arguments) did not exit within 20 s")
        }
        return (readFile(err), process.exitCode)
    }

    @Test("pending on the wheel starts without libsystemd; a verb that reaches the bus loads it then")
    func libsystemdIsLoadedOnFirstUse() async throws {
        let directory = try TestDirectory()
        let none = try directory.makeDirectory("no-daemon")
        let wheel = try await self.run(["pending"], runtime: none, in: directory)
        #expect(wheel.status == 1)
        #expect(!wheel.loader.contains("libsystemd"), "\(wheel.loader)")
        #expect(wheel.loader.contains("transferring control"), "LD_DEBUG printed nothing: \(wheel.loader)")

        // A queue the systemd backend published: pending asks the user's manager, whose socket is
        // not there; libsystemd is opened for that call, and the failure is one line.
        let published = try directory.makeDirectory("systemd-backend")
        try directory.write(
            "systemd-backend/queue.json",
            #"{"backend":"systemd","display":"away","lay":1,"daemonRunning":true,"pid":1,"timeZone":"UTC","pending":[]}"#
        )
        let bus = try await self.run(["pending"], runtime: published, in: directory)
        #expect(bus.status == 1)
        #expect(bus.loader.contains("file=libsystemd.so.0 [0];  dynamically loaded by"), "\(bus.loader)")
        #expect(bus.loader.contains("cannot reach the systemd user manager"), "\(bus.loader)")
    }
}
