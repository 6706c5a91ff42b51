"""The Attribution, Head importance and Logit lens pages: what they draw is the model's own
numbers (computed here again, directly), and their controls act on the live model."""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace

import numpy as np
import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtWidgets import QApplication

from model.attribution.heads import head_importance, source_sample
from model.attribution.logit_lens import logit_lens
from model.attribution.methods import METHODS, AttributionSettings, attribute
from model.generation.engine import GenerationEngine
from model.interface import NO_INTERVENTIONS
from model.transformer.checkpoint import load_checkpoint
from tests.factories import write_small_rnn
from tests.visualizer.conftest import window_on
from tests.waits import EVENT_MS
from visualizer.numbers import number
from visualizer.panels.attribution import (
    AGREEMENT_METHODS,
    MAX_CELL_PX,
    Stopped,
    integrated_gradients_summary,
    scaled_rows,
)
from visualizer.state.jobs import AttributionJob
from visualizer.work import jobs
from visualizer.work.runner import run_job


def panel_of(harness, key):
    harness.window.show_panel(key)
    harness.wait_idle()
    return next(p for p in harness.window.panels if p.key == key)


def stepped(harness, steps: int) -> None:
    for _ in range(steps):
        harness.session.step_forward()
        harness.wait_idle()


class Click:
    """A mouse click at a scene position (what the panels read of a real one)."""

    def __init__(self, scene_pos, modifiers=Qt.KeyboardModifier.NoModifier) -> None:
        self.position, self.keys = scene_pos, modifiers

    def scenePos(self):  # noqa: N802 (Qt's name)
        return self.position

    def modifiers(self):
        return self.keys


def cell_centre(matrix_plot, row: int, column: int):
    return matrix_plot.viewbox.mapViewToScene(QPointF(column + 0.5, row + 0.5))


def test_attribution_page_shows_every_method_of_the_shown_step(harness, tiny_checkpoint_path):
    stepped(harness, 3)
    harness.session.set_kind("cross")
    harness.session.select_head(1, 2)
    progress = []
    harness.session.compute_progress.connect(lambda key, fraction, stage: progress.append((key, fraction)))
    panel = panel_of(harness, "attribution")
    harness.qtbot.waitUntil(lambda: panel.result is not None, timeout=EVENT_MS)
    snapshot, step = harness.session.snapshot, harness.session.cursor
    assert step == 2
    model = load_checkpoint(tiny_checkpoint_path, "cpu")
    expected = attribute(
        model, snapshot.source, snapshot.output_ids[:3], [2], AttributionSettings(layer=1, head=2)
    )
    for method in METHODS:
        np.testing.assert_allclose(panel.result.scores[method][2], expected.scores[method][2], atol=1e-5)
    # the top map is each method's row scaled by its largest |value|
    np.testing.assert_allclose(panel.rows.image.image, scaled_rows(expected, 2), atol=1e-5)
    assert np.nanmax(np.abs(panel.rows.image.image)) <= 1 + 1e-9
    for method in AGREEMENT_METHODS:
        np.testing.assert_allclose(
            panel.agreement_maps[method].image.image, expected.agreement[method][2], atol=1e-4
        )
    assert "L2 H3" in panel.status.text()
    # the agreement maps have their scale beside them and each head's ρ written in its cell
    QApplication.processEvents()  # the canvas lays the maps out
    assert panel.agreement_bar.levels() == (-1.0, 1.0)
    assert panel.agreement_bar.getAxis("right").labelText == "Spearman ρ"
    for method in AGREEMENT_METHODS:
        rho = expected.agreement[method][2]
        labels = panel.agreement_labels[method]
        assert labels.texts == [[number(value, 2, signed=True) for value in row] for row in rho]
        assert len(labels.fitting()) == rho.size  # every one fits its cell: readable
    # integrated gradients says the points it used, and why where it used more than asked
    assert integrated_gradients_summary(expected, 2, "en") in panel.status.text()
    # progress went up to the end, for this job
    fractions = [fraction for key, fraction in progress if key == panel.job_key]
    assert fractions and fractions == sorted(fractions) and fractions[-1] == 1.0
    # clicking a head in an agreement map chooses it, and the attention rows follow
    harness.qtbot.waitUntil(lambda: not harness.session.busy)
    panel.on_mouse_clicked(Click(cell_centre(panel.agreement_maps["rollout"], 0, 1)))
    assert (harness.session.layer, harness.session.head) == (0, 1)
    harness.qtbot.waitUntil(
        lambda: panel.result is not None and panel.result.settings.head == 1, timeout=EVENT_MS
    )
    assert panel.result.settings.layer == 0
    # another number of integrated-gradient points: computed again with it
    panel.ig_points.setValue(8)
    harness.qtbot.waitUntil(lambda: panel.result.settings.ig_steps == 8, timeout=EVENT_MS)


