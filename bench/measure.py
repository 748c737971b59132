"""The rows: each method measures one row of the table (lay and clear, withdraw, fire lateness, idle
wakeups, start → READY) on the world's processes, the contenders taking turns in each repetition."""

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

from .common import *  # noqa: F401,F403
from .world import DUNSTRC, Daemon, UserManager  # noqa: F401


class Measurements:
    """The rows, mixed into the run (`World`): they use its processes, households and notes."""


    def lay_and_clear(self, manager, size, household, reps, peer_subset):
        """Rows 1 and 2 for one household, the four contenders round-robin in each repetition."""
        starts = self.plan(household)
        label = "seed week" if size == "seed" else "dense week"
        wheel = Daemon(self, f"lay-wheel-{size}", "wheel", household, manager)
        systemd = Daemon(self, f"lay-systemd-{size}", "systemd", household, manager)
        res = {name: {"lay": Samples(), "clear": Samples(), "read": Samples()}
               for name in ("wheel", "systemd", "systemd-run", "at")}
        n_first = self.stable_expected(starts)
        # The peers lay the same instants (none in the next two minutes, so none passes mid-loop).
        subset_starts = [at for at in starts if time.time() + 120 < at <= time.time() + WEEK]
        if peer_subset:
            subset_starts = subset_starts[:peer_subset]
        scale = (n_first / len(subset_starts)) if peer_subset and subset_starts else 1.0
        for key in ("systemd-run", "at"):
            for kind in ("lay", "clear", "read"):
                res[key][kind].scale = scale
                if peer_subset:
                    res[key][kind].extrapolated_from = len(subset_starts)
        manager_rss = []
        for rep in range(reps):
            # Each daemon lays and clears FLIPS times a repetition: a lay takes milliseconds, so one
            # sample a repetition left the median to whatever else the machine did at that moment.
            for daemon in [daemon for daemon in (wheel, systemd) for _ in range(FLIPS)]:
                n = self.stable_expected(starts)
                before = manager.rss_kb()
                res[daemon.backend]["lay"].add(daemon.probe("away", n))
                # `daysomectl pending --json` must list the same starts (the systemd backend reads them
                # back from the manager). Timed: it is how a carer or a test reads the queue. When one
                # read takes seconds, later repetitions rely on the probe's count alone.
                read = res[daemon.backend]["read"]
                if not read.values or read.values[0] < 2:
                    t0 = time.monotonic()
                    pending = daemon.pending_count()
                    read.add(time.monotonic() - t0)
                    if pending != n:
                        raise BenchFailure(f"{daemon.name}: laid {n} starts but `daysomectl pending` lists {pending}")
                if daemon.backend == "systemd" and rep == 0 and not manager_rss:
                    manager_rss.append((before, manager.rss_kb()))
                res[daemon.backend]["clear"].add(daemon.probe("foreground", 0))
                pending = daemon.pending_count()
                if pending != 0:
                    raise BenchFailure(f"{daemon.name}: cleared but `daysomectl pending` lists {pending}")
            for key, loop in (("systemd-run", lambda: manager.systemd_run_loop(f"{size}{rep}", subset_starts)),
                              ("at", lambda: self.at_loop(subset_starts))):
                lay, read, clear = loop()
                res[key]["lay"].add(lay)
                res[key]["read"].add(read)
                res[key]["clear"].add(clear)
            last = {key: "/".join(fmt_seconds(res[key][kind].values[-1]) for kind in ("lay", "clear"))
                    for key in ("wheel", "systemd", "systemd-run", "at")}
            log(f"{label} rep {rep + 1}/{reps} (lay/clear, peers on {len(subset_starts)}): " +
                ", ".join(f"{key} {value}" for key, value in last.items()))
        wheel.close()
        systemd.close()
        res["starts"] = n_first
        res["subset"] = len(subset_starts)
        res["manager_rss"] = manager_rss
        return res

    def at_queue(self, starts):
        """The `at` peer: one job per start, queued by a bash loop; returns the seconds and the jobs."""
        stamps = self.run_dir / "at-stamps.txt"
        stamps.write_text("".join(utc(at).strftime("%Y%m%d%H%M") + "\n" for at in starts))
        script = 'while read -r stamp; do echo /bin/true | at -t "$stamp"; done < "$1"'
        env = dict(os.environ, TZ="UTC")
        t0 = time.monotonic()
        out = subprocess.run(["bash", "-c", script, "at-loop", str(stamps)], env=env, capture_output=True, text=True)
        lay = time.monotonic() - t0
        jobs = re.findall(r"^job (\d+) at", out.stderr, re.M)
        self.at_jobs.update(jobs)
        if len(jobs) != len(starts):
            raise BenchFailure(f"the at loop queued {len(jobs)} of {len(starts)} jobs: {out.stderr[-500:]}")
        return lay, jobs

    def at_loop(self, starts):
        lay, jobs = self.at_queue(starts)
        t0 = time.monotonic()
        queued = subprocess.run(["atq"], capture_output=True, text=True).stdout
        read = time.monotonic() - t0
        if not set(jobs) <= set(re.findall(r"^(\d+)\s", queued, re.M)):
            raise BenchFailure("atq does not list every job the at loop queued")
        t0 = time.monotonic()
        subprocess.run(["atrm", *jobs], check=True)
        clear = time.monotonic() - t0
        self.at_jobs.difference_update(jobs)
        left = set(re.findall(r"^(\d+)\s", subprocess.run(["atq"], capture_output=True, text=True).stdout, re.M))
        if left & set(jobs):
            raise BenchFailure("atrm left jobs queued")
        return lay, read, clear

    def withdraw(self, manager, backend, reps, meanwhile=None):
        """Row 3: a call on screen, then `foreground`: time to nothing pending and nothing displayed.
        `meanwhile` (quick mode) runs the other rows while the first call waits for its minute; each
        call then stays on screen ten minutes (its `end`), so it is still there when they are done."""
        slots = [(int(time.time()) // 60 + 1 + i) * 60 for i in range(reps * 3 + 6)]
        household = self.write_slots(f"withdraw-{backend}", slots, end_minutes=10)
        daemon = Daemon(self, f"withdraw-{backend}", backend, household, manager, notifier="freedesktop")
        samples = Samples()
        for rep in range(reps):
            if time.time() % 60 > (57 if meanwhile else 45):  # leave the lay time before the minute
                time.sleep(61 - time.time() % 60)
            atomic_write(daemon.display, "away\n")
            if meanwhile and rep == 0:
                meanwhile()
            deadline = time.time() + 80
            shown = 0
            while time.time() < deadline:
                out = subprocess.run([self.probe, "dunst"], env=manager.env, capture_output=True, text=True)
                shown = int(out.stdout.strip() or 0) if out.returncode == 0 else 0
                if shown >= 1:
                    break
                time.sleep(0.1)
            if shown < 1:
                raise BenchFailure(f"{daemon.name}: no call was displayed within a minute of `away`")
            time.sleep(0.5)
            samples.add(daemon.probe("foreground", 0, dunst=True))
            log(f"withdraw {backend} rep {rep + 1}/{reps}: {fmt_seconds(samples.values[-1])}")
        daemon.close()
        return samples

    def lateness(self, manager, manager_late, manager_fine, minutes):
        """Row 4: each backend (and peer) with one start a minute for `minutes` minutes.

        sd-event wakes a manager once for all its realtime timers due by the tightest deadline, so a
        timer with a fine accuracy makes every coarser one in the same manager fire early too (seen
        here: 1 ms peers pulled the 1 s timers from +0.44 s to +0.03 s). Hence three managers: the
        1 s contenders together, the 1 min backend alone, the 1 ms peer alone."""
        first = (int(time.time()) // 60 + 2) * 60
        slots = [first + 60 * i for i in range(minutes)]
        exact = self.write_slots("late-exact", slots, exact=True)
        inexact = self.write_slots("late-inexact", slots, exact=False)
        daemons = {
            "wheel": Daemon(self, "late-wheel", "wheel", exact, manager, display="away"),
            "systemd": Daemon(self, "late-systemd", "systemd", exact, manager, display="away"),
            "systemd-1min": Daemon(self, "late-systemd-1min", "systemd", inexact, manager_late, display="away"),
        }
        peer_file = self.run_dir / "late-systemd-run.txt"
        at_file = self.run_dir / "late-at.txt"
        peer_fine = self.run_dir / "late-systemd-run-1ms.txt"
        for index, epoch in enumerate(slots):
            for unit, accuracy, path, owner in ((f"benchlate-{index}", "1s", peer_file, manager),
                                                (f"benchlate-fine-{index}", "1ms", peer_fine, manager_fine)):
                subprocess.run(["systemd-run", "--user", "--quiet", f"--unit={unit}",
                                f"--on-calendar={calendar_spec(epoch)}", f"--timer-property=AccuracySec={accuracy}",
                                "/bin/sh", "-c", f"date +%s.%N >> {path}"], env=owner.env, check=True)
            out = subprocess.run(["at", "-t", utc(epoch).strftime("%Y%m%d%H%M")], input=f"date +%s.%N >> {at_file}\n",
                                 env=dict(os.environ, TZ="UTC"), capture_output=True, text=True)
            self.at_jobs.update(re.findall(r"^job (\d+) at", out.stderr, re.M))
        end = slots[-1] + 75
        log(f"lateness: {minutes} starts from {utc(first):%H:%M} UTC; waiting until {utc(end):%H:%M:%S} UTC")
        while time.time() < end:
            time.sleep(min(10, max(0.1, end - time.time())))
        by_minute = {utc(epoch).strftime("%H:%M"): epoch for epoch in slots}
        results = {}
        for key, daemon in daemons.items():
            values = []
            for seen, line in daemon.lines:
                match = re.search(r"Call \d+: Slot (\d\d:\d\d)", line)
                if match and match.group(1) in by_minute:
                    values.append(seen - by_minute[match.group(1)])
            results[key] = values
            if key == "systemd":
                # With exact alarms the daemon calls at the minute itself; the manager's timer, the
                # backstop, reaches it later and finds the call made. How much later is this row.
                results["systemd-manager"] = [
                    seen - max(s for s in slots if s <= seen) for seen, line in daemon.lines
                    if "fired: its start was already delivered" in line and seen >= slots[0]]
            daemon.close()
        for key, path in (("systemd-run", peer_file), ("systemd-run-1ms", peer_fine), ("at", at_file)):
            values = []
            if path.exists():
                for text in path.read_text().split():
                    fired = float(text)
                    planned = max((s for s in slots if s <= fired + 0.001), default=None)
                    if planned is not None:
                        values.append(fired - planned)
            results[key] = values
        for owner in (manager, manager_fine):
            owner.stop_units("benchlate-*")
        leftover = sorted(self.at_jobs)
        if leftover:
            subprocess.run(["atrm", *leftover], stderr=subprocess.DEVNULL)
            self.at_jobs.clear()
        results["starts"] = minutes
        return results

    def race(self, a, b, pairs, env=None):
        """A and B in turn, each timed from fork to reaping by probe.c: the pairs' times and A/B ratios."""
        out = subprocess.run([self.probe, "race", str(pairs), *a, "--", *b], env=env, capture_output=True,
                             text=True)
        if out.returncode != 0:
            raise BenchFailure(f"probe race failed: {out.stderr.strip()}")
        rows = [line.split() for line in out.stdout.splitlines()]
        bad = [row for row in rows if row[2] != "0" or row[3] != "0"]
        if bad:
            raise BenchFailure(f"`{' '.join(a)}` or `{' '.join(b)}` exited {bad[0][2]}/{bad[0][3]} in a race")
        times_a, times_b = [float(row[0]) for row in rows], [float(row[1]) for row in rows]
        return {"a": Samples(times_a), "b": Samples(times_b), "ratios": [x / y for x, y in zip(times_a, times_b)]}

    def read_back(self, manager, pairs):
        """Reading the seed week back: `daysomectl pending --json` (each backend) against `atq` on an
        equal queue (one `at` job per laid start), and the start of `daysomectl --version` against a
        bare Swift program built the same way and `atq`; each pair timed exec to exit, in turn."""
        starts = self.plan(SEED)
        wheel = Daemon(self, "read-wheel", "wheel", SEED, manager, display="away")
        systemd = Daemon(self, "read-systemd", "systemd", SEED, manager, display="away")
        n = self.stable_expected(starts)
        deadline = time.time() + 20
        while manager.count("daysome-*")[1] != n and time.time() < deadline:
            time.sleep(0.1)
        for daemon in (wheel, systemd):
            if daemon.pending_count() != n:
                raise BenchFailure(f"{daemon.name}: `daysomectl pending` does not list the {n} starts laid")
        equal = [at for at in starts if time.time() < at <= time.time() + WEEK][:n]
        _, jobs = self.at_queue(equal)
        ctl = str(BIN / "daysomectl")
        out = {"starts": n, "jobs": len(jobs)}
        try:
            for key, daemon in (("wheel", wheel), ("systemd", systemd)):
                out[key] = self.race([ctl, "pending", "--json", "--runtime-dir", str(daemon.runtime), "--display-state",
                                      str(daemon.display)], ["atq"], pairs, env=manager.env)
            out["version"] = self.race([ctl, "--version"], [self.hello], pairs)
            out["hello"] = self.race([self.hello], ["atq"], pairs)
        finally:
            subprocess.run(["atrm", *jobs], stderr=subprocess.DEVNULL)
            self.at_jobs.difference_update(jobs)
            wheel.close()
            systemd.close()
        return out

    def idle(self, manager, seconds):
        """Rows 5 and 6 (memory): a week laid, nothing due, nobody asking."""
        starts = self.plan(SEED)
        while True:
            now = time.time()
            due = [at for at in starts if now - 5 < at < now + seconds + 20]
            if not due:
                break
            log(f"a seed start falls in the idle window; waiting until {utc(due[-1] + 5):%H:%M:%S}")
            time.sleep(due[-1] + 5 - now)
        wheel = Daemon(self, "idle-wheel", "wheel", SEED, manager, display="away")
        systemd = Daemon(self, "idle-systemd", "systemd", SEED, manager, display="away")
        poller = self.spawn("poll loop", [sys.executable, str(ROOT / "bench" / "poll-loop.py"), str(wheel.display)])
        sleeper = self.spawn("bare Swift", [self.sleeper])
        # The systemd lay is confirmed by the manager before the window opens.
        n = self.stable_expected(starts)
        deadline = time.time() + 20
        while manager.count("daysome-*")[1] != n and time.time() < deadline:
            time.sleep(0.1)
        time.sleep(2)
        pids = {"wheel": wheel.proc.pid, "systemd": systemd.proc.pid, "manager": manager.proc.pid,
                "poll": poller.pid, "bare": sleeper.pid}
        for attempt in range(3):
            opened = time.time()
            before = {key: ctxt(pid) for key, pid in pids.items()}
            time.sleep(seconds)
            after = {key: ctxt(pid) for key, pid in pids.items()}
            # A clock set by someone else makes every daemon re-lay: that window measures the jump.
            jumped = [seen for daemon in (wheel, systemd) for seen, line in daemon.lines
                      if seen >= opened and "clock jumped" in line]
            if not jumped:
                break
            log(f"the realtime clock was set during the idle window at {utc(jumped[0]):%H:%M:%S}: measuring again")
            self.notes.append(f"The idle window was measured again after the realtime clock was set at "
                              f"{utc(jumped[0]):%H:%M:%S} UTC by something outside the benchmark (every daemon re-lays).")
            time.sleep(2)
        wake = {key: (after[key][0] - before[key][0], after[key][1] - before[key][1]) for key in pids}
        rss = {key: rss_kb(pid) for key, pid in pids.items()}
        memory = {key: memory_kb(pids[key]) for key in ("wheel", "systemd", "bare")}
        split = {key: memory_split_kb(pids[key]) for key in ("wheel", "systemd", "bare")}
        threads = {key: after[key][2] for key in pids}
        for proc in (poller, sleeper):
            self.stop(proc)
        wheel.close()
        systemd.close()
        return {"seconds": seconds, "wakeups": wake, "rss": rss, "threads": threads, "starts": n, "memory": memory,
                "split": split}

    def ready(self, manager, reps, sizes):
        """Row 6: start → READY=1 (state read and the first lay done), display away, fresh state."""
        out = {}
        for size, household in sizes:
            starts = self.plan(household)
            for backend in ("wheel", "systemd"):
                samples, rss = Samples(), []
                for rep in range(reps):
                    n = self.stable_expected(starts)
                    daemon = Daemon(self, f"ready-{backend}-{size}-{rep}", backend, household, manager,
                                    display="away")
                    samples.add(daemon.ready_seconds)
                    if backend == "systemd":
                        deadline = time.time() + 30
                        while manager.count("daysome-*")[1] != n and time.time() < deadline:
                            time.sleep(0.05)
                    if not (backend == "systemd" and size == "dense"):  # that read takes tens of seconds
                        pending = daemon.pending_count()
                        if pending != n:
                            raise BenchFailure(f"{daemon.name}: READY with {pending} of {n} starts pending")
                    time.sleep(0.3)
                    rss.append(memory_kb(daemon.proc.pid))
                    daemon.close()
                    manager.stop_units("daysome-*")
                out[(backend, size)] = (samples, {key: statistics.median(m[key] for m in rss) for key in ("rss", "anon")})
        return out
