#!/usr/bin/python3
"""A stand-in for a desktop's screensaver interface on the session bus, for the tests.

With no argument, org.freedesktop.ScreenSaver as KDE and Xfce offer it; with `gnome`,
org.gnome.ScreenSaver at /org/gnome/ScreenSaver as Phosh and GNOME Shell offer it (Phosh's only
word that it locked: it never sets logind's LockedHint). GetActive() and SetActive(b);
SetActive announces the change with ActiveChanged(b), as a locker does. With `not-supported`,
GetActive answers org.freedesktop.DBus.Error.NotSupported, as gsd's screensaver proxy does
under phosh-session. Prints "ready" once its name is owned.

Usage: screensaver.py [gnome] [not-supported]
"""

import sys

import dbus
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib


def screensaver_class(interface, not_supported):
    class ScreenSaver(dbus.service.Object):
        def __init__(self, bus, path):
            super().__init__(bus, path)
            self.active = False

        @dbus.service.method(interface, out_signature="b")
        def GetActive(self):
            if not_supported:
                raise dbus.exceptions.DBusException(
                    "This method is not part of the idle inhibition specification",
                    name="org.freedesktop.DBus.Error.NotSupported")
            return self.active

        @dbus.service.method(interface, in_signature="b", out_signature="b")
        def SetActive(self, active):
            if bool(active) != self.active:
                self.active = bool(active)
                self.ActiveChanged(self.active)
            return True

        @dbus.service.signal(interface, signature="b")
        def ActiveChanged(self, active):
            pass

    return ScreenSaver


def main():
    gnome = "gnome" in sys.argv[1:]
    interface = "org.gnome.ScreenSaver" if gnome else "org.freedesktop.ScreenSaver"
    path = "/org/gnome/ScreenSaver" if gnome else "/org/freedesktop/ScreenSaver"
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.SessionBus()
    screensaver_class(interface, "not-supported" in sys.argv[1:])(bus, path)
    name = dbus.service.BusName(interface, bus, do_not_queue=True)  # noqa: F841
    print("ready", flush=True)
    GLib.MainLoop().run()


if __name__ == "__main__":
    main()
