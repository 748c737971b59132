// Support: households written by the tests (one call at a whole minute), minutes on the wall
// clock, the small programs the daemon is given to run (a display command, a fake screen saver),
// and the printed measurements.

import DaysomeCore
import DaysomeTestSupport
import Glibc

/// A UTC household with calls on and one daily meal at `minute`: the call these tests wait for.
func household(callAt minute: Int64, chime: String = "bell", bringDayBack: Bool = false) -> String {
    """
    {
      "version": 1,
      "timeZone": "UTC",
      "clock": "24h",
      "settings": { "notifyInOtherApps": true, "bringDayBack": \(bringDayBack), "chime": "\(chime)" },
      "items": [
        { "id": "soup", "label": "Soup", "detail": "Tomato soup and bread", "kind": "meal",
          "time": "\(utcClockTime(minute))", "repeat": "daily" }
      ]
    }

    """
}

/// Writes an executable shell script (0700) into the world and returns its path.
@discardableResult
func writeScript(_ world: TestWorld, _ name: String, _ text: String) throws -> String {
    let path = try world.directory.write(name, text)
    guard chmod(path, 0o700) == 0 else {
        throw HarnessError("chmod \(path) failed: \(errnoText(errno))")
    }
    return path
}

/// A program (python3, so nothing clears the signal mask it inherits, as a shell does at start-up)
/// that appends the time it ran and the signals it was started with blocked (`SigBlk`, hex) to
/// `log`, then exits with `status`.
@discardableResult
func writeInspectingProgram(_ world: TestWorld, _ name: String, log: String, status: Int = 0) throws -> String {
    let python = try findExecutable("python3", package: "python3")
    return try writeScript(
        world, name,
        """
        #!\(python)
        import sys, time
        now = time.time()
        with open("/proc/self/status") as status:
            blocked = [line.split()[1] for line in status if line.startswith("SigBlk:")][0]
        with open(\(pythonQuoted(log)), "a") as out:
            out.write("%.6f %s\\n" % (now, blocked))
        sys.exit(\(status))

        """)
}

/// A Python string literal of a path.
func pythonQuoted(_ text: String) -> String {
    "'" + text.replacing("\\", with: "\\\\").replacing("'", with: "\\'") + "'"
}

/// The wall-clock seconds first on each line of a file that programs append `date +%s.%N` to.
func timesLogged(_ path: String) -> [Double] {
    readFile(path).split(separator: "\n").compactMap { line in
        line.split(separator: " ").first.flatMap { Double(String($0)) }
    }
}

/// The times on the lines of `path` whose second field is `pid` (the fake screen saver's callers).
func timesLogged(_ path: String, by pid: pid_t) -> [Double] {
    readFile(path).split(separator: "\n").compactMap { line in
        let fields = line.split(separator: " ")
        guard fields.count == 2, fields[1] == "\(pid)" else { return nil }
        return Double(String(fields[0]))
    }
}

/// The blocked-signal masks an inspecting program logged, one per run.
func masksLogged(_ path: String) -> [String] {
    readFile(path).split(separator: "\n").compactMap { line in
        line.split(separator: " ").dropFirst().first.map(String.init)
    }
}

/// A fake org.freedesktop.ScreenSaver (python3-dbus): appends the time of every
/// SimulateUserActivity call and the caller's pid to its log, and writes `<log>.ready` once it owns
/// its name.
let fakeScreenSaver = """
    import sys, time
    import dbus, dbus.service
    from dbus.mainloop.glib import DBusGMainLoop
    from gi.repository import GLib

    DBusGMainLoop(set_as_default=True)
    log = sys.argv[1]
    INTERFACE = "org.freedesktop.ScreenSaver"

    class ScreenSaver(dbus.service.Object):
        @dbus.service.method(INTERFACE, in_signature="", out_signature="", sender_keyword="sender")
        def SimulateUserActivity(self, sender=None):
            now = time.time()
            pid = driver.GetConnectionUnixProcessID(sender)
            with open(log, "a") as out:
                out.write("%.6f %d\\n" % (now, pid))

    bus = dbus.SessionBus()
    driver = dbus.Interface(bus.get_object("org.freedesktop.DBus", "/org/freedesktop/DBus"), "org.freedesktop.DBus")
    name = dbus.service.BusName(INTERFACE, bus, do_not_queue=True)
    saver = ScreenSaver(bus, "/org/freedesktop/ScreenSaver")
    with open(log + ".ready", "w") as out:
        out.write("ready\\n")
    GLib.MainLoop().run()

    """

/// Prints one measurement line, so the run's output carries the figures.
func report(_ text: String) {
    print("[HeardAndSeenTests] \(text)")
}

/// Seconds as `+3.007 s`.
func signedSeconds(_ value: Double) -> String {
    (value >= 0 ? "+" : "") + fixed(value, 3) + " s"
}
