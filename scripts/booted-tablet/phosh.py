#!/usr/bin/env python3
"""The booted tablet with Phosh (scripts/check-booted-tablet, after the dunst walk in walk.py).

Debian 12 with systemd as PID 1 (systemd-nspawn -b), the package from HEAD installed with apt,
and the kiosk's session a real logind session (a unit with PAMName=login) running Phosh 0.24 on
phoc's headless backend: Phosh's own notification daemon shows the calls, and Phosh's lock screen
locks at every session start, on its own (org.gnome.ScreenSaver) and on `loginctl lock-session`,
and is unlocked with her PIN typed on its keypad (wtype). Every step prints one line with its
figure, as walk.py's do; a step that cannot run fails, nothing is skipped. Exits 1 if any step
failed. Only the container this script booted is stopped.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time

import walk
from walk import KIOSK, UID, StepFailed, poll, record, say

PIN = "4826"  # the kiosk user's password: Phosh's keypad has digits only
SESSION_UNIT = "kiosk-phosh.service"
WAYLAND = {"WAYLAND_DISPLAY": "wayland-0"}
LATE_USER, LATE_UID = "nan", 1001
BUS_LOG = f"/home/{KIOSK}/bus.log"  # on the tree's disk, read from the host
SERVER = "Phosh Notify Daemon"


def prepare_tree(o):
    # Her PIN is her password: what Phosh's keypad checks, via PAM.
    t = walk.fresh_tree_with_kiosk(o, password=PIN)
    # The session: phoc on its headless backend (no GPU: pixman), Phosh in it. phoc runs the shell
    # script with WAYLAND_DISPLAY set, which hands the session's variables to the user manager
    # (as docs/kiosk.md's import-environment does) before Phosh starts; Phosh locks at its start.
    with open(f"{t}/usr/local/bin/kiosk-phosh-session", "w") as handle:
        handle.write("""#!/bin/sh
# The kiosk's Phosh session: phoc on its headless backend, Phosh in it (locked at its start).
export WLR_BACKENDS=headless WLR_RENDERER=pixman WLR_LIBINPUT_NO_DEVICES=1
export GDK_BACKEND=wayland GSK_RENDERER=cairo NO_AT_BRIDGE=1
export DBUS_SESSION_BUS_ADDRESS="unix:path=$XDG_RUNTIME_DIR/bus"
exec phoc -C /usr/share/phosh/phoc.ini -E /usr/local/bin/kiosk-phosh-shell
""")
    with open(f"{t}/usr/local/bin/kiosk-phosh-shell", "w") as handle:
        handle.write("""#!/bin/sh
systemctl --user import-environment WAYLAND_DISPLAY XDG_CURRENT_DESKTOP XDG_SESSION_TYPE
/usr/libexec/phosh &
phosh=$!
# The tablet's buttons: a tablet's power and volume keys are a keyboard to the compositor, and
# headless phoc has no input device at all. Without a keyboard on the seat no window ever gets
# keyboard focus, so GTK never calls the day display active and it would say away in front of
# her. A virtual keyboard (wtype, held open) stands for the buttons once Phosh is up.
i=0
until gdbus call --session -d org.freedesktop.DBus -o /org/freedesktop/DBus \\
    -m org.freedesktop.DBus.NameHasOwner org.gnome.ScreenSaver 2>/dev/null | grep -q true || [ $i -ge 150 ]; do
    sleep 0.2
    i=$((i + 1))
done
wtype -k Shift_L -s 2000000000 &
wait $phosh
""")
    for name in ("kiosk-phosh-session", "kiosk-phosh-shell"):
        os.chmod(f"{t}/usr/local/bin/{name}", 0o755)
    with open(f"{t}/etc/systemd/system/{SESSION_UNIT}", "w") as handle:
        handle.write(f"""[Unit]
Description=The kiosk's Phosh session (autologin)
After=systemd-user-sessions.service user@{UID}.service

[Service]
User={KIOSK}
PAMName=login
Environment=XDG_SESSION_TYPE=wayland XDG_SESSION_CLASS=user XDG_SESSION_DESKTOP=phosh
Environment=XDG_CURRENT_DESKTOP=Phosh:GNOME LANG=C.UTF-8
ExecStart=/usr/local/bin/kiosk-phosh-session

