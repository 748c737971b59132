"""The world a run measures in: the processes it starts and stops by pid (atd, Xvfb and dunst, a
private `systemd --user` per `UserManager`, each `Daemon`), the build, the versions, and the
households and plans it writes. The rows themselves are in measure.py."""

import argparse
import json
import os
import platform
import re
import select
import shlex
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

from .common import *  # noqa: F401,F403 (the constants and helpers every part shares)


class World:
    """The run's processes, scratch directory, results and notes; the rows are mixed in from measure.py."""

    def __init__(self, args):
        self.args = args
        self.quick = args.quick
        stamp = time.strftime("%Y%m%dT%H%M%S")
        self.run_dir = SCRATCH / "run" / f"{stamp}-{os.getpid()}"
        self.processes = []  # (name, Popen), stopped newest first
        self.at_jobs = set()
        self.managers = []
        self.daemons = []
        self.started_atd = None
        self.results = {}
        self.notes = []
        self.failures = []

    # ---- processes ----

    def spawn(self, name, argv, **kwargs):
        kwargs.setdefault("stdin", subprocess.DEVNULL)
        proc = subprocess.Popen(argv, **kwargs)
        self.processes.append((name, proc))
        return proc

    def stop(self, proc, timeout=5):
        if proc.poll() is not None:
            return
        try:
            os.kill(proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(5)

    def cleanup(self):
        for daemon in self.daemons:
            daemon.close()
        for manager in self.managers:
            manager.stop_units()
        if self.at_jobs:
            subprocess.run(["atrm", *sorted(self.at_jobs, key=int)], stderr=subprocess.DEVNULL)
            self.at_jobs.clear()
        for name, proc in reversed(self.processes):
            try:
                self.stop(proc, timeout=15)
            except Exception as error:  # keep stopping the rest
                log(f"could not stop {name} ({proc.pid}): {error}")
        self.processes.clear()
        for manager in self.managers:
            manager.remove_cgroup()

    # ---- set-up ----

    def build(self):
        """daysomed and daysomectl as the package builds and strips them, and the bare Swift
        programs (the floor) built with the same flags; probe.c with the C compiler."""
        env = dict(os.environ, PATH=f"{SWIFT}:{os.environ.get('PATH', '')}")
        library = ". scripts/lib/release-build.sh"
        if not self.args.no_build:
            log(f"building daysomed and daysomectl as the package does (scripts/lib/release-build.sh, {PACKAGE_SCRATCH})")
            result = subprocess.run(
                ["bash", "-c", f'{library} && release_build "$1" "$1/bench-build.log" && release_bin "$1"', "build",
                 PACKAGE_SCRATCH], cwd=ROOT, env=env, capture_output=True, text=True)
            if result.returncode != 0:
                log_path = ROOT / PACKAGE_SCRATCH / "bench-build.log"
                sys.stderr.write(result.stderr[-2000:] + (log_path.read_text()[-4000:] if log_path.exists() else ""))
                raise BenchFailure("swift build failed")
            built = Path(result.stdout.strip().splitlines()[-1])
            BIN.mkdir(parents=True, exist_ok=True)
            for binary in ("daysomed", "daysomectl"):
                shutil.copy2(built / binary, BIN / binary)
                # As scripts/build-deb strips them (dh_strip's way).
                subprocess.run(["strip", "--remove-section=.comment", "--remove-section=.note", str(BIN / binary)],
                               check=True)
        for binary in ("daysomed", "daysomectl"):
            if not (BIN / binary).exists():
                raise BenchFailure(f"{BIN / binary} is missing: run without --no-build")
        TOOLS.mkdir(parents=True, exist_ok=True)
        probe_src, probe = ROOT / "bench" / "probe.c", TOOLS / "probe"
        if not probe.exists() or probe.stat().st_mtime < probe_src.stat().st_mtime:
            flags = subprocess.run(["pkg-config", "--cflags", "--libs", "libsystemd"],
                                   capture_output=True, text=True, check=True).stdout.split()
            subprocess.run(["cc", "-O2", "-Wall", "-o", str(probe), str(probe_src), *flags], check=True)
        # The floor: Swift programs that only sleep or only print, linked as the package links.
        flags = subprocess.run(
            ["bash", "-c", f'{library} && swiftc_flags "$1" && printf "%s\\n" "${{swiftc_flags[@]}}" && '
             'for f in "${linker_flags[@]}"; do printf -- "-Xlinker\\n%s\\n" "$f"; done', "flags", PACKAGE_SCRATCH],
            cwd=ROOT, env=env, capture_output=True, text=True, check=True).stdout.split("\n")
        flags = ["-static-stdlib"] + [flag for flag in flags if flag]
        stamp = TOOLS / "swift-flags.txt"
        fresh = stamp.exists() and stamp.read_text() == " ".join(flags)
        for name in ("sleeper", "hello"):
            source, program = ROOT / "bench" / f"{name}.swift", TOOLS / name
            if not fresh or not program.exists() or program.stat().st_mtime < source.stat().st_mtime:
                subprocess.run(["swiftc", *flags, "-o", str(program), str(source)], env=env, check=True, cwd=TOOLS)
                subprocess.run(["strip", "--remove-section=.comment", "--remove-section=.note", str(program)],
                               check=True)
        stamp.write_text(" ".join(flags))
        self.probe = str(probe)
        self.sleeper = str(TOOLS / "sleeper")
        self.hello = str(TOOLS / "hello")

    def versions(self):
        def first_line(argv):
            try:
                out = subprocess.run(argv, capture_output=True, text=True, timeout=30)
                return (out.stdout or out.stderr).strip().splitlines()[0]
            except (OSError, IndexError, subprocess.TimeoutExpired):
                return "n/a"

        cpu = "n/a"
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
        with open("/proc/meminfo") as f:
            memory = f.readline().split(":", 1)[1].strip()
        os_name = "n/a"
        if Path("/etc/os-release").exists():
            for line in Path("/etc/os-release").read_text().splitlines():
                if line.startswith("PRETTY_NAME="):
                    os_name = line.split("=", 1)[1].strip('"')
        at_version = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", "at"], capture_output=True,
                                    text=True).stdout or "n/a"
        return {
            "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "os": os_name,
            "kernel": platform.release(),
            "cpu": cpu,
            "nproc": str(os.cpu_count()),
            "memory": memory,
            "load": " ".join(Path("/proc/loadavg").read_text().split()[:3]),
            "systemd": first_line(["systemctl", "--version"]),
            "swift": first_line([str(SWIFT / "swift"), "--version"]),
            "dunst": first_line(["dunst", "--version"]),
            "at": at_version,
            "python": platform.python_version(),
            "commit": subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                                     text=True).stdout.strip(),
            "dirty": dirty_sources(),
        }

    def start_atd(self):
        if subprocess.run(["pgrep", "-x", "atd"], capture_output=True).returncode == 0:
            self.notes.append("An `atd` was already running; the `at` peer used it.")
            return
        if not shutil.which("atd"):
            raise BenchFailure("atd is missing: apt-get install at")
        Path("/var/spool/cron/atjobs").mkdir(parents=True, exist_ok=True)
        self.started_atd = self.spawn("atd", ["atd", "-f"], stdout=subprocess.DEVNULL,
                                      stderr=open(self.run_dir / "atd.log", "w"))
        time.sleep(0.2)
        if self.started_atd.poll() is not None:
            raise BenchFailure("atd exited: see " + str(self.run_dir / "atd.log"))

    def start_display(self, manager):
        """Xvfb and dunst on the manager's bus; returns False (with a note) when they are missing."""
        if not shutil.which("Xvfb") or not shutil.which("dunst"):
            self.notes.append("Xvfb or dunst is missing: the withdraw row was skipped.")
            return False
        display = None
        for attempt in range(3):
            read_end, write_end = os.pipe()
            xvfb = self.spawn("Xvfb", ["Xvfb", "-displayfd", str(write_end), "-screen", "0", "640x480x24",
                                       "-nolisten", "tcp"], pass_fds=[write_end], stdout=subprocess.DEVNULL,
                              stderr=open(self.run_dir / f"xvfb-{attempt}.log", "w"))
            os.close(write_end)
            text = b""
            deadline = time.monotonic() + 30
            while not text.endswith(b"\n") and time.monotonic() < deadline:
                ready, _, _ = select.select([read_end], [], [], 1)
                if ready:
                    chunk = os.read(read_end, 64)
                    if not chunk:
                        break
                    text += chunk
            os.close(read_end)
            if text.strip().isdigit():
                display = ":" + text.decode().strip()
                break
            self.stop(xvfb)
            log(f"Xvfb did not start (attempt {attempt + 1}): "
                + (self.run_dir / f"xvfb-{attempt}.log").read_text().strip().replace("\n", " ")[-300:])
        if display is None:
            raise BenchFailure("Xvfb did not report a display")
        config = self.run_dir / "dunstrc"
        config.write_text(DUNSTRC)
        env = dict(manager.env, DISPLAY=display)
        self.spawn("dunst", ["dunst", "-config", str(config)], env=env, stdout=subprocess.DEVNULL,
                   stderr=open(self.run_dir / "dunst.log", "w"))
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if subprocess.run([self.probe, "dunst"], env=manager.env, capture_output=True).returncode == 0:
                self.dunst_env = env
                return True
            time.sleep(0.2)
        raise BenchFailure("dunst did not own org.freedesktop.Notifications on the manager's bus")

    # ---- households and plans ----

    def write_dense(self):
        items = [{"id": f"m{h:02d}{m:02d}", "label": f"Meal {h:02d}:{m:02d}", "kind": "meal",
                  "time": f"{h:02d}:{m:02d}", "repeat": "daily"} for h in range(24) for m in range(60)]
        path = self.run_dir / "dense.json"
        path.write_text(json.dumps({"version": 1, "timeZone": "UTC", "clock": "24h",
                                    "settings": {"notifyInOtherApps": True, "chime": "off"}, "items": items}))
        return path

    def write_slots(self, name, slots, exact=True, end_minutes=None):
        """A household with one item at each of `slots` (epoch minutes), labelled with its minute; with
        end_minutes, each call stays on screen that long (its `end`) instead of until the next start."""
        items = []
        for epoch in slots:
            hhmm = utc(epoch).strftime("%H:%M")
            item = {"id": "s" + hhmm.replace(":", ""), "label": f"Slot {hhmm}", "kind": "meal",
                    "time": hhmm, "repeat": "daily"}
            if end_minutes:
                item["end"] = utc(epoch + 60 * end_minutes).strftime("%H:%M")
            items.append(item)
        path = self.run_dir / f"{name}.json"
        path.write_text(json.dumps({"version": 1, "timeZone": "UTC", "clock": "24h",
                                    "settings": {"notifyInOtherApps": True, "exactAlarms": exact, "chime": "off"},
                                    "items": items}))
        return path

    def plan(self, household):
        """Every start instant from a minute ago over eight days (enough for any lay made now)."""
        out = subprocess.run([str(BIN / "daysomectl"), "plan", "--household", str(household), "--json",
                              "--from", rfc3339(int(time.time()) - 60), "--days", "8"],
                             capture_output=True, text=True)
        if out.returncode != 0:
            raise BenchFailure(f"daysomectl plan failed: {out.stderr.strip()}")
        return [parse_rfc3339(start["at"]) for start in json.loads(out.stdout)["starts"]]

    @staticmethod
    def expected(starts, from_epoch):
        return sum(1 for at in starts if from_epoch < at <= from_epoch + WEEK)

    def stable_expected(self, starts):
        """The number of starts a lay made in the next few seconds holds (waits out a boundary)."""
        while True:
            now = int(time.time())
            counts = {self.expected(starts, now + d) for d in range(0, 4)}
            if len(counts) == 1:
                return counts.pop()
            time.sleep(1)


