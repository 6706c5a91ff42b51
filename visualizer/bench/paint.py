"""How long the attention grid takes to show a step, and matplotlib redrawing the same grid.

Every number is the median, in milliseconds, of repeated runs after a warm-up, on the Qt
platform the process runs on (``offscreen`` unless QT_QPA_PLATFORM says otherwise):

``paint_ms``
    A step's result applied on the GUI thread exactly as the worker bridge applies it
    (``Session.apply(SnapshotReady)``: the session updates, the grid recomputes its view and
    its image) until the grid's synchronous repaint returns. The shipped model, the source
    "reverse: abcdefghijklmno", cross-attention, the grid 900 × 600 pixels; the samples step
    through the generation, so each repaint shows one more row.
``paint_128_ms``, ``paint_512_ms``
    The same for encoder self-attention of a random-weight model with 6 layers × 8 heads
    (54 cells with the mean column) over a source of 128 / 512 tokens. Two sources alternate,
    so every repaint shows a different image.
``mpl_paint_ms``, ``mpl_paint_512_ms``
    The peer: matplotlib (Agg, no window) redrawing a 6 × 8 grid of ``imshow`` images of
    128² / 512² on a 900 × 600 pixel figure, built once, then per repaint ``set_data`` on all
    48 images and ``canvas.draw()``. Nearest-neighbour interpolation, matplotlib's fastest.
    Left out when matplotlib is not installed.
``step_to_paint_ms``
    The real window: a press of → (Step) until the window has painted the new step: the
    request to the worker thread, the model's step there, the result crossing back, every
    view updating, and the paint that shows it. The shipped model and source as above; the
    generation is reset (off the clock) when it ends.
"""

from __future__ import annotations

import gc
import itertools
import os
import string
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import torch
from PySide6.QtCore import QEvent, QEventLoop, QObject, QSettings, Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from model.core.tokenizer import CharTokenizer
from model.generation.engine import GenerationEngine
from model.transformer.checkpoint import default_checkpoint_path, load_checkpoint
from model.transformer.family import TransformerFamily
from model.transformer.model import Transformer, TransformerConfig
from visualizer.state.session import Session, SnapshotReady
from visualizer.widgets.attention_grid import AttentionGrid
from visualizer.window.main_window import MainWindow

GRID_SIZE = (900, 600)  # width, height in pixels
SOURCE = "reverse: abcdefghijklmno"
WARMUP = 2  # runs dropped before the ones timed: first paints build caches and fonts
# The longest wait for the window before the benchmark gives up. Generous: on a busy machine (the
# test suite runs --quick while another copy of it runs) the window is slow to get there, and a
# wait ends as soon as it does; the figures, not this limit, are what the budgets judge.
WAIT_MS = 600_000


def measure_paint(quick: bool) -> dict[str, float]:
    """Median milliseconds of each measure (see the module docstring)."""
    application()
    repeats = 3 if quick else 30
    results = {
        "paint_ms": shipped_grid_paint(repeats),
        "paint_128_ms": synthetic_grid_paint(128, repeats),
        "paint_512_ms": synthetic_grid_paint(512, repeats),
    }
    for key, size in (("mpl_paint_ms", 128), ("mpl_paint_512_ms", 512)):
        measured = matplotlib_paint(size, repeats)
        if measured is not None:
            results[key] = measured
    # the closed grids' reference cycles go here, on the GUI thread, not later on the window's
    # worker thread, where destroying Qt objects deadlocks (see tests/visualizer/conftest.py)
    gc.collect()
    results["step_to_paint_ms"] = step_to_paint(repeats)
    return results


def application():
    app = QApplication.instance()
    if app is None:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        app = QApplication([])
    return app


def median_ms(sample: Callable[[int], float], repeats: int) -> float:
    """``sample(i)`` times one run and returns seconds; the first WARMUP runs are dropped."""
    seconds = [sample(i) for i in range(WARMUP + repeats)][WARMUP:]
    return float(np.median(seconds) * 1000)


# -- the grid alone, fed results as the worker bridge feeds them --------------------------
def grid_paint(kind: str, snapshots: Sequence, repeats: int) -> float:
    session = Session()
    session.set_kind(kind)
    grid = AttentionGrid(session)
    grid.resize(*GRID_SIZE)
    grid.show()
    QTest.qWaitForWindowExposed(grid)
    request_ids = itertools.count(1)

    def sample(i: int) -> float:
        result = SnapshotReady(next(request_ids), session.generation, snapshots[i % len(snapshots)])
        started = time.perf_counter()
        session.apply(result)  # what WorkerBridge.on_finished does with a worker's result
        grid.viewport().repaint()  # paints now, instead of at the event loop's next pass
        elapsed = time.perf_counter() - started
        QApplication.processEvents()  # off the clock: nothing queued leaks into the next sample
        return elapsed

    try:
        return median_ms(sample, repeats)
    finally:
        grid.detach()
        grid.close()


def shipped_grid_paint(repeats: int) -> float:
    """Cross-attention of the shipped model, stepping through one generation."""
    checkpoint = load_checkpoint(default_checkpoint_path(), "cpu")
    engine = GenerationEngine(checkpoint, SOURCE)
    snapshots = []
    while engine.step() is not None:
        snapshots.append(engine.snapshot())
    return grid_paint("cross", snapshots, repeats)


