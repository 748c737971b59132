#!/usr/bin/python3
"""A stand-in notification server that answers Notify late, for the tests.

org.freedesktop.Notifications on the session bus, whose Notify reply (the id) comes DELAY seconds
after the call, as a busy server's may: the window in which a daemon has posted but holds no id.
Every Notify and CloseNotification is written to the log file LOG as a line ("notify 1
<summary>", "close 1"); "ready" goes to stdout once its name is owned.

It never stacks duplicates (dunst's stack_duplicates would hide a call posted twice): every Notify
shows a card of its own, except one naming a card still shown in replaces_id, which takes its
place under the same id, as the specification says. So what the log shows is what she saw: the
cards notified and never closed are still on screen. A test that freezes it (SIGSTOP) makes a hung
server: the calls queue, and it answers them when it runs again.

Options after LOG: --allow-replacement lets a later server take the name over from it (it then
keeps running, and its cards stay, closable by its unique name); --replace takes the name over
from a server that allows it. Two of them make a takeover, as a second server started with
replacement while the first still runs. --name=NAME is the name GetServerInformation gives (the
daemon follows a server's Do Not Disturb by that name: "Phosh Notify Daemon"). --linger=SECONDS
makes it exit on SIGTERM as dunst does: it gives up the name first, and its connection closes
SECONDS later, when it exits (a server that went away, its name owned by no one meanwhile).
"""

import signal
import sys

import dbus
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

INTERFACE = "org.freedesktop.Notifications"


class Server(dbus.service.Object):
    def __init__(self, bus, delay, log, name="slow-stand-in"):
        super().__init__(bus, "/org/freedesktop/Notifications")
        self.name = name
        self.delay = delay
        self.log = log
        self.next_id = 1
        self.shown = set()

    @dbus.service.method(INTERFACE, out_signature="ssss")
    def GetServerInformation(self):
        return (self.name, "daysome tests", "1", "1.2")

    @dbus.service.method(INTERFACE, out_signature="as")
    def GetCapabilities(self):
        return ["body", "actions"]

    @dbus.service.method(INTERFACE, in_signature="susssasa{sv}i", out_signature="u",
                         async_callbacks=("reply", "error"))
    def Notify(self, app, replaces, icon, summary, body, actions, hints, timeout, reply, error):
        if replaces in self.shown:
            notification = int(replaces)
        else:
            notification = self.next_id
            self.next_id += 1
        self.shown.add(notification)
        self.write(f"notify {notification} {summary}")

        def answer():
            reply(dbus.UInt32(notification))
            return False

        GLib.timeout_add(int(self.delay * 1000), answer)

    @dbus.service.method(INTERFACE, in_signature="u")
    def CloseNotification(self, notification):
        self.write(f"close {notification}")
        if notification in self.shown:
            self.shown.discard(notification)
            self.NotificationClosed(notification, dbus.UInt32(3))

    def write(self, line):
        with open(self.log, "a", encoding="utf-8") as log:
            log.write(line + "\n")

    @dbus.service.signal(INTERFACE, signature="uu")
    def NotificationClosed(self, notification, reason):
        pass


def main():
    delay, log, options = float(sys.argv[1]), sys.argv[2], sys.argv[3:]
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.SessionBus()
    names = [option[len("--name="):] for option in options if option.startswith("--name=")]
    server = Server(bus, delay, log, *names[-1:])
    name = dbus.service.BusName(  # noqa: F841 (kept: the name goes with it)
        INTERFACE, bus, do_not_queue=True, allow_replacement="--allow-replacement" in options,
        replace_existing="--replace" in options)
    print("ready", flush=True)
    loop = GLib.MainLoop()
    lingers = [float(option[len("--linger="):]) for option in options if option.startswith("--linger=")]
    if lingers:
        def going_away():
            bus.release_name(INTERFACE)
            GLib.timeout_add(int(lingers[-1] * 1000), loop.quit)
            return GLib.SOURCE_REMOVE
        GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGTERM, going_away)
    loop.run()
    del server


if __name__ == "__main__":
    main()
