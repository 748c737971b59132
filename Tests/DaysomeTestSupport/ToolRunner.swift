// Short-lived tools run by a test's world (daysomectl, systemctl, dunstctl...): output goes to
// files, never to a pipe that could fill, and the wait does not block a thread.

import DaysomeCore
import Glibc

/// A test's world that runs tools: its run directory, environment and the built daysomectl.
public protocol RunsTools: AnyObject {
    var directory: TestDirectory { get }
    var environment: [String: String] { get }
    var daysomectl: String { get }
    /// Numbers the output files under `out/`.
    var outputCount: Int { get set }
}

extension RunsTools {
    /// Runs a short-lived tool with the world's environment (or `environment`).
    public func run(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, timeout: Double = 20
    ) async throws -> ToolResult {
        self.outputCount += 1
        let out = "\(self.directory.path)/out/\(self.outputCount).out"
        let err = "\(self.directory.path)/out/\(self.outputCount).err"
        let command = ([executable] + arguments).joined(separator: " ")
        let process = try SpawnedProcess(
            executable, arguments, environment: environment ?? self.environment, stdoutPath: out, stderrPath: err)
        guard await process.exit(within: timeout) else {
            process.stop()
            throw HarnessError("`\(command)` did not finish within \(timeout) s")
        }
        defer {
            unlink(out)
            unlink(err)
        }
        return ToolResult(command: command, status: process.exitCode, stdout: readFile(out), stderr: readFile(err))
    }

    /// Runs daysomectl.
    public func ctl(_ arguments: [String]) async throws -> ToolResult {
        try await self.run(self.daysomectl, arguments)
    }

    /// Runs daysomectl, which must exit 0 and print one JSON object.
    public func ctlJSON(_ arguments: [String]) async throws -> JSONObject {
        let result = try await self.ctl(arguments)
        guard result.status == 0 else {
            throw HarnessError("\(result)")
        }
        guard let object = (try? JSONParser.parse(result.stdout))?.objectValue else {
            throw HarnessError("daysomectl printed no JSON object: \(result)")
        }
        return object
    }
}
