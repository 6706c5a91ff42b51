"""How long the app takes to start, measured from outside in a fresh process.

``startup_s``
    From just before the process is started to the first painted window: the interpreter,
    Qt, pyqtgraph and the window, but not torch (it is imported on the worker thread after).
``ready_s``
    From the same moment to the shipped model loaded and its generation started, so that
    the first step can be taken.

The app runs offscreen with ``--probe-startup`` (see ``visualizer.window.app.probe_startup``),
which prints the wall-clock times of both events as one JSON line and quits.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time


class StartupError(RuntimeError):
    """The probed app did not start; the message says what it printed."""


def probe_once() -> tuple[float, float]:
    """(startup_s, ready_s) of one fresh start of the app."""
    environment = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    started = time.time()
    finished = subprocess.run(
        [sys.executable, "-m", "visualizer", "--probe-startup"],
        capture_output=True,
        text=True,
        env=environment,
        timeout=600,  # a hang, not a slow start: the figures judge the speed
    )
    lines = finished.stdout.strip().splitlines()
    times = json.loads(lines[-1]) if lines else {}
    if finished.returncode != 0 or "painted" not in times or "ready" not in times:
        detail = times.get("error") or finished.stderr.strip().splitlines()[-1:] or ["no output"]
        raise StartupError(f"the app did not start (exit {finished.returncode}): {detail}")
    return times["painted"] - started, times["ready"] - started


def measure_startup(quick: bool) -> dict[str, float]:
    """Medians of several fresh starts (one with ``quick``), after one start off the clock
    that warms the disk cache."""
    runs = 1 if quick else 5
    if not quick:
        probe_once()
    samples = [probe_once() for _ in range(runs)]
    return {
        "startup_s": statistics.median(s for s, _ in samples),
        "ready_s": statistics.median(r for _, r in samples),
    }
