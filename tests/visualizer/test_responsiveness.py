"""The window loads a large checkpoint, runs it to the end and plays it back while the event
loop keeps ticking; the watch that ``attnviz bench`` uses for the GUI thread's longest stall
(``loop_gap_ms``, budget 100 ms) sees a stall. No timing threshold here: budgets are the
benchmark's job."""

from __future__ import annotations

import os
import time

import pytest
from PySide6.QtCore import QTimer

from visualizer.bench.random_models import save_large_checkpoint
from visualizer.bench.responsiveness import LoopWatch, load_run_and_play

pytestmark = pytest.mark.slow  # loads a large checkpoint


def test_a_large_checkpoint_loads_runs_to_the_end_and_plays_while_the_loop_is_watched(harness, tmp_path):
    big = save_large_checkpoint(tmp_path / "big.safetensors")  # ~ 20 MB: loading takes a while
    session = harness.session
    with LoopWatch() as watch:
        load_run_and_play(harness.window, big, watch)
    assert session.model.path == big
    assert len(session.snapshot.steps) == session.model.family.max_target_len
    assert not session.playing and session.cursor == len(session.snapshot.steps) - 1
    marks = [what for _, what in watch.events if isinstance(what, str)]
    assert marks == ["load requested", "loaded", "ran to end", "played"]
    assert watch.worst_ms > 0


def test_the_loop_watch_sees_a_stall_of_the_gui_thread(qtbot):
    with LoopWatch() as watch:
        qtbot.wait(30)
        QTimer.singleShot(0, lambda: time.sleep(0.2))  # the GUI thread blocked for 200 ms
        qtbot.wait(60)
    assert watch.worst_ms >= 200
    assert any(isinstance(gap, int) and gap >= 200 for _, gap in watch.events)


def test_the_loop_is_watched_while_the_train_page_trains_on_every_core(harness):
    """What ``attnviz bench --only training`` measures (budget: 100 ms), on a short run."""
    from visualizer.bench.training import train_and_watch

    metrics = train_and_watch(harness.window, 40)
    panel = harness.window.train_panel()
    assert panel.process.state == "finished" and panel.run.steps[-1] == 40
    assert metrics["training_loop_gap_ms"] > 0 and metrics["training_steps_per_s"] > 0
    assert panel.run.threads == os.cpu_count()  # the training process uses every core
