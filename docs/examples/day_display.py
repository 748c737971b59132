#!/usr/bin/env python3
"""A GTK 4 day display that tells daysomed when the day is in front of her.

Needs PyGObject and GTK 4 (Debian and Ubuntu: python3-gi and gir1.2-gtk-4.0). A locked screen
needs no code here: daysomed follows the session's lock itself.

One day display at a time: a second one started while another runs (a stale instance left by a
session restart) asks the first to quit, waits until it has said away and gone, and takes its
place under its own pid. It never just hands its window to the first and exits: whoever started
it (day-display-launcher) would then say away while the first one's day is still in front.

Usage: day_display.py [--display-state PATH] [--no-pid]
"""

import argparse
import os
import signal
import sys

import gi

gi.require_version("Gdk", "4.0")
gi.require_version("Gtk", "4.0")
from gi.repository import Gdk, Gio, GLib, Gtk  # noqa: E402

APPLICATION_ID = "org.example.DayDisplay"


class DisplayState:
    """daysomed's display state file: one line, written atomically, only when it changes."""

    def __init__(self, path=None, with_pid=True):
        runtime = os.environ.get("XDG_RUNTIME_DIR") or f"/run/user/{os.getuid()}"
        self.path = path or os.path.join(runtime, "daysome", "display")
        self.with_pid = with_pid  # False inside a Flatpak: see "Sandboxed apps"
        self.last = None
        self.pending_away = 0

    def foreground(self):
        # Never delayed: a call must not land over the day (rule 1).
        if self.pending_away:
            GLib.source_remove(self.pending_away)
            self.pending_away = 0
        self._write("foreground")

    def away(self, settle_ms=300):
        # Let focus flicker (a dialog, a tap on the panel) settle before saying away.
        if not self.pending_away:
            self.pending_away = GLib.timeout_add(settle_ms, self._settled)

    def away_now(self):
        if self.pending_away:
            GLib.source_remove(self.pending_away)
            self.pending_away = 0
        self._write("away")

    def _settled(self):
        self.pending_away = 0
        self._write("away")
        return GLib.SOURCE_REMOVE

    def _write(self, state):
        if state == self.last:
            return
        directory = os.path.dirname(self.path)
        os.makedirs(directory, mode=0o700, exist_ok=True)
        line = f"{state} pid={os.getpid()}\n" if self.with_pid else f"{state}\n"
        temporary = os.path.join(directory, f".display.{os.getpid()}.tmp")
        with open(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as handle:
            handle.write(line)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, self.path)  # rename(2) in the same directory: atomic
        self.last = state


class DayWindow(Gtk.ApplicationWindow):
    def __init__(self, app, state):
        super().__init__(application=app, title="Today")
        self.state = state
        self.set_child(Gtk.Label(label="Friday afternoon"))
        self.connect("notify::is-active", self.update)
        self.connect("notify::visible", self.update)
        self.connect("realize", self.on_realize)

    def on_realize(self, *_):
        # The window's surface is a Gdk.Toplevel; minimising shows in its state.
        self.get_surface().connect("notify::state", self.update)

    def in_front(self):
        surface = self.get_surface()
        minimised = surface is not None and bool(surface.get_state() & Gdk.ToplevelState.MINIMIZED)
        return self.get_visible() and self.is_active() and not minimised

    def update(self, *_):
        if self.in_front():
            self.state.foreground()
        else:
            self.state.away()


class DayApp(Gtk.Application):
    def __init__(self, state_path=None, with_pid=True):
        super().__init__(application_id=APPLICATION_ID)
        self.state = DisplayState(state_path, with_pid)
        self.connect("activate", self.on_activate)
        self.connect("shutdown", self.on_shutdown)
        # A newer instance ends this one (see take_over): it quits as on SIGTERM, saying away.
        step_aside = Gio.SimpleAction.new("step-aside", None)
        step_aside.connect("activate", lambda *_: self.quit())
        self.add_action(step_aside)
        # SIGTERM (a session ending, systemctl stop) quits cleanly, so shutdown runs.
        GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGTERM, self.quit_on_signal)

    def quit_on_signal(self):
        self.quit()
        return GLib.SOURCE_REMOVE

    def on_activate(self, *_):
        self.state.foreground()  # before the window appears (rule 1)
        DayWindow(self, self.state).present()

    def on_shutdown(self, *_):
        # The windows are gone by now: say away at once, so no call is lost to a stale
        # "foreground" (with pid=N the daemon would also see the process end).
        self.state.away_now()


def take_over(timeout_s=10):
    """Ends a day display already running in this session, and returns once it is gone.

    GtkApplication is single-instance: started again, it would give the first instance its
    window and exit at once. Instead the first is asked to step aside (it quits, saying away),
    and this process becomes the display, keeping its pid (the one its launcher announced)."""
    probe = Gio.Application(application_id=APPLICATION_ID, flags=Gio.ApplicationFlags.FLAGS_NONE)
    try:
        probe.register(None)
    except GLib.Error:
        return True  # no session bus: nothing to take over from
    if not probe.get_is_remote():
        return True  # none running; the name is released when this process execs
    bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
    gone = {"done": False}
    loop = GLib.MainLoop()

    def vanished(*_):
        gone["done"] = True
        loop.quit()

    watch = Gio.bus_watch_name_on_connection(bus, APPLICATION_ID, Gio.BusNameWatcherFlags.NONE, None, vanished)
    probe.activate_action("step-aside", None)
    GLib.timeout_add(timeout_s * 1000, loop.quit)
    loop.run()
    Gio.bus_unwatch_name(watch)
    return gone["done"]


def main(argv):
    parser = argparse.ArgumentParser(description="The day display.")
    parser.add_argument("--display-state", metavar="PATH",
                        help="the file daysomed reads (its --display-state); default $XDG_RUNTIME_DIR/daysome/display")
    parser.add_argument("--no-pid", action="store_true", help="leave pid=N out (inside a Flatpak)")
    options = parser.parse_args(argv[1:])
    if os.environ.get("DAY_DISPLAY_TOOK_OVER") is None:
        if not take_over():
            print("day_display: another day display is running and did not quit: not starting a second",
                  file=sys.stderr)
            return 1
        # A fresh process image under the same pid: the probe above holds no name any more.
        os.environ["DAY_DISPLAY_TOOK_OVER"] = "1"
        os.execv(sys.executable, [sys.executable] + argv)
    del os.environ["DAY_DISPLAY_TOOK_OVER"]
    return DayApp(state_path=options.display_state, with_pid=not options.no_pid).run(argv[:1])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