[Install]
WantedBy=multi-user.target
""")
    subprocess.run(["chroot", t, "runuser", "-u", KIOSK, "--", "mkdir", "-p", f"/home/{KIOSK}/.config/daysome"],
                   check=True)


def set_session_at_boot(o, on):
    link = f"{o.tree}/etc/systemd/system/multi-user.target.wants/{SESSION_UNIT}"
    if on and not os.path.lexists(link):
        os.symlink(f"/etc/systemd/system/{SESSION_UNIT}", link)
    elif not on and os.path.lexists(link):
        os.remove(link)


# -- what the bus carries --------------------------------------------------------------------------

def watch_bus(tablet):
    """dbus-monitor on her session bus, for the calls Phosh is given and its screensaver's word."""
    tablet.kiosk(["setsid", "-f", "sh", "-c",
                  "exec dbus-monitor --session \"interface='org.freedesktop.Notifications'\" "
                  f"\"interface='org.gnome.ScreenSaver'\" >>{BUS_LOG} 2>&1"])


def bus_log(tablet):
    try:
        with open(tablet.o.tree + BUS_LOG, errors="replace") as handle:
            return handle.read()
    except OSError:
        return ""


def bus_events(text):
    """(member, what it carried) of each Notify (its summary), CloseNotification and
    NotificationClosed (the id), and ActiveChanged (the word)."""
    events = []
    lines = text.splitlines()
    for index, line in enumerate(lines):
        match = re.search(r"member=(Notify|CloseNotification|NotificationClosed|ActiveChanged)$", line)
        if not match or not line.startswith(("method call", "signal")):
            continue
        values = []
        for following in lines[index + 1:index + 12]:
            if following.startswith(("method", "signal")):
                break
            value = re.match(r"\s+(string|uint32|boolean) (.*)", following)
            if value:
                values.append((value.group(1), value.group(2).strip('"')))
        strings = [v for kind, v in values if kind == "string"]
        carried = (strings[2] if len(strings) > 2 else "") if match.group(1) == "Notify" else \
            (values[0][1] if values else "")
        events.append((match.group(1), carried))
    return events


def since(tablet, mark):
    return bus_events(bus_log(tablet)[mark:])


def mark(tablet):
    return len(bus_log(tablet))


# -- Phosh ------------------------------------------------------------------------------------------

def wayland(tablet, command, **kwargs):
    return tablet.kiosk(command, env=WAYLAND, **kwargs)


def gnome_screensaver(tablet, method, *arguments):
    return tablet.kiosk(["gdbus", "call", "--session", "-d", "org.gnome.ScreenSaver", "-o", "/org/gnome/ScreenSaver",
                         "-m", f"org.gnome.ScreenSaver.{method}"] + list(arguments), check=False)


def phosh_active(tablet):
    out = gnome_screensaver(tablet, "GetActive").stdout
    return "true" in out if out else None


def lock(tablet):
    return tablet.status().get("lock") or {}


def locked_by_phosh(tablet):
    state = lock(tablet)
    return state.get("locked") is True and state.get("decidedBy") == "gnomeScreenSaver" and state


def unlocked(tablet):
    state = lock(tablet)
    return state.get("locked") is False and state


def unlock_with_pin(tablet):
    """Her PIN on Phosh's keypad, typed as she would on a keyboard: the digits, then Enter.
    Returns (seconds from the first typing to the daemon's unlocked, tries)."""
    started = time.monotonic()
    typed = 0
    for _ in range(3):
        # Digits go to its entry (and bring up the keypad page); what an earlier try left is
        # deleted first. Return is its own press: sent with the digits, it was lost.
        wayland(tablet, ["wtype"] + ["-k", "BackSpace"] * 8, check=False)
        time.sleep(0.3)
        wayland(tablet, ["wtype", PIN], check=False)
        time.sleep(0.3)
        wayland(tablet, ["wtype", "-k", "Return"], check=False)
        typed += 1
        try:
            poll("the daemon to see the unlock", 8, lambda: unlocked(tablet))
            return time.monotonic() - started, typed
        except StepFailed:
            continue
    raise StepFailed(f"Phosh did not unlock after the PIN typed {typed} times: GetActive "
                     f"{gnome_screensaver(tablet, 'GetActive').stdout.strip()}, lock {json.dumps(lock(tablet))[:300]}")


