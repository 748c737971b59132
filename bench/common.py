"""Shared by the bench modules: where things are, the failure that ends a run, time and number
formatting, the samples of one measurement, and small readings of /proc."""

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

ROOT = Path(__file__).resolve().parent.parent
SCRATCH = ROOT / ".build-bench"
# The programs as the package ships them: built by scripts/lib/release-build.sh in the package's
# scratch path (scripts/build-deb's, so a run after it builds nothing), then stripped as it strips.
PACKAGE_SCRATCH = ".build-pkg"
BIN = SCRATCH / "package"
TOOLS = SCRATCH / "bench"
SWIFT = Path("/opt/swift/usr/bin")
SEED = ROOT / "Fixtures" / "households" / "seed.json"
WEEK = 7 * 86400
DENSE_STARTS = 7 * 1440
# How many times each daemon lays and clears in one repetition of the lay rows.
FLIPS = 3


class BenchFailure(Exception):
    """The daemon failed to lay or clear, or a service did not come up: the run exits 1."""


def log(message):
    print(f"[bench {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def atomic_write(path, text):
    """The display's write: a temporary file beside the target, then rename."""
    temporary = f"{path}.tmp.bench{os.getpid()}"
    with open(temporary, "w") as f:
        f.write(text)
    os.rename(temporary, path)


def utc(epoch):
    return datetime.fromtimestamp(epoch, timezone.utc)


def rfc3339(epoch):
    return utc(epoch).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_rfc3339(text):
    return int(datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc).timestamp())


def calendar_spec(epoch):
    """One start as an OnCalendar spec at its UTC instant, for the `systemd-run` peer (the backend itself
    writes few expressions naming many starts: Sources/DaysomeCore/Time/CalendarSpec.swift)."""
    return utc(epoch).strftime("%Y-%m-%d %H:%M:%S UTC")


def percentile(values, p):
    """Nearest-rank percentile."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    rank = max(1, -(-len(ordered) * p // 100))
    return ordered[int(rank) - 1]


def fmt_seconds(value):
    if value is None or value != value:
        return "n/a"
    if abs(value) < 1e-3:
        return f"{value * 1e6:.0f} µs"
    if abs(value) < 1:
        return f"{value * 1e3:.1f} ms" if abs(value) < 0.1 else f"{value * 1e3:.0f} ms"
    return f"{value:.2f} s"


def fmt_ratio(peer, ours):
    if not peer or not ours or peer != peer or ours != ours:
        return "n/a"
    ratio = peer / ours
    return f"{ratio:,.0f}×" if ratio >= 10 else f"{ratio:.1f}×"


class Samples:
    """Repetitions of one measurement: median and spread."""

    def __init__(self, values=None, extrapolated_from=None, scale=1.0):
        self.values = list(values or [])
        self.extrapolated_from = extrapolated_from
        self.scale = scale

    def add(self, value):
        self.values.append(value)

    @property
    def median(self):
        return statistics.median(self.values) * self.scale if self.values else None

    def cell(self):
        if not self.values:
            return "n/a"
        scaled = [v * self.scale for v in self.values]
        text = f"{fmt_seconds(statistics.median(scaled))}"
        if len(scaled) > 1:
            text += f" ({fmt_seconds(min(scaled))}–{fmt_seconds(max(scaled))}, n={len(scaled)})"
        if self.extrapolated_from:
            text += f" †{self.extrapolated_from}"
        return text


def ctxt(pid):
    """Voluntary and nonvoluntary context switches summed over every thread, and the thread count."""
    voluntary = nonvoluntary = threads = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            text = (task / "status").read_text()
        except OSError:
            continue
        threads += 1
        voluntary += int(re.search(r"^voluntary_ctxt_switches:\s*(\d+)", text, re.M).group(1))
        nonvoluntary += int(re.search(r"^nonvoluntary_ctxt_switches:\s*(\d+)", text, re.M).group(1))
    return voluntary, nonvoluntary, threads


def dirty_sources():
    """Uncommitted changes under Sources/ (other engineers work in the same tree): 'no' or the files."""
    out = subprocess.run(["git", "status", "--porcelain", "Sources", "Package.swift"], cwd=ROOT,
                         capture_output=True, text=True).stdout.split("\n")
    files = [line[3:] for line in out if line.strip()]
    return f"yes: {', '.join(f'`{name}`' for name in files)}" if files else "no"


def timed(argv):
    t0 = time.monotonic()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.monotonic() - t0


def cgroup_mounts(tracking_only=False):
    """Mount points of the cgroup hierarchies; with tracking_only, the ones systemd tracks units in."""
    points = []
    with open("/proc/self/mountinfo") as f:
        for line in f:
            left, right = line.split(" - ", 1)
            point = left.split()[4]
            fstype, _source, options = right.split()[:3]
            if fstype == "cgroup2" or (fstype == "cgroup" and (not tracking_only or "name=systemd" in options.split(","))):
                points.append(point)
    return points


def rss_kb(pid):
    text = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"^VmRSS:\s*(\d+)", text, re.M).group(1))


def memory_kb(pid):
    """Resident and anonymous kB from /proc/PID/smaps_rollup."""
    text = Path(f"/proc/{pid}/smaps_rollup").read_text()
    return {key: int(re.search(rf"^{name}:\s*(\d+)", text, re.M).group(1))
            for key, name in (("rss", "Rss"), ("anon", "Anonymous"))}


def memory_split_kb(pid):
    """Resident kB (and anonymous kB) per part of the process, from /proc/PID/smaps: its own
    binary, libsystemd, the libraries libsystemd brings, the C library and its loader, the heap,
    stacks, and other anonymous memory."""
    parts = {}
    name = None
    exe = os.path.realpath(f"/proc/{pid}/exe")
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            fields = line.split()
            if re.match(r"^[0-9a-f]+-[0-9a-f]+ ", line):
                path = fields[5] if len(fields) > 5 else ""
                base = path.rsplit("/", 1)[-1]
                if path.startswith("[heap]"):
                    name = "heap"
                elif path.startswith("[stack"):
                    name = "stack"
                elif not path or path.startswith("["):
                    name = "other anonymous" if not path else path
                elif base.startswith("libsystemd"):
                    name = "libsystemd"
                elif re.match(r"lib(cap|gcrypt|gpg-error|lzma|zstd|lz4)\.", base):
                    name = "libsystemd's libraries"
                elif re.match(r"(libc|libm|ld-linux|libgcc_s|libstdc\+\+)[.-]", base):
                    name = "C and C++ libraries"
                elif path == exe:
                    name = "the program's own binary"
                else:
                    name = base
                parts.setdefault(name, [0, 0])
            elif fields and fields[0] == "Rss:" and name:
                parts[name][0] += int(fields[1])
            elif fields and fields[0] == "Anonymous:" and name:
                parts[name][1] += int(fields[1])
    return {key: tuple(value) for key, value in parts.items() if value[0]}


def mb(kb):
    return f"{kb / 1024:.1f} MB"
