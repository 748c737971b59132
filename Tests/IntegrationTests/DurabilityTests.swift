// The edges of the daemon's life at the process boundary, with the real daysomed (wheel
// backend, a private bus, Xvfb and dunst): the durability protocol read off the daemon's own
// system calls. Control clients that hang up or say nothing and a display pid that is a zombie
// are DaemonIntegrationTests', on the idle daemon they must not wake. A restart with a broken
// household is BadInputTests', in the household's life. The kept household's contents, corrupt
// state files, a restarted server's ids and a household directory that does not exist yet are on
// the embedded daemon (EmbeddedTests).

import DaysomeCore
import DaysomeTestSupport
import Glibc
import Testing

@Suite("Durability at the process boundary")
struct DurabilityTests {
    /// The call is kept in lay.json (synced) before its Notify, so a power cut never calls twice;
    /// history says `delivered` only once the server took it, so it never claims a call unseen.
    @Test func everyStateFileRenameIsSyncedTheCallIsKeptBeforeItsNotifyAndHistorySaysDeliveredOnlyAfterIt()
        async throws
    {
        let session = try await TestWorld.start([.sessionBus, .notificationServer])
        defer { session.stop() }
        let minute = nextMinute(leaving: 5)
        try replaceFile(session.household, try nextMinutesHousehold(minute))
        let trace = session.directory.path + "/strace.log"
        let strace = try findExecutable("strace", package: "strace")
        let process = try SpawnedProcess(
            strace,
            [
                "-f", "-y", "-s", "4096", "-o", trace, "-e",
                "trace=openat,write,fsync,fdatasync,rename,renameat,renameat2,sendmsg,writev",
                session.daysomed,
            ] + session.daemonArguments(),
            environment: session.environment, stderrPath: session.directory.path + "/strace-daemon.log")
        defer { process.stop() }
        let wait = Double(minute) - wallSeconds() + 15
        _ = try await poll("the traced daemon's call at \(rfc3339(minute))", timeout: wait) { () -> Bool? in
            if process.poll() { throw HarnessError("strace or daysomed exited: \(readFile(trace).suffix(2_000))") }
            let history = try await session.history()
            return history.contains { $0.event == "delivered" && $0.at == rfc3339(minute) } ? true : nil
        }
        await pause(0.3)
        let pid = try #require(try await session.status().pid)
        kill(pid_t(pid), SIGTERM)
        #expect(await process.exit(within: 10))

        let state = realPath(session.stateDirectory)
        let lines = readFile(trace).split(separator: "\n").map(String.init)
        var renames = 0
        for (index, line) in lines.enumerated() {
            guard let (from, to) = renamed(line), to.hasPrefix(state + "/") else { continue }
            renames += 1
            // Before it: the temporary file's data synced.
            let synced = lines[..<index].contains { $0.contains("fsync(") && $0.contains("<\(from)>") }
            #expect(synced, "rename of \(to) at line \(index) without an fsync of \(from) before it")
            // After it, before anything else is renamed: the directory synced.
            let after = lines[(index + 1)...].prefix { renamed($0) == nil }
            #expect(
                after.contains { $0.contains("fsync(") && $0.contains("<\(state)>") },
                "rename of \(to) at line \(index) without an fsync of \(state) after it")
        }
        #expect(renames >= 2, "the trace shows \(renames) renames in the state directory")
        let history = state + "/history.jsonl"
        let notify = try #require(
            lines.firstIndex { ($0.contains("sendmsg(") || $0.contains("writev(")) && $0.contains("Notify") },
            "no Notify in the trace")
        // The last lay.json renamed into place before the Notify names the call.
        let kept = try #require(
            lines[..<notify].lastIndex { renamed($0)?.1 == state + "/lay.json" }, "no lay.json kept before the Notify")
        let keptWrite = lines[..<kept].lastIndex { $0.contains("write(") && $0.contains("lay.json") } ?? 0
        #expect(
            lines[keptWrite].contains(#""notificationId""#) || lines[keptWrite].contains(rfc3339(minute)),
            "lay.json before the Notify does not hold the call: \(lines[keptWrite])")
        let line = try #require(
            lines.firstIndex { $0.contains("write(") && $0.contains("<\(history)>") && $0.contains(#"\"delivered\""#) },
            "no history write of the call in the trace")
        let sync = try #require(
            lines[line...].firstIndex { $0.contains("fdatasync(") && $0.contains("<\(history)>") },
            "the call's history line was never synced")
        #expect(
            kept < notify && notify < line && line < sync,
            "lay.json \(kept), Notify \(notify), history \(line), sync \(sync)")
    }
}

/// The (from, to) of a successful `rename`, `renameat` or `renameat2` line in an strace log: its
/// first two quoted strings.
private func renamed(_ line: String) -> (String, String)? {
    guard let call = line.firstRange(of: "rename"), line.hasSuffix(" = 0") else { return nil }
    let quoted = line[call.upperBound...].split(separator: "\"", omittingEmptySubsequences: false)
    guard quoted.count >= 4 else { return nil }
    return (String(quoted[1]), String(quoted[3]))
}

/// The path with every symlink resolved, as strace's `-y` prints it.
private func realPath(_ path: String) -> String {
    guard let resolved = realpath(path, nil) else { return path }
    defer { free(resolved) }
    return String(cString: resolved)
}