def screenshot(tablet, name):
    shot = f"/home/{KIOSK}/{name}.png"
    wayland(tablet, ["grim", shot])
    shutil.copy(f"{tablet.o.tree}{shot}", os.path.join(tablet.o.logs, f"{name}.png"))
    return shot


def changed_pixels(tablet, first, second):
    """Pixels that differ between two screenshots (ImageMagick's compare, absolute error)."""
    out = tablet.kiosk(["compare", "-metric", "AE", first, second, "null:"], check=False)
    text = (out.stderr or out.stdout).strip().split()
    try:
        return int(float(text[0]))
    except (IndexError, ValueError):
        raise StepFailed(f"compare {first} {second}: {out.stdout}{out.stderr}")


def launch_display(tablet):
    sid = walk.sessions(tablet)
    tablet.kiosk(["setsid", "-f", "sh", "-c",
                  "exec day-display-launcher python3 /usr/local/share/daysome-check/day_display.py "
                  ">>/tmp/day-display.log 2>&1"],
                 env=dict(WAYLAND, XDG_SESSION_ID=sid[0] if sid else "", GDK_BACKEND="wayland",
                          GSK_RENDERER="cairo", NO_AT_BRIDGE="1"))


def kill_display(tablet):
    pid = walk.display_pid(tablet)
    if not pid:
        raise StepFailed("the display state file names no display pid")
    tablet.run(["kill", "-KILL", str(pid)])
    return pid


def file_says(tablet):
    return lock(tablet).get("fileSays")


# -- the walk ----------------------------------------------------------------------------------------

def start_session(tablet):
    started = time.monotonic()
    tablet.run(["systemctl", "start", SESSION_UNIT])
    return started


def session_up(tablet, started):
    """Phosh up in a logind session: its screensaver on the bus, its notification daemon named."""
    poll("Phosh's org.gnome.ScreenSaver on the bus", 60, lambda: phosh_active(tablet) is not None)
    up = time.monotonic() - started
    server = poll(f"daysomed to see {SERVER}", 30,
                  lambda: ((tablet.status().get("notificationServer") or {}).get("name") == SERVER)
                  and tablet.status().get("notificationServer"))
    sid = walk.sessions(tablet)
    fields = tablet.run(["loginctl", "show-session", sid[0], "-p", "Type", "-p", "Class", "-p", "Service"],
                        check=False).stdout.split() if sid else []
    return up, server, sid, fields


def walk_phosh(o, tablet):
    say("== boot 1: install the package with apt")
    state, seconds = tablet.boot()
    poll("kiosk's user manager (lingering)", 30,
         lambda: tablet.run(["systemctl", "is-active", f"user@{UID}.service"], check=False).stdout.strip() == "active")
    install = tablet.run(["apt-get", "install", "-y", "/root/daysome-new.deb"],
                         env={"DEBIAN_FRONTEND": "noninteractive"}, check=False, timeout=180)
    if install.returncode != 0:
        record("apt install ./daysome.deb", False, (install.stdout + install.stderr)[-400:])
        raise StepFailed("the package did not install")
    fields = walk.daemon_up(tablet)
    record("boot, apt install ./daysome.deb", True,
           f"system {state} {seconds:.1f} s after the boot began; daysomed {fields.get('ActiveState')}/"
           f"{fields.get('SubState')} in kiosk's lingering manager")
    watch_bus(tablet)

    late_user_step(tablet)
    off_switch_step(tablet)

    # Phosh's lock at session start: the daemon says locked, by Phosh's word, and calls nothing.
    say("== her Phosh session: phoc (headless), Phosh locked at its start")
    started = start_session(tablet)
    up, server, sid, fields = session_up(tablet, started)
    state = poll("locked by gnomeScreenSaver", 20, lambda: locked_by_phosh(tablet))
    changed = [e for e in bus_events(bus_log(tablet)) if e[0] == "ActiveChanged"]
    delivered = [r for r in tablet.history() if r.get("event") == "delivered"]
    record("Phosh's lock at session start", not delivered,
           f"Phosh up {up:.1f} s after the session unit started (logind session {sid[:1]} {' '.join(fields)}), "
           f"server {server.get('name')!r}; the bus said ActiveChanged {changed}; status: locked "
           f"{state.get('locked')}, decided by {state.get('decidedBy')}, file says {state.get('fileSays')}; "
           f"delivered: {len(delivered)}")

    # Her PIN on the keypad: unlocked by Phosh's word alone (no logind Unlock).
    seconds, typed = unlock_with_pin(tablet)
    state = lock(tablet)
    record("unlock with her PIN on Phosh's keypad (wtype)", state.get("decidedBy") == "file",
           f"unlocked {seconds:.1f} s after the typing ({typed} attempt(s)); decided by {state.get('decidedBy')}, "
           f"file says {state.get('fileSays')}; GetActive {gnome_screensaver(tablet, 'GetActive').stdout.strip()}")

    call_step(tablet)
    own_lock_step(tablet, "Lock")
    own_lock_step(tablet, "SetActive", "true")
    lock_session_step(tablet)
    dnd_step(tablet)
    reboot_step(o, tablet)
    purge_step(tablet)