@pytest.fixture
def rnn_harness(qtbot, settings, tmp_path):
    yield from window_on(qtbot, settings, write_small_rnn(tmp_path / "rnn.safetensors"))


def test_an_rnns_one_head_is_a_small_square_with_its_number_not_the_whole_row(rnn_harness):
    stepped(rnn_harness, 2)
    panel = panel_of(rnn_harness, "attribution")
    rnn_harness.qtbot.waitUntil(lambda: panel.result is not None, timeout=EVENT_MS)
    QApplication.processEvents()  # the canvas lays the maps out
    for method in AGREEMENT_METHODS:
        cell = panel.agreement_maps[method]
        assert cell.image.image.shape == (1, 1)  # an RNN has one "head"
        view = cell.viewbox.geometry()
        assert 0 < view.width() <= MAX_CELL_PX and 0 < view.height() <= MAX_CELL_PX
        rho = panel.result.agreement[method][1, 0, 0]
        assert panel.agreement_labels[method].texts == [[number(rho, 2, signed=True)]]
        assert panel.agreement_labels[method].fitting() == [(0, 0)]
    # the row of methods above keeps the canvas's width
    assert panel.rows.viewbox.geometry().width() > 4 * MAX_CELL_PX


@dataclass(frozen=True)
class HoldTheWorker:
    """A job that keeps the worker busy until ``gate`` opens."""

    gate: threading.Event


def test_stop_leaves_the_page_stopped_until_asked_again(harness, monkeypatch):
    stepped(harness, 2)
    gate = threading.Event()
    hold = EVENT_MS / 1000
    monkeypatch.setitem(jobs.JOBS, HoldTheWorker, lambda job, _model, _snapshot: job.gate.wait(hold))
    harness.session.compute(("hold the worker",), HoldTheWorker(gate))
    harness.window.show_panel("attribution")
    panel = next(p for p in harness.window.panels if p.key == "attribution")
    harness.qtbot.waitUntil(lambda: panel.job_key is not None and panel.job_key in panel.stops)
    assert panel.stop_button.isEnabled() and panel.progress.isVisible()
    panel.stop_button.click()
    gate.set()
    harness.wait_idle()
    assert isinstance(harness.session.computed[panel.job_key], Stopped)
    assert "Stopped" in panel.status.text() and panel.run_button.isEnabled()
    panel.run_button.click()
    harness.qtbot.waitUntil(lambda: panel.result is not None, timeout=EVENT_MS)
    assert not isinstance(harness.session.computed[panel.job_key], Stopped)


def test_the_attribution_job_stops_when_asked(tiny_checkpoint):
    stop = threading.Event()
    stop.set()
    job = AttributionJob("reverse: ab", (5, 6), 1, AttributionSettings(), NO_INTERVENTIONS, stop)
    assert isinstance(run_job(job, tiny_checkpoint, None), Stopped)


