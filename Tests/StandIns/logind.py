#!/usr/bin/python3
"""A stand-in for logind on a private system bus, for the tests: just what daysomed reads.

Manager.GetUser(uid) for the one user it is told about, the User's Display property (the
graphical session, or none), and the Session's LockedHint and IdleHint, each change announced
with PropertiesChanged as logind does. A test drives it the way a locker and a login would:
Session.SetLockedHint(b) and SetIdleHint(b) (the real logind methods), and
org.example.StandIn.SetDisplay(s) ("" for no session). Prints "ready" once its name is owned.

Usage: logind.py UID   (with DBUS_SYSTEM_BUS_ADDRESS set to the private bus)
"""

import sys

import dbus
import dbus.mainloop.glib
import dbus.lowlevel
import dbus.service
from gi.repository import GLib

PROPERTIES = "org.freedesktop.DBus.Properties"
MANAGER = "org.freedesktop.login1.Manager"
USER = "org.freedesktop.login1.User"
SESSION = "org.freedesktop.login1.Session"
CONTROL = "org.example.StandIn"


class Session(dbus.service.Object):
    def __init__(self, bus, session_id):
        self.session_id = session_id
        self.path = f"/org/freedesktop/login1/session/{session_id}"
        super().__init__(bus, self.path)
        self.values = {"LockedHint": False, "IdleHint": False, "Id": session_id}

    @dbus.service.method(PROPERTIES, in_signature="ss", out_signature="v")
    def Get(self, interface, name):
        if interface != SESSION or name not in self.values:
            raise dbus.exceptions.DBusException("no such property", name="org.freedesktop.DBus.Error.UnknownProperty")
        return self.values[name]

    @dbus.service.method(PROPERTIES, in_signature="s", out_signature="a{sv}")
    def GetAll(self, interface):
        return self.values if interface == SESSION else {}

    @dbus.service.signal(PROPERTIES, signature="sa{sv}as")
    def PropertiesChanged(self, interface, changed, invalidated):
        pass

    def set(self, name, value):
        if self.values[name] != value:
            self.values[name] = value
            self.PropertiesChanged(SESSION, {name: dbus.Boolean(value)}, [])

    @dbus.service.method(SESSION, in_signature="b")
    def SetLockedHint(self, locked):
        self.set("LockedHint", bool(locked))

    @dbus.service.method(SESSION, in_signature="b")
    def SetIdleHint(self, idle):
        self.set("IdleHint", bool(idle))

    # Session.Lock()/Unlock(), as `loginctl lock-session`/`unlock-session` call them: logind only
    # asks the session's locker by these signals, and changes no LockedHint itself.
    @dbus.service.method(SESSION)
    def Lock(self):
        self.emit("Lock")

    @dbus.service.method(SESSION)
    def Unlock(self):
        self.emit("Unlock")

    def emit(self, member):
        # The signal shares its name with the method, which dbus-python's decorators cannot say.
        self.connection.send_message(dbus.lowlevel.SignalMessage(self.path, SESSION, member))


class User(dbus.service.Object):
    def __init__(self, bus, uid, sessions):
        self.path = f"/org/freedesktop/login1/user/_{uid}"
        super().__init__(bus, self.path)
        self.sessions = sessions
        self.display = "c1"

    def display_value(self):
        if self.display:
            return dbus.Struct((self.display, dbus.ObjectPath(self.sessions[self.display].path)), signature="so")
        return dbus.Struct(("", dbus.ObjectPath("/")), signature="so")

    @dbus.service.method(PROPERTIES, in_signature="ss", out_signature="v")
    def Get(self, interface, name):
        if interface != USER or name != "Display":
            raise dbus.exceptions.DBusException("no such property", name="org.freedesktop.DBus.Error.UnknownProperty")
        return self.display_value()

    @dbus.service.signal(PROPERTIES, signature="sa{sv}as")
    def PropertiesChanged(self, interface, changed, invalidated):
        pass

    @dbus.service.method(CONTROL, in_signature="s")
    def SetDisplay(self, session_id):
        if session_id and session_id not in self.sessions:
            self.sessions[session_id] = Session(self.connection, session_id)
        self.display = str(session_id)
        self.PropertiesChanged(USER, {"Display": self.display_value()}, [])


class Manager(dbus.service.Object):
    def __init__(self, bus, uid, user):
        super().__init__(bus, "/org/freedesktop/login1")
        self.uid = uid
        self.user = user

    @dbus.service.method(MANAGER, in_signature="u", out_signature="o")
    def GetUser(self, uid):
        if int(uid) != self.uid:
            raise dbus.exceptions.DBusException(f"User ID {uid} is not logged in or lingering",
                                                name="org.freedesktop.login1.NoSuchUser")
        return dbus.ObjectPath(self.user.path)


def main():
    uid = int(sys.argv[1])
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.SystemBus()
    sessions = {}
    sessions["c1"] = Session(bus, "c1")
    user = User(bus, uid, sessions)
    Manager(bus, uid, user)
    name = dbus.service.BusName("org.freedesktop.login1", bus, do_not_queue=True)  # noqa: F841
    print("ready", flush=True)
    GLib.MainLoop().run()


if __name__ == "__main__":
    main()
