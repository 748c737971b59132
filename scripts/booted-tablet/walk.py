#!/usr/bin/env python3
"""A day in the life of a kiosk tablet booted with systemd-nspawn -b (scripts/check-booted-tablet).

Every step prints one line with its figure: `ok` or `FAIL`, what was measured. A step that cannot
run (the container does not boot, a command is missing) fails; nothing is skipped. Exits 1 if any
step failed. Only the processes this script started are stopped, by pid.
"""

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import time

KIOSK = "kiosk"
UID = 1000
RUNTIME = f"/run/user/{UID}"
X_DISPLAY = ":7"
GROUND = "#FBF7EF"  # the kiosk dunstrc's card ground: only a Daysome call paints it on this screen
SESSION_UNIT = "kiosk-session.service"

results = []


def say(text):
    print(text, flush=True)


def record(name, ok, figure):
    results.append((name, ok, figure))
    say(f"  {'ok  ' if ok else 'FAIL'}  {name}: {figure}")


class StepFailed(Exception):
    pass


def poll(what, timeout, check, interval=0.2):
    """Returns check()'s first truthy value; raises StepFailed after `timeout` seconds."""
    end = time.monotonic() + timeout
    last = None
    while True:
        try:
            last = check()
        except StepFailed:
            last = None
        if last:
            return last
        if time.monotonic() > end:
            raise StepFailed(f"timed out after {timeout} s waiting for {what}")
        time.sleep(interval)


class Tablet:
    def __init__(self, options):
        self.o = options
        self.nspawn = None
        self.leader = None
        self.boots = 0
        self.booted_at = None

    # -- the container ------------------------------------------------------------------------

    def boot(self):
        """Boots the tree with systemd as PID 1 and waits until the system is up."""
        self.boots += 1
        console = open(os.path.join(self.o.logs, f"console.{self.boots}.log"), "w")
        command = [
            "systemd-nspawn", "--quiet", "--boot", "--directory", self.o.tree, "--machine", self.o.machine,
            # No machined on a host whose PID 1 is not systemd: no registration, no scope of its own.
            "--register=no", "--keep-unit", "--private-network", "--console=read-only", "--hostname=kitchen-tablet",
            # pam_loginuid (login's session stack) writes /proc/self/loginuid: allowed with this.
            "--capability=CAP_AUDIT_CONTROL",
        ]
        self.booted_at = time.monotonic()
        self.nspawn = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=console, stderr=subprocess.STDOUT)
        console.close()

        def leader():
            if self.nspawn.poll() is not None:
                raise StepFailed(f"systemd-nspawn exited with {self.nspawn.returncode}: see {console.name}")
            children = subprocess.run(["ps", "-o", "pid=", "--ppid", str(self.nspawn.pid)],
                                      capture_output=True, text=True).stdout.split()
            for child in children:
                try:
                    with open(f"/proc/{child}/comm") as handle:
                        if handle.read().strip() == "systemd":
                            return int(child)
                except OSError:
                    pass
            return None

        try:
            self.leader = poll("the container's systemd (PID 1 inside)", 30, leader)
            state = poll("the system to finish booting", 90, lambda: self._running_state())
        except StepFailed as error:
            raise StepFailed(f"{error}; console: {tail(console.name)}")
        return state, time.monotonic() - self.booted_at

    def _running_state(self):
        if self.nspawn.poll() is not None:
            raise StepFailed(f"systemd-nspawn exited with {self.nspawn.returncode}")
        result = self.run(["systemctl", "is-system-running"], check=False)
        state = result.stdout.strip()
        return state if state in ("running", "degraded") else None

    def wait_down(self, timeout=60):
        try:
            self.nspawn.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            raise StepFailed(f"the container did not stop within {timeout} s")
        code = self.nspawn.returncode
        self.nspawn = None
        self.leader = None
        return code

    def reboot(self):
        self.run(["systemctl", "reboot"], check=False)
        code = self.wait_down()
        # systemd-nspawn exits with 133 when the container asks for a reboot: boot it again.
        if code != 133:
            raise StepFailed(f"systemd-nspawn exited with {code} on reboot, not 133")
        return self.boot()

    def power_cut(self):
        """PID 1 killed: no unit stops, nothing is flushed beyond what is already on disk."""
        os.kill(self.leader, signal.SIGKILL)
        self.wait_down()
        subprocess.run(["sync"], check=False)
        return self.boot()

    def stop(self):
        if self.nspawn is None:
            return
        self.run(["systemctl", "poweroff"], check=False, timeout=10)
        try:
            self.nspawn.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.nspawn.kill()
            self.nspawn.wait()
        self.nspawn = None

    # -- commands inside ------------------------------------------------------------------------

    def run(self, command, user=None, check=True, timeout=60, env=None, stdin=None):
        if self.leader is None:
            raise StepFailed("the container is not running")
        inside = ["/usr/bin/env", "-i", "PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin", "LANG=C.UTF-8"]
        if user:
            inside = ["/usr/sbin/runuser", "-u", user, "--"] + inside + [
                f"XDG_RUNTIME_DIR={RUNTIME}", f"DBUS_SESSION_BUS_ADDRESS=unix:path={RUNTIME}/bus",
                f"DISPLAY={X_DISPLAY}", f"HOME=/home/{user}"]
        inside += [f"{key}={value}" for key, value in (env or {}).items()]
        full = ["nsenter", "--target", str(self.leader), "--mount", "--uts", "--ipc", "--net", "--pid",
                "--root", "--wd"] + inside + command
        try:
            result = subprocess.run(full, capture_output=True, text=True, timeout=timeout, input=stdin)
        except subprocess.TimeoutExpired:
            raise StepFailed(f"{' '.join(command)} took longer than {timeout} s")
        if check and result.returncode != 0:
            raise StepFailed(f"{' '.join(command)} exited {result.returncode}: "
                             f"{(result.stdout + result.stderr).strip()[-600:]}")
        return result

    def kiosk(self, command, **kwargs):
        return self.run(command, user=KIOSK, **kwargs)

    def user_unit(self, *arguments, check=False):
        return self.run(["systemctl", "--user", "-M", f"{KIOSK}@"] + list(arguments), check=check)

    def ctl_json(self, *arguments):
        result = self.kiosk(["daysomectl"] + list(arguments) + ["--json"], check=False)
        try:
            return json.loads(result.stdout)
        except ValueError:
            raise StepFailed(f"daysomectl {' '.join(arguments)} --json: {(result.stdout + result.stderr)[-400:]}")

    def status(self):
        return self.ctl_json("status")

    def history(self):
        value = self.ctl_json("history")
        return value.get("history", []) if isinstance(value, dict) else value

    def pending(self):
        value = self.ctl_json("pending")
        return value.get("pending", []) if isinstance(value, dict) else value

    def daemon_pid(self):
        pid = self.user_unit("show", "-p", "MainPID", "--value", "daysomed.service").stdout.strip()
        return int(pid) if pid.isdigit() and pid != "0" else None

    def write(self, path, text, owner=None, mode=0o644):
        """Writes a file inside the tree atomically (rename in its directory), as an app would."""
        full = self.o.tree + path
        os.makedirs(os.path.dirname(full), exist_ok=True)
        temporary = full + ".tmp"
        with open(temporary, "w") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, mode)
        if owner is not None:
            os.chown(temporary, owner, owner)
        os.replace(temporary, full)