def test_head_importance_page_measures_and_ablates_like_the_engine(harness, tiny_checkpoint_path):
    stepped(harness, 4)
    panel = panel_of(harness, "heads")
    harness.qtbot.waitUntil(lambda: panel.result is not None, timeout=EVENT_MS)
    assert panel.sample.currentData() == "source"  # no task recorded in the tiny model
    model = load_checkpoint(tiny_checkpoint_path, "cpu")
    snapshot = harness.session.snapshot
    expected = head_importance(model, source_sample(model, snapshot.source, snapshot.output_ids))
    for kind in expected.kinds:
        np.testing.assert_allclose(panel.result.ll_drop[kind], expected.ll_drop[kind], atol=1e-4)
        shown = panel.maps[kind].image.image
        np.testing.assert_allclose(np.expm1(shown), np.maximum(expected.ll_drop[kind], 0), atol=1e-3)
    np.testing.assert_allclose(panel.curve.yData, expected.prune_exact_match * 100)
    # clicking a head zeroes it in the live model: the regenerated steps are the engine's own
    # with that head zeroed
    panel.on_mouse_clicked(Click(cell_centre(panel.maps["cross"], 1, 2)))
    harness.wait_idle()
    zeroed = replace(NO_INTERVENTIONS, zeroed_heads=frozenset({("cross", 1, 2)}))
    assert harness.session.interventions.zeroed_heads == zeroed.zeroed_heads
    snapshot = harness.session.snapshot
    engine = GenerationEngine(model, snapshot.source, interventions=zeroed)
    for step in snapshot.steps:
        engine_step = engine.step()
        np.testing.assert_allclose(step.probs, engine_step.probs, atol=1e-6)
        assert step.token_id == engine_step.token_id
    assert panel.what_if_banner.isVisible() and "cross L2 H3" in panel.zeroed_label.text()
    # the reference stays the model's output as trained: nothing was measured again
    assert panel.result is not None and panel.job_key[1] == "source"
    np.testing.assert_allclose(panel.result.ll_drop["cross"], expected.ll_drop["cross"], atol=1e-4)
    # the slider zeroes the k least important heads together
    panel.slider.setValue(5)
    harness.wait_idle()
    assert harness.session.interventions.zeroed_heads == expected.pruned(5)
    assert "k = 5" in panel.k_label.text()
    panel.restore_button.click()
    harness.wait_idle()
    assert not harness.session.interventions.zeroed_heads
    # ctrl+click on the attention grid zeroes a head too (the grid shows the shown kind)
    harness.session.set_kind("enc_self")
    grid = harness.window.grid
    harness.window.show_panel("attention")
    harness.wait_idle()
    grid.on_mouse_clicked(
        Click(grid.scene_position(0, 1, query=0, key=0), Qt.KeyboardModifier.ControlModifier)
    )
    harness.wait_idle()
    assert harness.session.interventions.zeroed_heads == {("enc_self", 0, 1)}
    assert not grid.zeroed_marks.path().isEmpty()
    grid.on_mouse_clicked(
        Click(grid.scene_position(0, 1, query=0, key=0), Qt.KeyboardModifier.ControlModifier)
    )
    harness.wait_idle()
    assert not harness.session.interventions.zeroed_heads


def test_head_importance_on_the_sources_run(harness):
    harness.session.set_source("sort: cab")
    harness.wait_idle()
    panel = panel_of(harness, "heads")
    panel.sample.setCurrentIndex(panel.sample.findData("history"))
    harness.qtbot.waitUntil(
        lambda: panel.result is not None and panel.job_key[1] == "history", timeout=EVENT_MS
    )
    assert panel.result.sample.sources == ["reverse: abcdef", "sort: cab"]
    assert panel.result.sample.reference_kind == "model"


def test_logit_lens_table_is_the_models_lens(harness, tiny_checkpoint_path):
    stepped(harness, 3)
    panel = panel_of(harness, "logit_lens")
    harness.qtbot.waitUntil(lambda: panel.lens is not None, timeout=EVENT_MS)
    model = load_checkpoint(tiny_checkpoint_path, "cpu")
    snapshot = harness.session.snapshot
    expected = logit_lens(model, snapshot.source, snapshot.output_ids[:3], 2, k=panel.table.columnCount() - 2)
    assert panel.table.rowCount() == expected.layers
    for layer in range(expected.layers):
        first = panel.table.item(layer, 0).text()
        assert first.endswith(f"{expected.top_probs[layer, 0]:.1%}")
        assert panel.table.item(layer, panel.table.columnCount() - 1).text() == str(
            expected.written_ranks[layer]
        )
    assert expected.written_ranks[-1] == 1  # greedy: the last layer's first choice was written
    assert "Step 3" in panel.status.text()
