// The user unit that starts daysomed: its hardening is pinned here, so the next change to it has
// to be a decision; it passes systemd-analyze verify; and every unit runs our programs by
// absolute path. Starting it in a real user manager is in the systemd integration tests.

import DaysomeFiles
import DaysomeTestSupport
import Glibc
import Testing

/// The repository's root.
let repositoryRoot = packageRoot()

/// Runs a shell command; returns its exit status and combined output.
func shell(_ command: String) -> (status: Int32, output: String) {
    guard let pipe = popen(command + " 2>&1", "r") else { return (-1, "popen failed") }
    var output: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = fread(&buffer, 1, buffer.count, pipe)
        if count <= 0 { break }
        output += buffer[0..<count]
    }
    let status = pclose(pipe)
    return ((status >> 8) & 0xFF, String(decoding: output, as: UTF8.self))
}

/// The lines of a unit file without comments and blank lines.
func unitLines(_ name: String) throws -> [String] {
    let bytes = try FileIO.read(repositoryRoot + "/systemd/" + name, limit: 1 << 16)
    return String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init)
        .filter { !$0.isEmpty && !$0.hasPrefix("#") }
}

@Suite("The user unit")
struct UnitFileTests {
    @Test("The unit's hardening directives are exactly the pinned list, in a user namespace of its own")
    func hardeningIsPinned() throws {
        let lines = try unitLines("daysomed.service")
        let service = lines.drop { $0 != "[Service]" }.dropFirst().prefix { !$0.hasPrefix("[") }
        let lifecycle = [
            "Type=", "NotifyAccess=", "ExecStart=", "ExecStartPre=", "Restart=", "RestartSec=", "WatchdogSec=",
            "TimeoutStopSec=", "RestartPreventExitStatus=",
        ]
        let hardening = service.filter { line in !lifecycle.contains { line.hasPrefix($0) } }
        #expect(
            Array(hardening) == [
                "UMask=0077", "PrivateUsers=yes", "NoNewPrivileges=yes", "CapabilityBoundingSet=",
                "LockPersonality=yes",
                "MemoryDenyWriteExecute=yes", "RestrictRealtime=yes", "RestrictSUIDSGID=yes", "RestrictNamespaces=yes",
                "RestrictAddressFamilies=AF_UNIX", "SystemCallArchitectures=native", "SystemCallFilter=@system-service",
                "SystemCallFilter=~@privileged @resources", "SystemCallErrorNumber=EPERM", "IPAddressDeny=any",
                "DevicePolicy=closed", "RemoveIPC=yes", "PrivateIPC=yes", "ProtectClock=yes", "ProtectHostname=yes",
                "ProtectControlGroups=yes", "ProtectKernelModules=yes", "ProtectProc=invisible", "ProcSubset=pid",
                "PrivateDevices=yes", "ProtectSystem=strict", "ProtectHome=read-only",
                "ReadWritePaths=-%h/.local/state/daysome %t", "KeyringMode=private",
            ])
        // Known to stop a user unit from starting here (226/NAMESPACE), or to hide /tmp.
        for refused in ["ProtectKernelTunables", "ProtectKernelLogs", "PrivateTmp"] {
            #expect(!lines.contains { $0.hasPrefix(refused + "=") })
        }
        // '+' asks for privileges an unprivileged user manager does not have: it logged a
        // PrivateIPC= failure at every start. The state directory comes from user-tmpfiles.d.
        #expect(!lines.contains { $0.hasPrefix("ExecStartPre=") }, "\(lines)")
        #expect(lines.contains("Type=notify"))
        #expect(lines.contains { $0.hasPrefix("WatchdogSec=") })
        #expect(lines.contains("WantedBy=default.target"))
    }

    /// Exit 2 is bad usage: a command line or an XDG_RUNTIME_DIR that only whoever starts the
    /// daemon can fix. Restarting it every two seconds would only fill the journal; a runtime
    /// failure (1, a missing runtime directory among them) is still restarted.
    @Test("The unit restarts a daemon that failed, but never one that exited on bad usage")
    func badUsageIsNotRestarted() throws {
        let lines = try unitLines("daysomed.service")
        #expect(lines.contains("Restart=on-failure"), "\(lines)")
        #expect(lines.filter { $0.hasPrefix("RestartPreventExitStatus=") } == ["RestartPreventExitStatus=2"])
    }

    /// The lock comes from logind on the system bus (/run/dbus/system_bus_socket): a Unix socket
    /// outside the unit's writable paths, which connect(2) still reaches under ProtectSystem=strict.
    @Test("The hardened unit still lets the daemon reach the system bus for the screen lock")
    func systemBusIsReachable() throws {
        let lines = try unitLines("daysomed.service")
        let families = lines.filter { $0.hasPrefix("RestrictAddressFamilies=") }
        #expect(families.contains { $0.split(separator: "=")[1].split(separator: " ").contains("AF_UNIX") })
        #expect(lines.contains("SystemCallFilter=@system-service"), "connect, sendmsg and recvmsg come from here")
        for line in lines {
            for hiding in ["InaccessiblePaths=", "TemporaryFileSystem=", "PrivateNetwork=yes", "BindPaths="] {
                #expect(
                    !(line.hasPrefix(hiding) && (line.contains("/run") || hiding == "PrivateNetwork=yes")), "\(line)")
            }
        }
    }

    @Test("Every unit runs daysomed or daysomectl by absolute path")
    func absolutePaths() throws {
        let listing = shell("ls \(repositoryRoot)/systemd/*.service")
        #expect(listing.status == 0)
        for path in listing.output.split(separator: "\n") {
            let name = String(path.split(separator: "/").last!)
            for line in try unitLines(name) where line.hasPrefix("ExecStart=") {
                let program = line.dropFirst("ExecStart=".count).split(separator: " ").first.map(String.init) ?? ""
                #expect(program == "/usr/bin/daysomed" || program == "/usr/bin/daysomectl", "\(name): \(line)")
            }
        }
    }

    @Test("A copy of the unit pointing at the built daysomed passes systemd-analyze verify")
    func systemdAnalyzeVerify() throws {
        let daemon = try builtProduct("daysomed")
        #expect(FileIO.exists(daemon), "build daysomed first: \(daemon)")
        let scratch = repositoryRoot + "/.testrun/unit-\(getpid())"
        try FileIO.makeDirectories(scratch + "/runtime", mode: 0o700)
        defer { _ = shell("rm -rf '\(scratch)'") }
        let unit = String(
            decoding: try FileIO.read(repositoryRoot + "/systemd/daysomed.service", limit: 1 << 16), as: UTF8.self)
        try FileIO.writeAtomically(
            scratch + "/daysomed.service", unit.replacing("ExecStart=/usr/bin/daysomed", with: "ExecStart=" + daemon),
            mode: 0o644)
        // The man pages are checked with the package; verify needs a runtime directory, not a manager.
        let result = shell(
            "XDG_RUNTIME_DIR='\(scratch)/runtime' systemd-analyze --user verify --man=no '\(scratch)/daysomed.service'")
        #expect(result.status == 0, "\(result.output)")
        let security = shell(
            "XDG_RUNTIME_DIR='\(scratch)/runtime' systemd-analyze security --offline=yes --user '\(scratch)/daysomed.service'"
        )
        let exposure = security.output.split(separator: "\n").first { $0.contains("Overall exposure level") }
        let figure = exposure.flatMap { line in
            line.split(separator: " ").compactMap { Double($0.trimmingPrefix(":")) }.first
        }
        #expect(figure != nil, "\(security.output.suffix(400))")
        #expect((figure ?? 10) <= 2.0, "exposure \(figure ?? -1): at most 2.0; the README records 1.8")
    }
}