def tail(path, lines=15):
    try:
        with open(path, errors="replace") as handle:
            return " | ".join(handle.read().splitlines()[-lines:])
    except OSError:
        return "(no log)"


# -- the household -------------------------------------------------------------------------------

# How far ahead each step lays its call: enough for what the step does before the minute (a lay
# takes milliseconds; a reboot or power cut brings the daemon back within a few seconds of the
# boot; an apt upgrade restarts it within seconds), with room for a loaded CI machine, and no more:
# the walk's minutes went mostly to waiting for these calls (75-135 s each), one after another.
LEAD_LAY = 15
LEAD_RESTART = 30
LEAD_UPGRADE = 45


def minute_ahead(seconds):
    """The first whole minute at least `seconds` from now, as epoch seconds."""
    now = time.time()
    return int((now + seconds) // 60 + 1) * 60


def hhmm(epoch):
    return time.strftime("%H:%M", time.gmtime(epoch))


def rfc(epoch):
    return time.strftime("%Y-%m-%dT%H:%M:00Z", time.gmtime(epoch))


def household(calls):
    """A household in UTC whose only starts are `calls`: (id, label, epoch), daily."""
    items = [{"id": ident, "label": label, "kind": "drink", "time": hhmm(epoch), "repeat": "daily"}
             for ident, label, epoch in calls]
    return json.dumps({
        "version": 1, "timeZone": "UTC", "clock": "24h",
        "settings": {"notifyInOtherApps": True, "bringDayBack": False, "exactAlarms": True, "chime": "bell"},
        "dayParts": {"morning": "05:00", "afternoon": "12:00", "evening": "17:00", "night": "21:00"},
        "items": items,
        # The app's own members, which the daemon must never keep or show (rule 10).
        "supervisorPin": "4711", "note": {"text": "The cleaner comes on Monday"},
    }, indent=2) + "\n"


def events_for(tablet, item):
    return [r.get("event") for r in tablet.history() if item in (r.get("itemIds") or [])]


# -- the walk ------------------------------------------------------------------------------------

def fresh_tree_with_kiosk(o, password=None):
    """A fresh copy of the base tree, named kitchen-tablet, with the lingering kiosk user (her
    password, where given, is what a locker's keypad checks), the guide's display and launcher, and
    HEAD's package. Both walks start from it."""
    say(f"== a fresh copy of {o.base}")
    if os.path.exists(o.tree):
        shutil.rmtree(o.tree)
    subprocess.run(["cp", "-a", "--reflink=auto", o.base, o.tree], check=True)
    t = o.tree
    # The tablet's name, which the fleet's collector files its journal under (debootstrap copied
    # the building machine's /etc/hostname, which would win over nspawn's --hostname).
    with open(f"{t}/etc/hostname", "w") as handle:
        handle.write("kitchen-tablet\n")
    # The kiosk user, lingering (what `loginctl enable-linger kiosk` writes), and the kiosk's files
    # as the kiosk guide sets them up: the guide's display and launcher.
    subprocess.run(["chroot", t, "useradd", "--create-home", "--uid", str(UID), "--shell", "/bin/bash", KIOSK],
                   check=True)
    if password is not None:
        subprocess.run(["chroot", t, "chpasswd"], input=f"{KIOSK}:{password}\n", text=True, check=True)
    os.makedirs(f"{t}/var/lib/systemd/linger", exist_ok=True)
    open(f"{t}/var/lib/systemd/linger/{KIOSK}", "w").close()
    shutil.copy(f"{o.examples}/day-display-launcher", f"{t}/usr/local/bin/day-display-launcher")
    os.makedirs(f"{t}/usr/local/share/daysome-check", exist_ok=True)
    shutil.copy(f"{o.examples}/day_display.py", f"{t}/usr/local/share/daysome-check/day_display.py")
    shutil.copy(o.new_deb, f"{t}/root/daysome-new.deb")
    return t


def prepare_tree(o):
    # dunst with the package's dunstrc; the session unit is the display manager's autologin, with
    # PAMName=login. The 0.1.0 package is there for the upgrade step.
    t = fresh_tree_with_kiosk(o)
    shutil.copy(o.old_deb, f"{t}/root/daysome-0.1.0.deb")
    with open(f"{t}/usr/local/bin/kiosk-session", "w") as handle:
        handle.write(f"""#!/bin/sh
# The kiosk's graphical session, as docs/kiosk.md sets it up: an X server, openbox, the day
# display through its launcher when the tablet is set to show it, then the display's variables
# handed to the user manager (only those set) and dunst. The day comes first: a call that waited
# since boot for a server is taken back (the day is in front) before any server could show it.
Xvfb {X_DISPLAY} -screen 0 1024x768x24 -nolisten tcp &
export DISPLAY={X_DISPLAY}
i=0
until xdpyinfo >/dev/null 2>&1 || [ $i -ge 100 ]; do sleep 0.1; i=$((i + 1)); done
openbox &
if [ -e /etc/daysome-check/show-the-day ]; then
    day-display-launcher python3 /usr/local/share/daysome-check/day_display.py &
    i=0
    until grep -qs foreground "$XDG_RUNTIME_DIR/daysome/display" || [ $i -ge 50 ]; do sleep 0.1; i=$((i + 1)); done
fi
{guide_line(o, "systemctl --user import-environment")}
systemctl --user restart dunst.service
exec sleep infinity
""")
    os.chmod(f"{t}/usr/local/bin/kiosk-session", 0o755)
    with open(f"{t}/etc/systemd/system/{SESSION_UNIT}", "w") as handle:
        handle.write(f"""[Unit]
Description=The kiosk's graphical session (autologin)
After=systemd-user-sessions.service user@{UID}.service

[Service]
User={KIOSK}
PAMName=login
Environment=XDG_SESSION_TYPE=x11 XDG_SESSION_CLASS=user
ExecStart=/usr/local/bin/kiosk-session

[Install]
WantedBy=multi-user.target
""")
    os.makedirs(f"{t}/etc/daysome-check", exist_ok=True)
    # The fleet's collector on the same machine, loopback only: journal-remote over plain HTTP on
    # 127.0.0.1 (a real fleet would use its HTTPS keys), and journal-upload sending to it.
    os.makedirs(f"{t}/etc/systemd/system/systemd-journal-remote.socket.d", exist_ok=True)
    with open(f"{t}/etc/systemd/system/systemd-journal-remote.socket.d/loopback.conf", "w") as handle:
        handle.write("[Socket]\nListenStream=\nListenStream=127.0.0.1:19532\n")
    os.makedirs(f"{t}/etc/systemd/system/systemd-journal-remote.service.d", exist_ok=True)
    with open(f"{t}/etc/systemd/system/systemd-journal-remote.service.d/http.conf", "w") as handle:
        handle.write("[Service]\nExecStart=\nExecStart=/lib/systemd/systemd-journal-remote --listen-http=-3 "
                     "--output=/var/log/journal/remote/\n")
    with open(f"{t}/etc/systemd/journal-upload.conf", "w") as handle:
        handle.write("[Upload]\nURL=http://127.0.0.1:19532\n")
    os.makedirs(f"{t}/var/log/journal", exist_ok=True)  # persistent: the journal survives reboots
    for unit, target in (("systemd-journal-remote.socket", "sockets.target"),
                         ("systemd-journal-upload.service", "multi-user.target")):
        wants = f"{t}/etc/systemd/system/{target}.wants"
        os.makedirs(wants, exist_ok=True)
        link = f"{wants}/{unit}"
        if not os.path.lexists(link):
            os.symlink(f"/lib/systemd/system/{unit}", link)
    # The tablet's household: nothing yet; the display app writes it (here: the walk).
    subprocess.run(["chroot", t, "runuser", "-u", KIOSK, "--", "mkdir", "-p", f"/home/{KIOSK}/.config/daysome",
                    f"/home/{KIOSK}/.config/dunst"], check=True)
    shutil.copy(o.dunstrc, f"{t}/home/{KIOSK}/.config/dunst/dunstrc")
    os.chown(f"{t}/home/{KIOSK}/.config/dunst/dunstrc", UID, UID)


def guide_line(o, prefix):
    """The kiosk guide's own line: the session runs what docs/kiosk.md tells a care provider to."""
    with open(o.kiosk_guide) as handle:
        for line in handle:
            if line.startswith(prefix):
                return line.rstrip("\n")
    raise StepFailed(f"docs/kiosk.md has no line starting '{prefix}'")


def show_the_day(o, on):
    path = f"{o.tree}/etc/daysome-check/show-the-day"
    if on:
        open(path, "w").close()
    elif os.path.exists(path):
        os.remove(path)


def set_session_at_boot(o, on):
    link = f"{o.tree}/etc/systemd/system/multi-user.target.wants/{SESSION_UNIT}"
    if on and not os.path.lexists(link):
        os.symlink(f"/etc/systemd/system/{SESSION_UNIT}", link)
    elif not on and os.path.lexists(link):
        os.remove(link)


def write_household(tablet, calls):
    tablet.write(f"/home/{KIOSK}/.config/daysome/household.json", household(calls), owner=UID)


def daemon_up(tablet):
    def active():
        state = tablet.user_unit("show", "-p", "ActiveState,SubState,NRestarts,Result", "daysomed.service").stdout
        fields = dict(line.split("=", 1) for line in state.splitlines() if "=" in line)
        if fields.get("ActiveState") == "failed":
            raise StepFailed(f"daysomed.service failed: {fields}")
        return fields if fields.get("ActiveState") == "active" else None
    return poll("daysomed.service active in kiosk's user manager", 60, active)


def sessions(tablet):
    listing = tablet.run(["loginctl", "list-sessions", "--no-legend"], check=False).stdout
    return [line.split()[0] for line in listing.splitlines() if line.split() and KIOSK in line.split()]


def unit_failures(tablet):
    """Lines of kiosk's journal since boot where systemd reports daysomed failing to start."""
    log = tablet.run(["journalctl", "-b", "--no-pager", "-o", "cat", f"_UID={UID}",
                      "_COMM=systemd", "--grep", "daysomed|PrivateIPC|CAPABILITIES|NAMESPACE"], check=False).stdout
    return [line for line in log.splitlines() if "Failed" in line or "failed" in line]


def wait_for_event(tablet, item, event, timeout):
    return poll(f"'{event}' in history for {item}", timeout,
                lambda: event in events_for(tablet, item) or None, interval=0.25)


def record_delivered_at(tablet, item):
    for r in tablet.history():
        if item in (r.get("itemIds") or []) and r.get("event") == "delivered":
            return r.get("time")
    return None


def epoch_of(text):
    from datetime import datetime
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def displayed(tablet):
    out = tablet.kiosk(["dunstctl", "count", "displayed"], check=False).stdout.strip()
    return int(out) if out.isdigit() else -1


def ground_pixels(tablet, name):
    """Pixels of the card's ground on the kiosk's screen, read back from a screenshot."""
    shot = f"/home/{KIOSK}/{name}.png"  # on the tree's disk, not the container's /tmp
    tablet.kiosk(["import", "-display", X_DISPLAY, "-window", "root", shot])
    count = tablet.kiosk(["convert", shot, "-alpha", "off", "-fill", "black", "+opaque", GROUND,
                          "-fill", "white", "-opaque", GROUND, "-format", "%[fx:round(mean*w*h)]", "info:"]).stdout
    shutil.copy(f"{tablet.o.tree}{shot}", os.path.join(tablet.o.logs, f"{name}.png"))
    return int(float(count.strip() or 0))


def display_pid(tablet):
    """The pid the display state file names (the runtime directory is a tmpfs inside)."""
    line = tablet.run(["cat", f"{RUNTIME}/daysome/display"], check=False).stdout
    for word in line.split():
        if word.startswith("pid="):
            return int(word[4:])
    return None


def display_state(tablet):
    return tablet.status().get("display")


def launch_display(tablet):
    """The day display started again in her session, through its launcher."""
    sid = sessions(tablet)
    tablet.kiosk(["setsid", "-f", "sh", "-c",
                  "exec day-display-launcher python3 /usr/local/share/daysome-check/day_display.py "
                  ">/tmp/day-display.log 2>&1"], env={"XDG_SESSION_ID": sid[0] if sid else ""})


def window_id(tablet):
    out = tablet.kiosk(["xdotool", "search", "--onlyvisible", "--name", "^Today$"], check=False).stdout.split()
    return out[0] if out else None


def walk(o, tablet):
    # 0. Installed with apt on the booted tablet, kiosk's manager already running (lingering).
    say("== boot 1: install the package with apt")
    state, seconds = tablet.boot()
    record("boot", True, f"systemd as PID 1 inside, system {state} after {seconds:.1f} s")
    poll("kiosk's user manager (lingering)", 30,
         lambda: tablet.run(["systemctl", "is-active", f"user@{UID}.service"], check=False).stdout.strip() == "active")
    install = tablet.run(["apt-get", "install", "-y", "/root/daysome-new.deb"],
                         env={"DEBIAN_FRONTEND": "noninteractive"}, check=False, timeout=180)
    ok = install.returncode == 0
    hint = [line for line in install.stdout.splitlines() if line.startswith("daysome:")]
    record("apt install ./daysome.deb", ok, f"exit {install.returncode}; postinst says: {' / '.join(hint)[:200]}"
           if ok else (install.stdout + install.stderr)[-400:])
    if not ok:
        raise StepFailed("the package did not install")
    fields = daemon_up(tablet)
    enabled = tablet.run(["systemctl", "--global", "is-enabled", "daysomed.service"], check=False).stdout.strip()
    record("postinst starts it in kiosk's running manager", True,
           f"{fields.get('ActiveState')}/{fields.get('SubState')}, enabled for every user: {enabled}")

    # 1. Boot: up before anyone logs in; no failure at start.
    say("== boot 2: no graphical session")
    tablet.reboot()
    fields = daemon_up(tablet)
    up = time.monotonic() - tablet.booted_at
    failures = unit_failures(tablet)
    record("boot -> daemon up before login", not sessions(tablet) and not failures and fields.get("NRestarts") == "0",
           f"daysomed active {up:.1f} s after the boot began, sessions: {len(sessions(tablet))}, "
           f"NRestarts={fields.get('NRestarts')}, start failures logged: {len(failures)} {failures[:2]}")

    # 2. No graphical session: a call waits or is dropped, never delivered unseen.
    at = minute_ahead(LEAD_LAY)
    write_household(tablet, [("drink-a", "A drink", at)])
    poll("the call to be laid", 20, lambda: any(s for s in tablet.pending()))
    time.sleep(max(0, at - time.time()) + 30)
    events = events_for(tablet, "drink-a")
    status_after = tablet.status()
    server = status_after.get("notificationServer")
    record("no graphical session -> the call waits or is dropped, never delivered unseen",
           "delivered" not in events and status_after.get("canDeliver") is False,
           f"call at {hhmm(at)}: history {events}, 30 s after its minute canDeliver={status_after.get('canDeliver')}, "
           f"server: {(server or {}).get('name')}, waiting: {(server or {}).get('waiting')!r}")

    # 3. Her session starts with the day in front: nothing pending.
    say("== her session: Xvfb, openbox, the day display through its launcher, then dunst")
    show_the_day(o, True)
    started = time.monotonic()
    tablet.run(["systemctl", "start", SESSION_UNIT])
    poll("the display to say foreground", 30, lambda: display_state(tablet) == "foreground")
    poll("nothing pending", 10, lambda: not tablet.pending())
    sid = sessions(tablet)
    session_class = tablet.run(["loginctl", "show-session", sid[0], "-p", "Type", "-p", "Class", "-p", "Service"],
                               check=False).stdout.split() if sid else []
    warnings = [line for line in tablet.run(["journalctl", "-b", "--no-pager", "-o", "cat", f"_UID={UID}",
                                             "--grep", "Environment variable .* not set"], check=False)
                .stdout.splitlines() if "not set" in line]
    # The call that waited since boot is taken back by the day in front before dunst starts:
    # never shown over the day, not even for a moment.
    time.sleep(2)
    waited = events_for(tablet, "drink-a")
    record("display in front -> nothing pending", bool(sid) and not warnings and "delivered" not in waited,
           f"the call that waited since boot: history {waited}; "
           f"foreground {time.monotonic() - started:.1f} s after the session started, pending 0, "
           f"logind session {sid[:1]} {session_class}; the guide's import-environment warned {len(warnings)} "
           f"time(s) {warnings[:1]}")

    # 4. Minimised, then killed: away, laid.
    window = poll("the day display's window", 20, lambda: window_id(tablet))
    pid = display_pid(tablet)
    left = time.monotonic()
    tablet.kiosk(["xdotool", "windowminimize", window])
    poll("away after minimising", 10, lambda: display_state(tablet) == "away")
    minimised = time.monotonic() - left
    poll("the week laid", 10, lambda: tablet.pending())
    if not pid:
        raise StepFailed("the display state file names no display pid")
    os.kill(host_pid(tablet, pid), signal.SIGKILL)
    poll("still away with the display killed", 10, lambda: display_state(tablet) == "away")
    status = tablet.status()
    record("display minimised and killed -> laid", True,
           f"away {minimised * 1000:.0f} ms after minimising; killed (pid {pid}): display {status.get('display')}, "
           f"lay {status.get('lay')}, {len(tablet.pending())} pending")

    # 5. A call at its minute, shown.
    before = ground_pixels(tablet, "before-call")
    at = minute_ahead(LEAD_LAY)
    write_household(tablet, [("drink-b", "A drink", at)])
    poll("drink-b laid", 20, lambda: any(at == epoch_of(s.get("at", "1970-01-01T00:00:00Z")) for s in tablet.pending()))
    wait_for_event(tablet, "drink-b", "delivered", max(0, at - time.time()) + 30)
    late = epoch_of(record_delivered_at(tablet, "drink-b")) - at
    shown = poll("the card on screen", 10, lambda: displayed(tablet) >= 1 and displayed(tablet))
    pixels = ground_pixels(tablet, "call-shown")
    record("a call at its minute shown", pixels > 10000 and before < 1000 and late < 5,
           f"drink-b delivered {late:.0f} s after {hhmm(at)} (history's whole seconds); dunst shows {shown}; screenshot: {pixels} px of the "
           f"card's ground {GROUND} (before the call: {before})")

    # 6. Return: withdrawn.
    back = time.monotonic()
    launch_display(tablet)
    poll("foreground again", 30, lambda: display_state(tablet) == "foreground")
    wait_for_event(tablet, "drink-b", "withdrawn", 10)
    gone = poll("the card gone", 10, lambda: displayed(tablet) == 0 or None)
    pixels = ground_pixels(tablet, "after-return")
    record("return -> withdrawn", gone and pixels < 1000,
           f"withdrawn {time.monotonic() - back:.1f} s after the display was started again; dunst shows 0; "
           f"screenshot: {pixels} px of the card's ground")

    # 7. lock-session on a kiosk with no locker: a request nothing answers, so nothing is locked
    # (she still sees the day): nothing laid, and status says the request went unanswered.
    sid = sessions(tablet)
    requested = time.monotonic()
    tablet.run(["loginctl", "lock-session", sid[0]])
    try:
        request = poll("status to say the Lock request went unanswered", 10,
                       lambda: (((tablet.status().get("lock") or {}).get("request") or {}).get("state")
                                == "unanswered") and (tablet.status().get("lock") or {}).get("request"))
        said_after = time.monotonic() - requested
        laid = len(tablet.pending())
        display = display_state(tablet)
        tablet.run(["loginctl", "unlock-session", sid[0]])
        record("lock-session with no locker -> nothing locked", laid == 0 and display == "foreground",
               f"unanswered {said_after:.1f} s after lock-session ({json.dumps(request)}); display {display}, "
               f"{laid} pending")
    except StepFailed as error:
        tablet.run(["loginctl", "unlock-session", sid[0]], check=False)
        record("lock-session with no locker -> nothing locked", False,
               f"{error}; status lock: {json.dumps(tablet.status().get('lock'))[:200]}")

    # 8. Away, then rebooted: the lay resumes, the next call comes.
    pid = display_pid(tablet)
    if pid:
        os.kill(host_pid(tablet, pid), signal.SIGKILL)
    poll("away before the reboot", 10, lambda: display_state(tablet) == "away")
    show_the_day(o, False)  # she is elsewhere: the session comes back without the day in front
    set_session_at_boot(o, True)
    resume_step(o, tablet, "reboot while away", "drink-c", lambda: tablet.reboot())

    # 9. A power cut: PID 1 killed.
    resume_step(o, tablet, "power cut (PID 1 killed)", "drink-d", lambda: tablet.power_cut())

    # 10. Upgrade 0.1.0 -> HEAD while away.
    upgrade_step(o, tablet)

    # 11. The journal at the collector.
    collector_step(tablet)

    # 12. Removed: prerm stops it in every running manager.
    removal_step(tablet)


def removal_step(tablet):
    say("== apt remove")
    pid = tablet.daemon_pid()
    removed = tablet.run(["apt-get", "remove", "-y", "daysome"], env={"DEBIAN_FRONTEND": "noninteractive"},
                         check=False, timeout=180)
    state = tablet.user_unit("show", "-p", "ActiveState,LoadState", "daysomed.service").stdout.split()
    gone = pid is not None and not os.path.exists(f"/proc/{host_pid_or_none(tablet, pid)}")
    kept = os.path.exists(f"{tablet.o.tree}/home/{KIOSK}/.local/state/daysome/history.jsonl")
    record("apt remove -> the daemon stopped, her history kept", removed.returncode == 0 and "ActiveState=inactive"
           in state and gone and kept,
           f"exit {removed.returncode}; daysomed (pid {pid}) {' '.join(state)}; history kept: {kept}")


def host_pid_or_none(tablet, pid):
    try:
        return host_pid(tablet, pid)
    except StepFailed:
        return "gone"


def host_pid(tablet, pid):
    """The host's pid of a process the container knows as `pid` (its own pid namespace)."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/status") as handle:
                for line in handle:
                    if line.startswith("NSpid:"):
                        ids = line.split()[1:]
                        if len(ids) >= 2 and ids[-1] == str(pid) and is_inside(tablet, int(entry)):
                            return int(entry)
        except OSError:
            continue
    raise StepFailed(f"no process {pid} in the container")


def is_inside(tablet, host):
    try:
        return os.readlink(f"/proc/{host}/ns/pid") == os.readlink(f"/proc/{tablet.leader}/ns/pid")
    except OSError:
        return False


def resume_step(o, tablet, name, item, restart):
    before = tablet.status()
    lay = before.get("lay")
    at = minute_ahead(LEAD_RESTART)
    write_household(tablet, [(item, "A drink", at)])
    poll(f"{item} laid", 20, lambda: any(at == epoch_of(s.get("at", "1970-01-01T00:00:00Z")) for s in tablet.pending()))
    lay = tablet.status().get("lay")
    say(f"== {name}")
    restart()
    daemon_up(tablet)
    after = poll("the daemon's status", 30, lambda: tablet.status().get("running") and tablet.status())
    resumed = after.get("lay") == lay
    pending = [s for s in tablet.pending() if at == epoch_of(s.get("at", "1970-01-01T00:00:00Z"))]
    wait_for_event(tablet, item, "delivered", max(0, at - time.time()) + 45)
    late = epoch_of(record_delivered_at(tablet, item)) - at
    count = events_for(tablet, item).count("delivered")
    shown = poll("the card on screen", 10, lambda: displayed(tablet) >= 1 and displayed(tablet))
    record(f"{name} -> the lay resumes and the next call comes", resumed and bool(pending) and count == 1,
           f"lay {lay} before, {after.get('lay')} after (display {after.get('display')}), {item} pending after the "
           f"boot: {bool(pending)}; delivered {late:.1f} s after {hhmm(at)}, {count} time(s); dunst shows {shown}")


def upgrade_step(o, tablet):
    say("== upgrade 0.1.0 -> HEAD while away")
    # 0.1.0's unit does not start in an unprivileged manager (218/CAPABILITIES): an
    # administrator's drop-in gave it PrivateUsers=yes, as the reporter did.
    tablet.write("/etc/systemd/user/daysomed.service.d/private-users.conf", "[Service]\nPrivateUsers=yes\n")
    tablet.run(["apt-get", "install", "-y", "--allow-downgrades", "/root/daysome-0.1.0.deb"],
               env={"DEBIAN_FRONTEND": "noninteractive"}, timeout=180)
    tablet.user_unit("daemon-reload", check=True)
    tablet.user_unit("restart", "daysomed.service", check=True)  # 0.1.0 has no postinst to do it
    daemon_up(tablet)
    old_pid = tablet.daemon_pid()
    old_version = tablet.run(["/usr/bin/daysomed", "--version"]).stdout.strip()
    at = minute_ahead(LEAD_UPGRADE)
    write_household(tablet, [("drink-e", "A drink", at)])
    poll("drink-e laid by 0.1.0", 20,
         lambda: any(at == epoch_of(s.get("at", "1970-01-01T00:00:00Z")) for s in tablet.pending()))
    state = f"{o.tree}/home/{KIOSK}/.local/state/daysome"
    keep = os.path.join(o.logs, "state-0.1.0")
    shutil.copytree(state, keep, dirs_exist_ok=True)
    lay = tablet.status().get("lay")
    history_before = open(f"{state}/history.jsonl").read()
    last_good = open(f"{state}/household.last-good.json").read()
    install = tablet.run(["apt-get", "install", "-y", "/root/daysome-new.deb"],
                         env={"DEBIAN_FRONTEND": "noninteractive"}, check=False, timeout=180)
    new_pid = poll("a new daemon", 30, lambda: (tablet.daemon_pid() or old_pid) != old_pid and tablet.daemon_pid())
    daemon_up(tablet)
    exe = os.readlink(f"/proc/{host_pid(tablet, new_pid)}/exe")
    version = tablet.run(["/usr/bin/daysomed", "--version"]).stdout.strip()
    after = tablet.status()
    history_after = open(f"{state}/history.jsonl").read()
    wait_for_event(tablet, "drink-e", "delivered", max(0, at - time.time()) + 45)
    count = events_for(tablet, "drink-e").count("delivered")
    late = epoch_of(record_delivered_at(tablet, "drink-e")) - at
    # The same household is kept: 0.1.0's whole-file copy (format 1) is read and written again
    # at once without the app's members (format 2), under the same file digest, source and date.
    old_good, new_good = json.loads(last_good), json.loads(open(f"{state}/household.last-good.json").read())
    same_good = (new_good.get("fileDigest", new_good.get("digest")) == old_good.get("digest")
                 and new_good.get("source") == old_good.get("source") and new_good.get("since") == old_good.get("since")
                 and "supervisorPin" not in new_good.get("household", ""))
    record("upgrade 0.1.0 -> HEAD while away -> the same",
           install.returncode == 0 and exe == "/usr/bin/daysomed" and after.get("lay") == lay
           and history_after.startswith(history_before) and same_good and count == 1,
           f"{old_version} pid {old_pid} -> {version} pid {new_pid} (exe {exe}); lay {lay} -> {after.get('lay')}; "
           f"history {len(history_before.splitlines())} lines kept as they were: "
           f"{history_after.startswith(history_before)}; the same last good household kept (format "
           f"{old_good.get('format')} -> {new_good.get('format')}, no PIN): {same_good}; drink-e "
           f"delivered {late:.1f} s after {hhmm(at)}, {count} time(s)")


def collector_step(tablet):
    say("== the journal at the collector")

    def uploaded():
        out = tablet.run(["journalctl", "-D", "/var/log/journal/remote", "--no-pager", "-o", "json",
                          "SYSLOG_IDENTIFIER=daysomed", "DAYSOME_EVENT=delivered"], check=False).stdout
        return [json.loads(line) for line in out.splitlines() if line.startswith("{")] or None

    try:
        entries = poll("daysomed's delivered events at the collector", 60, uploaded, interval=1)
    except StepFailed as error:
        upload = tablet.run(["systemctl", "status", "--no-pager", "-l", "systemd-journal-upload.service"],
                            check=False).stdout[-400:]
        record("the journal reaches the collector", False, f"{error}; {upload}")
        return
    items = sorted({e.get("DAYSOME_ITEM") if isinstance(e.get("DAYSOME_ITEM"), str) else
                    ",".join(e.get("DAYSOME_ITEM") or []) for e in entries})
    hosts = sorted({e.get("_HOSTNAME") for e in entries})
    fields = all(e.get("DAYSOME_LAY") and e.get("DAYSOME_ITEM") and e.get("DAYSOME_START") for e in entries)
    record("the journal reaches the collector", fields,
           f"{len(entries)} delivered events at the collector from {hosts}, items {items}, each with DAYSOME_LAY, "
           f"DAYSOME_ITEM and DAYSOME_START: {fields}")


def main():
    parser = argparse.ArgumentParser()
    for name in ("base", "tree", "logs", "machine", "new-deb", "old-deb", "examples", "dunstrc", "kiosk-guide"):
        parser.add_argument("--" + name, required=True)
    o = parser.parse_args()
    prepare_tree(o)
    return run_walk(o, "the walk", "check-booted-tablet", walk)


def run_walk(o, name, title, body, before_stop=lambda: None):
    """Boots the prepared tree, runs `body(o, tablet)` (a broken step is a failure, never a skip),
    stops the tablet, and prints how many steps passed. Returns the exit status."""
    tablet = Tablet(o)
    started = time.monotonic()
    try:
        body(o, tablet)
    except StepFailed as error:
        record(name, False, str(error))
    except Exception as error:  # a broken step is a failure, never a skip
        record(name, False, f"{type(error).__name__}: {error}")
    finally:
        before_stop()
        tablet.stop()
    failed = [step for step, ok, _ in results if not ok]
    say(f"\n{title}: {len(results) - len(failed)} of {len(results)} steps passed "
        f"in {time.monotonic() - started:.0f} s" + (f"; failed: {', '.join(failed)}" if failed else ""))
    return 1 if failed or not results else 0


if __name__ == "__main__":
    sys.exit(main())