def late_user_step(tablet):
    """A user lingered after the install: her manager starts now, and her state is saved."""
    say(f"== {LATE_USER}, lingered after the install")
    tablet.run(["useradd", "--create-home", "--uid", str(LATE_UID), "--shell", "/bin/bash", LATE_USER])
    started = time.monotonic()
    tablet.run(["loginctl", "enable-linger", LATE_USER])
    poll(f"{LATE_USER}'s manager", 30, lambda: tablet.run(["systemctl", "is-active", f"user@{LATE_UID}.service"],
                                                            check=False).stdout.strip() == "active")

    def active():
        out = tablet.run(["systemctl", "--user", "-M", f"{LATE_USER}@", "is-active", "daysomed.service"],
                         check=False).stdout.strip()
        return out == "active" or None

    poll(f"daysomed in {LATE_USER}'s manager", 30, active)
    up = time.monotonic() - started
    exists = os.path.isdir(f"{tablet.o.tree}/home/{LATE_USER}/.local/state/daysome")
    tablet.write(f"/home/{LATE_USER}/.config/daysome/household.json",
                 walk.household([("tea", "Tea", walk.minute_ahead(3 * 3600))]), owner=LATE_UID)
    os.chown(f"{tablet.o.tree}/home/{LATE_USER}/.config/daysome", LATE_UID, LATE_UID)
    os.chown(f"{tablet.o.tree}/home/{LATE_USER}/.config", LATE_UID, LATE_UID)

    def status_text():
        out = tablet.run(["runuser", "-u", LATE_USER, "--", "env", f"XDG_RUNTIME_DIR=/run/user/{LATE_UID}",
                          f"HOME=/home/{LATE_USER}", "daysomectl", "status"], check=False)
        return out.stdout if out.returncode == 0 and out.stdout.strip() else None

    text = poll(f"{LATE_USER}'s status", 20, status_text)
    time.sleep(2)
    text = status_text() or text
    saved = os.path.exists(f"{tablet.o.tree}/home/{LATE_USER}/.local/state/daysome/household.last-good.json")
    unsaved = [line.strip() for line in text.splitlines() if "not saved" in line.lower()]
    record(f"a user lingered after the install ({LATE_USER}) gets her state saved", exists and saved and not unsaved,
           f"daysomed active {up:.1f} s after enable-linger; ~/.local/state/daysome exists: {exists}; her last good "
           f"household saved there: {saved}; status lines saying 'not saved': {unsaved}")