class UserManager:
    """A private `systemd --user` with its socket-activated bus, in a 0700 directory off /tmp."""

    def __init__(self, bench, name):
        self.bench = bench
        self.rt = bench.run_dir / name
        self.rt.mkdir(mode=0o700)
        os.chmod(self.rt, 0o700)
        if len(str(self.rt / "systemd" / "private")) > 100:
            raise BenchFailure(f"{self.rt} is too long for a unix socket path")
        Path("/run/systemd/system").mkdir(parents=True, exist_ok=True)
        self.env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.environ.get("HOME", "/root"),
                    "LANG": "C.UTF-8", "XDG_RUNTIME_DIR": str(self.rt),
                    "DBUS_SESSION_BUS_ADDRESS": f"unix:path={self.rt}/bus"}
        # Its own cgroup: with no systemd as PID 1 every `systemd --user` on the machine roots its
        # units at the same paths (/session.slice/dbus.service, /app.slice/…), so stopping a unit in
        # one manager kills the same unit's processes in every other (seen here: another manager's
        # teardown killed this one's dbus-daemon). A cgroup of its own keeps both sides apart.
        self.cgroup = f"daysome-bench-{os.getpid()}-{name}"
        procs = []
        for mount in cgroup_mounts(tracking_only=True):
            path = Path(mount) / self.cgroup
            try:
                path.mkdir()
                procs.append(str(path / "cgroup.procs"))
            except OSError as error:
                bench.notes.append(f"Could not give the user manager its own cgroup under {mount}: {error}.")
        argv = ["sh", "-c", 'for f; do echo $$ > "$f" || exit 1; done; exec /lib/systemd/systemd --user', "sh",
                *procs]
        self.proc = bench.spawn(f"systemd --user ({name})", argv, env=self.env,
                                stdout=subprocess.DEVNULL, stderr=open(f"{self.rt}.log", "w"),
                                start_new_session=True)
        bench.managers.append(self)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise BenchFailure(f"systemd --user exited: see {self.rt}.log")
            if (self.rt / "systemd" / "private").exists():
                state = subprocess.run(["systemctl", "--user", "is-system-running"], env=self.env,
                                       capture_output=True, text=True).stdout.strip()
                if state in ("running", "degraded"):
                    return
            time.sleep(0.1)
        raise BenchFailure("systemd --user did not come up in 30 s")

    def remove_cgroup(self):
        """After the manager exited: end what is left in its cgroup (started by it, so by us), then rmdir."""
        for mount in cgroup_mounts():
            top = Path(mount) / self.cgroup
            if not top.is_dir():
                continue
            for directory in sorted((d for d in top.rglob("*") if d.is_dir()), key=lambda d: -len(d.parts)) + [top]:
                try:
                    for pid in (directory / "cgroup.procs").read_text().split():
                        log(f"ending pid {pid}, left in {directory}")
                        os.kill(int(pid), signal.SIGKILL)
                except OSError:
                    pass
                for _ in range(20):
                    try:
                        directory.rmdir()
                        break
                    except FileNotFoundError:
                        break
                    except OSError:
                        time.sleep(0.05)

    def count(self, pattern):
        """(active timers matching `pattern`, the starts their OnCalendar expressions name)."""
        out = subprocess.run([self.bench.probe, "count", pattern], env=self.env, capture_output=True, text=True)
        if out.returncode != 0:
            return (-1, -1)
        timers, starts = out.stdout.split()
        return int(timers), int(starts)

    def rss_kb(self):
        return rss_kb(self.proc.pid)

    def stop_units(self, *patterns):
        if self.proc.poll() is not None:
            return
        patterns = patterns or ("daysome-*", "benchpeer-*", "benchlate-*")
        subprocess.run(["systemctl", "--user", "stop", *patterns], env=self.env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=60)

    def systemd_run_loop(self, tag, starts):
        """The peer: one `systemd-run --user --on-calendar` per start, then one `systemctl --user stop`."""
        specs = self.bench.run_dir / "specs.txt"
        specs.write_text("".join(calendar_spec(at) + "\n" for at in starts))
        script = ('i=0; while read -r spec; do i=$((i+1)); systemd-run --user --quiet --unit="benchpeer-$1-$i" '
                  '--on-calendar="$spec" --timer-property=AccuracySec=1s /bin/true || exit 1; done < "$2"')
        t0 = time.monotonic()
        out = subprocess.run(["bash", "-c", script, "peer", tag, str(specs)], env=self.env, capture_output=True,
                             text=True)
        lay = time.monotonic() - t0
        if out.returncode != 0:
            raise BenchFailure(f"the systemd-run loop failed: {out.stderr[-500:]}")
        if self.count(f"benchpeer-{tag}-*") != (len(starts), len(starts)):
            raise BenchFailure(f"the systemd-run loop left {self.count(f'benchpeer-{tag}-*')} timers, not {len(starts)}")
        t0 = time.monotonic()
        listed = subprocess.run(["systemctl", "--user", "list-timers", "--all", "--no-pager", "--no-legend",
                                 f"benchpeer-{tag}-*"], env=self.env, capture_output=True, text=True).stdout
        read = time.monotonic() - t0
        if len(listed.splitlines()) != len(starts):
            raise BenchFailure(f"list-timers shows {len(listed.splitlines())} peer timers, not {len(starts)}")
        units = [f"benchpeer-{tag}-{i}.timer" for i in range(1, len(starts) + 1)]
        t0 = time.monotonic()
        subprocess.run(["systemctl", "--user", "stop", *units], env=self.env, check=True)
        clear = time.monotonic() - t0
        if self.count(f"benchpeer-{tag}-*")[0] != 0:
            raise BenchFailure("systemctl --user stop left peer timers active")
        return lay, read, clear


