#!/usr/bin/python3
"""A stand-in for a desktop's org.freedesktop.ScreenSaver on the session bus, for the tests.

GetActive() and SetActive(b) as KDE and Xfce offer them; SetActive announces the change with
ActiveChanged(b), as a locker does. Prints "ready" once its name is owned.
"""

import dbus
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

INTERFACE = "org.freedesktop.ScreenSaver"


class ScreenSaver(dbus.service.Object):
    def __init__(self, bus):
        super().__init__(bus, "/org/freedesktop/ScreenSaver")
        self.active = False

    @dbus.service.method(INTERFACE, out_signature="b")
    def GetActive(self):
        return self.active

    @dbus.service.method(INTERFACE, in_signature="b", out_signature="b")
    def SetActive(self, active):
        if bool(active) != self.active:
            self.active = bool(active)
            self.ActiveChanged(self.active)
        return True

    @dbus.service.signal(INTERFACE, signature="b")
    def ActiveChanged(self, active):
        pass


def main():
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.SessionBus()
    ScreenSaver(bus)
    name = dbus.service.BusName(INTERFACE, bus, do_not_queue=True)  # noqa: F841
    print("ready", flush=True)
    GLib.MainLoop().run()


if __name__ == "__main__":
    main()