def call_step(tablet):
    say("== the day in front, then away: a call shown by Phosh, withdrawn at her return")
    launch_display(tablet)
    poll("the display to say foreground", 30, lambda: file_says(tablet) == "foreground")
    poll("nothing pending", 10, lambda: not tablet.pending())
    pid = kill_display(tablet)
    left = time.monotonic()
    poll("away after the display was killed", 10, lambda: tablet.status().get("display") == "away")
    away = time.monotonic() - left
    time.sleep(1)
    before = screenshot(tablet, "phosh-before-call")  # Phosh's home screen, the day gone
    at = walk.minute_ahead(45)
    start = mark(tablet)
    walk.write_household(tablet, [("drink-p", "A drink", at)])
    poll("drink-p laid", 20, lambda: any(at == walk.epoch_of(s.get("at", "1970-01-01T00:00:00Z"))
                                         for s in tablet.pending()))
    walk.wait_for_event(tablet, "drink-p", "delivered", max(0, at - time.time()) + 30)
    late = walk.epoch_of(walk.record_delivered_at(tablet, "drink-p")) - at
    notified = poll("Phosh given the call", 10, lambda: [e for e in since(tablet, start) if e[0] == "Notify"])
    time.sleep(1)
    shown = screenshot(tablet, "phosh-call-shown")
    pixels = changed_pixels(tablet, before, shown)
    record("a call at its minute, shown by Phosh",
           late < 5 and any(e[1] == "A drink" for e in notified) and pixels > 10000,
           f"away {away * 1000:.0f} ms after the display (pid {pid}) was killed; drink-p delivered {late:.0f} s "
           f"after {walk.hhmm(at)}; the bus carried {notified}; grim: Phosh's banner changed {pixels} px of its home "
           f"screen")
    back = time.monotonic()
    start = mark(tablet)
    launch_display(tablet)
    poll("foreground again", 30, lambda: tablet.status().get("display") == "foreground")
    walk.wait_for_event(tablet, "drink-p", "withdrawn", 10)
    withdrawn = time.monotonic() - back
    poll("Phosh to say the card closed", 10, lambda: any(e[0] == "NotificationClosed" for e in since(tablet, start)))
    closed = [e for e in since(tablet, start) if e[0] in ("CloseNotification", "NotificationClosed")]
    time.sleep(1)
    screenshot(tablet, "phosh-after-return")
    record("her return -> withdrawn from Phosh", any(e[0] == "NotificationClosed" for e in closed),
           f"withdrawn {withdrawn:.1f} s after the display was started again; the bus carried {closed}")


def own_lock_step(tablet, method, *arguments):
    """Phosh locking on its own (org.gnome.ScreenSaver): locked by its word; her PIN unlocks it."""
    name = f"Phosh locks on its own ({method}{'(' + ', '.join(arguments) + ')' if arguments else ''})"
    say(f"== {name}")
    start = mark(tablet)
    asked = time.monotonic()
    answer = gnome_screensaver(tablet, method, *arguments)
    try:
        state = poll("locked by gnomeScreenSaver", 10, lambda: locked_by_phosh(tablet))
    except StepFailed as error:
        record(name, False, f"{error}; gdbus: {(answer.stdout + answer.stderr).strip()}; "
               f"lock {json.dumps(lock(tablet))[:300]}")
        unlock_with_pin(tablet)
        return
    seconds = time.monotonic() - asked
    status = tablet.status()
    pending = len(tablet.pending())
    unlock_seconds, typed = unlock_with_pin(tablet)
    front = poll("the display in front again", 15, lambda: tablet.status().get("display") == "foreground",)
    record(name, status.get("display") == "away" and bool(front),
           f"locked {seconds:.1f} s after the call, decided by {state.get('decidedBy')} (the bus: "
           f"{[e for e in since(tablet, start) if e[0] == 'ActiveChanged']}); display {status.get('display')}, "
           f"{pending} pending; her PIN: unlocked {unlock_seconds:.1f} s after the typing, display "
           f"{tablet.status().get('display')}, {len(tablet.pending())} pending")


