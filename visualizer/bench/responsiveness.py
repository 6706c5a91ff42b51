"""Whether the GUI thread keeps answering while the model works (shared/DESIGN.md: the GUI
thread never blocks for more than 100 ms).

``loop_gap_ms``
    The longest gap between two ticks of a 5 ms timer on the GUI thread, in the real window,
    while it opens a random-weight 6 + 6-layer checkpoint of about 20 MB, runs its generation
    to the end (64 steps, every head captured) and plays the generation back from the start.
    The worst of the runs (one with ``--quick``, three otherwise): a stall is what a user
    notices, so the worst case is the figure, not the median.
"""

from __future__ import annotations

import gc
import tempfile
from pathlib import Path

from PySide6.QtCore import QElapsedTimer, QSettings, QTimer
from PySide6.QtWidgets import QApplication

from visualizer.bench.paint import wait_until
from visualizer.bench.random_models import save_large_checkpoint
from visualizer.state.session import Session
from visualizer.window.main_window import MainWindow

WAIT_MS = 600_000  # the longest any one phase may take before the benchmark gives up (paint.py says why)


class LoopWatch:
    """Records the longest gap between ticks of a 5 ms timer on the GUI thread."""

    def __init__(self) -> None:
        self.clock = QElapsedTimer()
        self.timer = QTimer()
        self.timer.setInterval(5)
        self.timer.timeout.connect(self.tick)
        self.worst_ms = 0
        self.last = 0
        self.events: list[tuple[int, int | str]] = []  # (ms since start, gap over 50 ms or a mark)

    def tick(self) -> None:
        now = self.clock.elapsed()
        gap = now - self.last
        self.worst_ms = max(self.worst_ms, gap)
        if gap > 50:
            self.events.append((now, gap))
        self.last = now

    def mark(self, what: str) -> None:
        self.events.append((self.clock.elapsed(), what))

    def __enter__(self) -> LoopWatch:
        self.clock.start()
        self.timer.start()
        return self

    def __exit__(self, *exc) -> None:
        self.timer.stop()


def load_run_and_play(window: MainWindow, checkpoint: Path, watch: LoopWatch) -> None:
    """Open ``checkpoint`` in ``window``, run its generation to the end and play it back,
    waiting on the event loop (so that ``watch`` ticks) until each phase is done."""
    session = window.session
    window.open_checkpoint(checkpoint)
    watch.mark("load requested")
    wait_until(lambda: session.model is not None and session.model.path == checkpoint, WAIT_MS)
    wait_until(lambda: not session.busy, WAIT_MS)
    watch.mark("loaded")
    session.run_to_end()
    wait_until(lambda: not session.busy, WAIT_MS)
    watch.mark("ran to end")
    window.step_controls.speed.setValue(30)
    session.go_to_step(-1)
    session.toggle_play()
    wait_until(lambda: not session.playing, WAIT_MS)
    watch.mark("played")


def worst_gap_once(checkpoint: Path, folder: Path) -> int:
    settings = QSettings(str(folder / "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(Session(), settings=settings, remember=False)
    window.show()
    try:
        with LoopWatch() as watch:
            load_run_and_play(window, checkpoint, watch)
        return watch.worst_ms
    finally:
        window.close()  # stops the worker thread
        window.deleteLater()
        QApplication.processEvents()
        gc.collect()  # on the GUI thread: destroying Qt objects on another one deadlocks


def measure_responsiveness(quick: bool) -> dict[str, float]:
    from visualizer.bench.paint import application

    application()
    with tempfile.TemporaryDirectory() as folder:
        checkpoint = save_large_checkpoint(Path(folder) / "large.safetensors")
        gaps = [worst_gap_once(checkpoint, Path(folder)) for _ in range(1 if quick else 3)]
    return {"loop_gap_ms": float(max(gaps))}
