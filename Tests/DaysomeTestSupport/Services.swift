// The services every integration target starts the same way: the products built next to the
// test bundle, a private session bus, Xvfb on a display of its own, and dunst with the tests'
// configuration. TestWorld decides which bus.

import Glibc

/// Where `swift build` put `name`: next to the test bundle (the directory of /proc/self/exe),
/// or in $DAYSOME_BIN_DIR when that is set.
public func builtProduct(_ name: String) throws -> String {
    var directory: String
    if let override = getenv("DAYSOME_BIN_DIR") {
        directory = String(cString: override)
    } else {
        var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = buffer.withUnsafeMutableBufferPointer { raw in
            raw.withMemoryRebound(to: CChar.self) { readlink("/proc/self/exe", $0.baseAddress!, $0.count - 1) }
        }
        guard count > 0 else {
            throw HarnessError("readlink /proc/self/exe failed: \(errnoText(errno))")
        }
        let executable = String(decoding: buffer[0..<count], as: UTF8.self)
        directory = String(executable[..<(executable.lastIndex(of: "/") ?? executable.startIndex)])
    }
    let candidate = "\(directory)/\(name)"
    guard access(candidate, X_OK) == 0 else {
        throw HarnessError(
            "'\(name)' is not built next to the test bundle (\(directory)): run `swift build --build-tests` with "
                + "the same --scratch-path before `swift test --skip-build`, or set DAYSOME_BIN_DIR.")
    }
    return candidate
}

/// The dunst configuration of every test: duplicates are not stacked (a second identical call
/// must show as a second notification), and the history keeps everything.
public let dunstConfiguration = """
    [global]
        monitor = 0
        follow = none
        width = 300
        height = 300
        origin = top-right
        offset = 10x50
        notification_limit = 0
        indicate_hidden = yes
        stack_duplicates = false
        hide_duplicate_count = false
        history_length = 100
        sticky_history = yes
        markup = full
        format = "<b>%s</b>\\n%b"
        show_age_threshold = -1
        idle_threshold = 0
        ignore_dbusclose = false
        always_run_script = false
        font = Monospace 8

    """

/// Xvfb on a display it picks (-displayfd, so parallel tests do not collide), logging to
/// `xvfb.log` (`xvfb-2.log`, … for a second try); returns the process and its display (":N").
/// Under the parallel phase's load, an Xvfb can lose the race for a display number to another
/// one starting at the same moment (`_XSERVTransSocketUNIXCreateListener … failed`) or say
/// nothing for 15 s (clean-clone CI rehearsals on this machine saw both): it gets three
/// tries, each with a fresh process, before the test fails. Nothing the daemon does is retried.
public func startXvfb(
    in directory: TestDirectory, home: String
) async throws -> (process: SpawnedProcess, display: String) {
    let xvfbPath = try findExecutable("Xvfb", package: "xvfb")
    var failures: [String] = []
    for attempt in 1...3 {
        let log = attempt == 1 ? "xvfb.log" : "xvfb-\(attempt).log"
        let pipe = try makePipe()
        defer { close(pipe.read) }
        let xvfb = try SpawnedProcess(
            xvfbPath, ["-displayfd", "1", "-screen", "0", "640x480x24", "-nolisten", "tcp"],
            environment: ["PATH": childPath, "HOME": home], stdout: pipe.write,
            stderrPath: "\(directory.path)/\(log)")
        close(pipe.write)
        if let number = await readLine(pipe.read, timeout: 15), Int(number) != nil {
            return (xvfb, ":\(number)")
        }
        xvfb.send(SIGKILL)
        _ = await xvfb.exit(within: 5)
        failures.append("try \(attempt): " + directory.read(log))
    }
    throw HarnessError("Xvfb reported no display in 3 tries of 15 s: " + failures.joined(separator: " | "))
}

/// dunst with the tests' configuration, on the bus and display that `environment` names,
/// logging to `dunst.log`; returns once `ready` says it answers.
public func startDunst(
    in directory: TestDirectory, environment: [String: String], ready: @escaping () async throws -> Bool
) async throws -> SpawnedProcess {
    let dunstPath = try findExecutable("dunst", package: "dunst")
    _ = try findExecutable("dunstctl", package: "dunst")
    let config = try directory.write("dunstrc", dunstConfiguration)
    let dunst = try SpawnedProcess(
        dunstPath, ["-config", config], environment: environment, stderrPath: "\(directory.path)/dunst.log")
    do {
        _ = try await poll("dunst to own org.freedesktop.Notifications", timeout: 15) { () -> Bool? in
            if dunst.poll() {
                throw HarnessError("dunst exited early: " + directory.read("dunst.log"))
            }
            return try await ready() ? true : nil
        }
    } catch {
        dunst.send(SIGKILL)
        _ = await dunst.exit(within: 5)
        throw error
    }
    return dunst
}

/// A dbus-daemon config of the tests' own, of `type` (`session` or `system`), listening on
/// `socket`: no service directories unless `serviceDirectory` is given (the stock session config
/// would let the bus activate /usr/bin/dunst behind our back), anyone may own any name, and
/// eavesdropping is allowed for the tests' bus monitors.
/// `anyUser` lets every user's processes connect (a desktop the test runs as an unprivileged user).
public func busConfiguration(
    type: String = "session", socket: String, serviceDirectory: String? = nil, anyUser: Bool = false
) -> String {
    """
    <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
     "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
    <busconfig>
      <type>\(type)</type>
      <listen>unix:path=\(socket)</listen>
      <auth>EXTERNAL</auth>
    \(serviceDirectory.map { "  <servicedir>\($0)</servicedir>\n" } ?? "")\
      <policy context="default">
        <allow send_destination="*" eavesdrop="true"/>
        <allow receive_sender="*"/>
        <allow eavesdrop="true"/>
        <allow own="*"/>
    \(anyUser ? "    <allow user=\"*\"/>\n" : "")\
      </policy>
    </busconfig>
    """
}

/// `dbus-daemon --nofork --print-address=1` with `busConfiguration` on `<directory>/<name>`
/// (config `<name>.conf`, log `<name>.log`), with `environment`; returns the process and the
/// address it printed. A socket left by a bus of the same name that the test stopped is removed.
public func startPrivateBus(
    _ name: String, in directory: TestDirectory, type: String = "session", serviceDirectory: String? = nil,
    anyUser: Bool = false, environment: [String: String]
) async throws -> (process: SpawnedProcess, address: String) {
    let executable = try findExecutable("dbus-daemon", package: "dbus-daemon")
    let socket = "\(directory.path)/\(name)"
    unlink(socket)
    let config = try directory.write(
        "\(name).conf",
        busConfiguration(type: type, socket: socket, serviceDirectory: serviceDirectory, anyUser: anyUser))
    let pipe = try makePipe()
    defer { close(pipe.read) }
    let process = try SpawnedProcess(
        executable, ["--config-file=\(config)", "--nofork", "--print-address=1"], environment: environment,
        stdout: pipe.write, stderrPath: "\(directory.path)/\(name).log")
    close(pipe.write)
    // Generous: ten worlds of one suite start their buses at once, beside a build on a shared machine.
    guard let address = await readLine(pipe.read, timeout: 30), !address.isEmpty else {
        process.stop()
        throw HarnessError("dbus-daemon '\(name)' printed no address within 30 s: " + directory.read("\(name).log"))
    }
    return (process, address)
}