def lock_session_step(tablet):
    """lock-session, then her PIN: Phosh answers the request; no call over the day at any point."""
    say("== loginctl lock-session, then her PIN on Phosh's keypad")
    at = walk.minute_ahead(40)
    walk.write_household(tablet, [("drink-q", "A drink", at)])
    poll("drink-q in the household, the day in front: nothing pending", 20,
         lambda: (tablet.status().get("display") == "foreground" and not tablet.pending()))
    start = mark(tablet)
    sid = walk.sessions(tablet)
    requested = time.monotonic()
    tablet.run(["loginctl", "lock-session", sid[0]])
    state = poll("locked by gnomeScreenSaver", 10, lambda: locked_by_phosh(tablet))
    seconds = time.monotonic() - requested
    request = poll("the request's state", 5, lambda: lock(tablet).get("request"))
    laid = len(tablet.pending())
    unlock_seconds, typed = unlock_with_pin(tablet)
    poll("the display in front again", 15, lambda: tablet.status().get("display") == "foreground")
    state_after = lock(tablet)
    pending_after = len(tablet.pending())
    time.sleep(max(0, at - time.time()) + 15)
    events = walk.events_for(tablet, "drink-q")
    notifies = [e for e in since(tablet, start) if e[0] == "Notify"]
    record("lock-session, then her PIN -> never a call over the day",
           "delivered" not in events and not notifies and state_after.get("decidedBy") == "file"
           and pending_after == 0,
           f"locked by {state.get('decidedBy')} {seconds:.1f} s after lock-session (request {json.dumps(request)}), "
           f"{laid} pending; her PIN: unlocked {unlock_seconds:.1f} s after the typing, decided by "
           f"{state_after.get('decidedBy')}, file says {state_after.get('fileSays')}, {pending_after} pending; "
           f"15 s after drink-q's minute {walk.hhmm(at)}: history {events}, Notify on the bus {len(notifies)}")


def dnd_step(tablet):
    """Phosh's Do Not Disturb is GNOME's show-banners: status follows it, on and off, with no call."""
    say("== Do Not Disturb through Phosh (show-banners)")
    figures = []
    followed = True
    for banners, word in (("false", "on"), ("true", "off")):
        tablet.kiosk(["gsettings", "set", "org.gnome.desktop.notifications", "show-banners", banners])
        changed = time.monotonic()

        def server_says():
            return (tablet.status().get("notificationServer") or {}).get("doNotDisturb")

        try:
            poll(f"status to say the server's Do Not Disturb is {word}", 10, lambda: server_says() == word)
            figures.append(f"show-banners {banners}: status says {word} {time.monotonic() - changed:.1f} s after")
        except StepFailed:
            followed = False
            text = tablet.kiosk(["daysomectl", "status"], check=False).stdout
            lines = [line.strip() for line in text.splitlines()
                     if "disturb" in line.lower() or "deliver" in line.lower()]
            figures.append(f"show-banners {banners}: 10 s after, status says the server's Do Not Disturb is "
                           f"{server_says()!r} (the household's: {tablet.status().get('doNotDisturb')!r}); "
                           f"text {lines}")
    record("Do Not Disturb through Phosh, followed with no call", followed, "; ".join(figures))


def off_switch_step(tablet):
    """docs/kiosk.md's off switch for one user: masked as that user, her daemon stops and stays off
    when her manager starts again (the package's global link does not bring it back), while the
    kiosk's runs on; unmasked, it starts again."""
    say(f"== the off switch for {LATE_USER} alone (docs/kiosk.md: systemctl --user mask --now)")

    def hers(*arguments):
        return tablet.run(["systemctl", "--user", "-M", f"{LATE_USER}@", *arguments], check=False)

    def manager_active():
        return tablet.run(["systemctl", "is-active", f"user@{LATE_UID}.service"],
                          check=False).stdout.strip() == "active" or None

    masked = hers("mask", "--now", "daysomed.service")
    stopped = hers("is-active", "daysomed.service").stdout.strip()
    # Her manager starts again, as at her next login or a reboot.
    tablet.run(["systemctl", "restart", f"user@{LATE_UID}.service"], check=False)
    poll(f"{LATE_USER}'s manager again", 30, manager_active)
    time.sleep(3)
    after = hers("is-active", "daysomed.service").stdout.strip()
    kiosks = tablet.run(["systemctl", "--user", "-M", f"{KIOSK}@", "is-active", "daysomed.service"],
                        check=False).stdout.strip()
    hers("unmask", "daysomed.service")
    hers("start", "daysomed.service")
    back = poll(f"daysomed in {LATE_USER}'s manager once unmasked", 30,
                lambda: hers("is-active", "daysomed.service").stdout.strip() == "active" or None)
    record(f"the off switch for one user ({LATE_USER}: mask)",
           masked.returncode == 0 and stopped != "active" and after != "active" and kiosks == "active" and back,
           f"mask --now exit {masked.returncode}, hers {stopped}; after her manager started again: hers {after}, "
           f"kiosk's {kiosks}; unmasked and started: hers active")