@Suite("The user unit's state directory")
struct UnitStateDirectoryTests {
    /// The unit mounts the home read-only and makes only an existing state directory writable:
    /// the package's user-tmpfiles.d entry is what makes it exist before the daemon starts.
    @Test("The state directory the unit can write is the one user-tmpfiles.d creates")
    func tmpfilesCreatesTheWritableStateDirectory() throws {
        let lines = try unitLines("daysomed.service")
        let writable = lines.first { $0.hasPrefix("ReadWritePaths=") }?.split(separator: " ") ?? []
        let bytes = try FileIO.read(repositoryRoot + "/systemd/daysome-tmpfiles.conf", limit: 1 << 16)
        let entries = String(decoding: bytes, as: UTF8.self).split(separator: "\n")
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
        #expect(entries == ["d %h/.local/state/daysome 0700 - - -"])
        #expect(writable.contains { $0.hasSuffix("%h/.local/state/daysome") }, "\(writable)")
    }

    /// `systemd-tmpfiles --user` (systemd 252) reads user-tmpfiles.d only from the XDG
    /// directories: ~/.config, the runtime directory, /etc/xdg, ~/.local/share, /usr/local/share
    /// and /usr/share. The package had its entry in /usr/lib, so a kiosk lingered after the
    /// install never got her state directory ("State not saved: Read-only file system", seen on
    /// the booted Phosh tablet). The real systemd-tmpfiles is asked, with those default
    /// directories moved under a scratch root and the entry where scripts/build-deb installs it.
    @Test func thePackageInstallsItsTmpfilesEntryWhereAUsersSystemdTmpfilesReadsIt() throws {
        let script = readFile(repositoryRoot + "/scripts/build-deb")
        let install = script.split(separator: "\n").first { $0.contains("systemd/daysome-tmpfiles.conf \"$root/") }
        let destination = install.flatMap { $0.split(separator: "\"$root").last }.map { String($0.dropLast()) }
        #expect(destination?.hasSuffix("/user-tmpfiles.d/daysome.conf") == true, "\(install ?? "no install line")")
        guard let destination else { return }
        let root = try TestDirectory()
        var made = root.path
        for part in destination.split(separator: "/").dropLast() {
            made += "/\(part)"
            #expect(mkdir(made, 0o755) == 0 || errno == EEXIST, "mkdir \(made)")
        }
        try writeFile(root.path + destination, readFile(repositoryRoot + "/systemd/daysome-tmpfiles.conf"))
        let home = try root.makeDirectory("home")
        let runtime = try root.makeDirectory("run")
        let asked = shell(
            "env -i HOME=\(home) XDG_RUNTIME_DIR=\(runtime) XDG_CONFIG_DIRS=\(root.path)/etc/xdg "
                + "XDG_DATA_DIRS=\(root.path)/usr/local/share:\(root.path)/usr/share "
                + "systemd-tmpfiles --user --cat-config")
        print(
            "[UnitStateDirectoryTests] systemd-tmpfiles --user read: "
                + asked.output.split(separator: "\n").filter { $0.hasPrefix("# /") }.joined(separator: ", "))
        #expect(asked.status == 0, "\(asked.output)")
        #expect(asked.output.contains("# \(root.path)\(destination)\n"), "\(destination) is not read: \(asked.output)")
    }
}
