#!/usr/bin/env python3
"""The naive baseline for wakeups: read the display state file once a second, forever.

scripts/bench counts this process's context switches beside an idle daysomed's.
"""
import sys
import time

path = sys.argv[1]
last = None
while True:
    try:
        with open(path) as f:
            line = f.readline().strip()
    except OSError:
        line = None
    if line != last:
        last = line
    time.sleep(1)