def reboot_step(o, tablet):
    say("== reboot with Phosh")
    set_session_at_boot(o, True)
    state, seconds = tablet.reboot()
    fields = walk.daemon_up(tablet)
    daemon = time.monotonic() - tablet.booted_at
    watch_bus(tablet)
    up, server, sid, session = session_up(tablet, tablet.booted_at)
    state = poll("locked by gnomeScreenSaver", 20, lambda: locked_by_phosh(tablet))
    record("reboot with Phosh -> the session back, locked at its start", fields.get("NRestarts") == "0",
           f"daysomed active {daemon:.1f} s after the boot began (NRestarts={fields.get('NRestarts')}); Phosh up "
           f"{up:.1f} s after it (session {sid[:1]} {' '.join(session)}); locked, decided by {state.get('decidedBy')}")
    unlock_with_pin(tablet)


def manager_units(tablet, user):
    units = tablet.run(["systemctl", "--user", "-M", f"{user}@", "list-units", "daysome-*", "--all", "--no-legend",
                        "--plain"], check=False).stdout.split("\n")
    timers = tablet.run(["systemctl", "--user", "-M", f"{user}@", "list-timers", "daysome-*", "--all", "--no-legend"],
                        check=False).stdout.split("\n")
    return [u.split()[0] for u in units if u.strip()], [t for t in timers if "daysome-" in t]


def purge_step(tablet):
    say("== the systemd backend, then apt purge")
    tablet.write("/etc/systemd/user/daysomed.service.d/backend.conf",
                 "[Service]\nExecStart=\nExecStart=/usr/bin/daysomed --backend systemd\n")
    for user, uid in ((KIOSK, UID), (LATE_USER, LATE_UID)):
        tablet.run(["systemctl", "--user", "-M", f"{user}@", "daemon-reload"])
        tablet.run(["systemctl", "--user", "-M", f"{user}@", "restart", "daysomed.service"])
    far = walk.minute_ahead(2 * 3600)
    walk.write_household(tablet, [("drink-r", "A drink", far)])
    # A call laid for kiosk too: the day is not in front (no display since the reboot).
    if walk.display_pid(tablet):
        kill_display(tablet)
    before = {}
    for user in (KIOSK, LATE_USER):
        before[user] = poll(f"a daysome- timer in {user}'s manager", 30,
                            lambda: manager_units(tablet, user)[1] or None)
    purged = tablet.run(["apt-get", "purge", "-y", "daysome"], env={"DEBIAN_FRONTEND": "noninteractive"},
                        check=False, timeout=180)
    time.sleep(3)
    after = {user: manager_units(tablet, user) for user in (KIOSK, LATE_USER)}
    daemons = {user: tablet.run(["systemctl", "--user", "-M", f"{user}@", "show", "-p", "ActiveState,LoadState",
                                 "daysomed.service"], check=False).stdout.split() for user in (KIOSK, LATE_USER)}
    links = [path for path in ("/etc/systemd/user/default.target.wants/daysomed.service",) if
             os.path.lexists(tablet.o.tree + path)]
    left = {user: units for user, (units, timers) in after.items() if units or timers}
    armed = ", ".join(f"{user} {len(timers)} timer(s) {[line.split()[-2] for line in timers if line.split()][:2]}"
                      for user, timers in before.items())
    record("apt purge with the systemd backend -> nothing left", purged.returncode == 0 and not left and not links,
           f"before: {armed}; purge exit {purged.returncode}; after: daysome-* units per manager "
           f"{ {u: a[0] + a[1] for u, a in after.items()} }; daysomed.service {daemons}; global links left {links}")


def main():
    parser = argparse.ArgumentParser()
    for name in ("base", "tree", "logs", "machine", "new-deb", "examples"):
        parser.add_argument("--" + name, required=True)
    o = parser.parse_args()
    os.makedirs(o.logs, exist_ok=True)
    say("== the Phosh walk")
    prepare_tree(o)

    def keep_bus_log():
        if os.path.exists(f"{o.tree}{BUS_LOG}"):
            shutil.copy(f"{o.tree}{BUS_LOG}", os.path.join(o.logs, "phosh-bus.log"))

    return walk.run_walk(o, "the Phosh walk", "check-booted-tablet (Phosh)", walk_phosh, before_stop=keep_bus_log)


if __name__ == "__main__":
    sys.exit(main())