class Daemon:
    """One daysomed, started with its own display file, runtime and state directories."""

    def __init__(self, bench, name, backend, household, manager, notifier="log", display="foreground"):
        self.bench, self.name, self.backend, self.manager = bench, name, backend, manager
        self.dir = bench.run_dir / name
        self.dir.mkdir()
        self.display = self.dir / "display"
        self.runtime = self.dir / "rt"
        atomic_write(self.display, display + "\n")
        notify_path = self.dir / "notify"
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        listener.bind(str(notify_path))
        env = dict(manager.env, NOTIFY_SOCKET=str(notify_path))
        argv = [str(BIN / "daysomed"), "--household", str(household), "--display-state", str(self.display),
                "--runtime-dir", str(self.runtime), "--state-dir", str(self.dir / "state"), "--backend", backend,
                "--notifier", notifier]
        self.lines = []
        self.closed = False
        bench.daemons.append(self)
        t0 = time.monotonic()
        self.proc = bench.spawn(f"daysomed {name}", argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        listener.settimeout(0.2)
        self.ready_seconds = None
        while time.monotonic() - t0 < 30:
            try:
                message = listener.recv(4096)
            except socket.timeout:
                if self.proc.poll() is not None:
                    break
                continue
            if b"READY=1" in message.split(b"\n"):
                self.ready_seconds = time.monotonic() - t0
                break
        listener.close()
        if self.ready_seconds is None:
            self.close()
            raise BenchFailure(f"daysomed {name} sent no READY=1: {self.stderr()[-1000:]}")

    def _read(self):
        for raw in self.proc.stderr:
            self.lines.append((time.time(), raw.decode(errors="replace").rstrip("\n")))

    def stderr(self):
        return "\n".join(line for _, line in self.lines)

    def probe(self, word, n, timeout=30, dunst=False):
        if self.backend == "wheel":
            argv = [self.bench.probe, "wheel", str(self.display), word, str(self.runtime / "queue.json")]
        else:
            argv = [self.bench.probe, "systemd", str(self.display), word, "daysome-*"]
        argv += [str(n), str(timeout)] + (["--dunst"] if dunst else [])
        out = subprocess.run(argv, env=self.manager.env, capture_output=True, text=True)
        if out.returncode != 0:
            raise BenchFailure(f"daysomed {self.name} ({self.backend}) failed to "
                               f"{'lay' if n else 'clear'}: {out.stderr.strip()}\n{self.stderr()[-1500:]}")
        return float(out.stdout)

    def pending_count(self):
        out = subprocess.run([str(BIN / "daysomectl"), "pending", "--json", "--runtime-dir", str(self.runtime),
                              "--display-state", str(self.display)], env=self.manager.env, capture_output=True,
                             text=True)
        if out.returncode != 0:
            raise BenchFailure(f"daysomectl pending failed for {self.name}: {out.stderr.strip()}")
        return len(json.loads(out.stdout)["pending"])

    def close(self):
        if self.closed:
            return
        self.closed = True
        self.bench.stop(self.proc)
        self.reader.join(2)
        (self.dir / "stderr.log").write_text(
            "".join(f"{seen:.6f} {line}\n" for seen, line in self.lines))
        if self.backend == "systemd":
            self.manager.stop_units("daysome-*")


DUNSTRC = """[global]
    monitor = 0
    follow = none
    width = 300
    height = 300
    origin = top-right
    offset = 10x50
    notification_limit = 0
    indicate_hidden = yes
    stack_duplicates = false
    history_length = 100
    markup = full
    format = "<b>%s</b>\\n%b"
    show_age_threshold = -1
    idle_threshold = 0
    ignore_dbusclose = false
    font = Monospace 8
"""