def synthetic_grid_paint(size: int, repeats: int) -> float:
    """Encoder self-attention of ``size`` tokens, 6 layers × 8 heads, two sources alternating."""
    tokenizer = CharTokenizer.from_characters(string.ascii_lowercase)
    config = TransformerConfig(
        vocab_size=len(tokenizer),
        d_model=64,
        n_heads=8,
        n_encoder_layers=6,
        n_decoder_layers=1,
        d_ff=128,
        dropout=0.0,
        max_len=600,
    )
    torch.manual_seed(0)
    model = Transformer(config).eval()
    rng = np.random.default_rng(size)
    sources = ["".join(rng.choice(list(string.ascii_lowercase), size - 1)) for _ in range(2)]
    snapshots = [
        GenerationEngine(TransformerFamily(model, tokenizer), source).snapshot() for source in sources
    ]
    return grid_paint("enc_self", snapshots, repeats)


# -- the peer -----------------------------------------------------------------------------
def matplotlib_paint(size: int, repeats: int) -> float | None:
    """matplotlib's Agg canvas redrawing 6 × 8 images of ``size``²; None without matplotlib."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        return None
    layers, heads = 6, 8
    rng = np.random.default_rng(size)
    frames = []
    for _ in range(2):  # two states, alternating, as for the grid; rows peaked like attention
        weights = rng.random((layers, heads, size, size), dtype=np.float32) ** 8
        frames.append(weights / weights.sum(-1, keepdims=True))
    figure = Figure(figsize=(GRID_SIZE[0] / 100, GRID_SIZE[1] / 100), dpi=100)
    canvas = FigureCanvasAgg(figure)
    axes = figure.subplots(layers, heads)
    images = []
    for layer, head in itertools.product(range(layers), range(heads)):
        ax = axes[layer, head]
        ax.set_axis_off()
        images.append(
            ax.imshow(frames[0][layer, head], cmap="viridis", vmin=0, vmax=1, interpolation="nearest")
        )
    canvas.draw()

    def sample(i: int) -> float:
        frame = frames[i % 2]
        started = time.perf_counter()
        for image, (layer, head) in zip(images, itertools.product(range(layers), range(heads)), strict=True):
            image.set_data(frame[layer, head])
        canvas.draw()
        return time.perf_counter() - started

    return median_ms(sample, repeats)


# -- the whole window, from a key press ---------------------------------------------------
def step_to_paint(
    repeats: int, checkpoint: Path | None = None, source: str = SOURCE, kind: str | None = None
) -> float:
    """Median ms from → pressed to the window painted with the new step, for ``checkpoint``
    (the shipped model by default) reading ``source``, showing ``kind`` (the model's first by
    default)."""
    with tempfile.TemporaryDirectory() as folder:
        settings = QSettings(str(Path(folder) / "settings.ini"), QSettings.Format.IniFormat)
        session = Session()
        session.source = source
        window = MainWindow(session, settings=settings, remember=False)
        window.show()
        QTest.qWaitForWindowExposed(window)
        window.activateWindow()  # shortcuts act on the active window, as for a user
        wait_until(window.isActiveWindow)
        watcher = PaintWatcher(window.grid.viewport(), session)
        try:
            window.open_checkpoint(checkpoint or default_checkpoint_path())
            wait_until(lambda: session.snapshot is not None and not session.busy)
            if kind is not None:
                session.set_kind(kind)
                wait_until(lambda: not session.busy)

            def sample(_i: int) -> float:
                if session.snapshot.stop_reason is not None:  # the generation ended: again
                    session.reset()
                    wait_until(lambda: not session.busy and session.cursor == -1)
                run_events_for(5)  # off the clock: let the last step's leftovers run
                watcher.arm()
                started = time.perf_counter()
                QTest.keyClick(window.grid, Qt.Key.Key_Right)
                watcher.wait()
                return time.perf_counter() - started

            return median_ms(sample, repeats)
        finally:
            watcher.close()
            window.close()  # stops the worker thread
            window.deleteLater()
            QApplication.processEvents()
            gc.collect()  # on the GUI thread, as above


def run_events_for(milliseconds: int) -> None:
    """Run the event loop for a while. Not ``QTest.qWait``: between its passes it sleeps
    holding Python's lock, so the worker thread's Python code cannot run meanwhile (measured:
    a large model's generation 3× slower, and the event loop stalled by the sleeps)."""
    loop = QEventLoop()
    QTimer.singleShot(milliseconds, loop.quit)
    loop.exec()


def wait_until(condition: Callable[[], bool], timeout_ms: int = WAIT_MS) -> None:
    deadline = time.perf_counter() + timeout_ms / 1000
    while not condition():
        if time.perf_counter() > deadline:
            raise TimeoutError("the window did not get there in time")
        run_events_for(5)


class PaintWatcher(QObject):
    """Runs the event loop until ``widget`` paints after the session's cursor moved."""

    def __init__(self, widget, session: Session) -> None:
        super().__init__()
        self.widget, self.session = widget, session
        self.loop = QEventLoop()
        self.timer = QTimer()
        self.timer.setSingleShot(True)
        self.timer.timeout.connect(self.on_timeout)
        self.from_cursor: int | None = None
        self.timed_out = False
        widget.installEventFilter(self)

    def arm(self) -> None:
        self.from_cursor, self.timed_out = self.session.cursor, False

    def wait(self) -> None:
        self.timer.start(WAIT_MS)
        self.loop.exec()
        self.timer.stop()
        if self.timed_out:
            raise TimeoutError("the step was not painted in time")

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 (Qt's name)
        moved = self.from_cursor is not None and self.session.cursor != self.from_cursor
        if watched is self.widget and event.type() == QEvent.Type.Paint and moved:
            # exec() returns once this paint, and the rest of this paint pass, are done
            self.from_cursor = None
            self.loop.quit()
        return False

    def on_timeout(self) -> None:
        self.timed_out = True
        self.loop.quit()

    def close(self) -> None:
        self.widget.removeEventFilter(self)
