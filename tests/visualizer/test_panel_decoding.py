"""The decoding panel: its bars are the step's recorded distribution and the settings applied live."""

from __future__ import annotations

import gc

import numpy as np
import pytest
import torch
from PySide6.QtCore import QPoint, Qt

from model.generation.decoding import next_token_distribution
from model.tasks.calibration import data_next_token
from tests.waits import EVENT_MS
from visualizer.panels.decoding import FORCED_COLOR, HIGHLIGHT_COLOR, TOP
from visualizer.widgets.heatmap import display_token


@pytest.fixture(autouse=True)
def collect_earlier_windows():
    """Free the windows of earlier tests here, on the GUI thread, before a new worker starts.

    Left to the cyclic garbage collector, they may be freed on the worker thread in the middle
    of a checkpoint load: ~QObject there waits for the GIL while the GUI thread, holding it,
    waits for Qt's connection lock, and the test hangs.
    """
    gc.collect()


@pytest.fixture
def panel(harness):
    harness.window.show_panel("decoding")
    harness.wait_idle()
    return next(p for p in harness.window.panels if p.key == "decoding")


def step_to(harness, steps: int) -> None:
    for _ in range(steps):
        harness.session.step_forward()
        harness.wait_idle()
    assert harness.session.cursor == steps - 1


def shown_step(harness):
    return harness.session.snapshot.steps[harness.session.cursor]


def expected_bars(step, distribution: np.ndarray, harness=None) -> tuple[list[int], np.ndarray]:
    """Token ids of the bars (top 30 by the model, the chosen one if lower, then the data's
    candidates if lower) and ``distribution`` on them."""
    order = [int(i) for i in np.argsort(-step.probs, kind="stable")[:TOP]]
    if step.token_id not in order:
        order.append(step.token_id)
    if harness is not None:
        snapshot, cursor = harness.session.snapshot, harness.session.cursor
        truth = data_next_token(snapshot.source, snapshot.output_text(cursor), snapshot.tokenizer)
        if truth is not None:
            order += [int(i) for i in np.flatnonzero(truth > 0) if int(i) not in order]
    rest = np.setdiff1d(np.arange(len(step.probs)), order)
    return order, np.array([*distribution[order], distribution[rest].sum()])


def filtered(step, settings) -> np.ndarray:
    return next_token_distribution(torch.tensor(step.logits), settings)[1].double().numpy()


def tick_labels(panel) -> list[str]:
    return [label for _, label in panel.plot.getAxis("bottom")._tickLevels[0]]


def test_before_the_first_step_no_token_is_shown(harness, panel):
    assert harness.session.cursor == -1
    assert "No token has been chosen yet" in panel.heading.text()
    assert not panel.model_bars.isVisible() and not panel.filtered_bars.isVisible()
    panel.force_candidate(0)  # nothing to force: no request is sent
    assert not harness.session.busy


def test_bars_are_the_recorded_distribution_of_the_shown_step(harness, panel):
    step_to(harness, 3)
    step = shown_step(harness)
    ids, heights = expected_bars(step, step.probs.astype(np.float64), harness)
    assert len(ids) >= TOP and len(step.probs) > TOP  # the vocabulary is larger than the chart
    np.testing.assert_allclose(panel.model_bars.opts["height"], heights, rtol=1e-6)
    np.testing.assert_allclose(panel.model_bars.opts["y0"], 0)
    assert np.all(np.diff(panel.model_bars.opts["height"][:TOP]) <= 0)  # most likely first
    assert panel.model_bars.opts["height"].sum() == pytest.approx(1.0, abs=1e-5)
    tokenizer = harness.session.snapshot.tokenizer
    assert tick_labels(panel) == [display_token(tokenizer.token_text(i)) for i in ids] + ["rest"]
    # another step shows that step's distribution
    harness.session.step_back()
    step = shown_step(harness)
    _, heights = expected_bars(step, step.probs.astype(np.float64), harness)
    np.testing.assert_allclose(panel.model_bars.opts["height"], heights, rtol=1e-6)
    assert "Step 2" in panel.heading.text()


def test_filtered_bars_follow_the_settings_live(harness, panel):
    session = harness.session
    step_to(harness, 2)
    step = shown_step(harness)
    # greedy draws from the model's own distribution
    np.testing.assert_allclose(panel.filtered_bars.opts["height"], panel.model_bars.opts["height"], rtol=1e-6)
    assert not panel.shade.isVisible()
    top_k = session.with_settings(strategy="topk", top_k=2, temperature=1.0)
    session.set_settings(top_k)
    # drawn at once from the shown step's logits, before the regenerated steps arrive
    _, expected = expected_bars(step, filtered(step, top_k), harness)
    np.testing.assert_allclose(panel.filtered_bars.opts["height"], expected, rtol=1e-5, atol=1e-7)
    assert np.count_nonzero(panel.filtered_bars.opts["height"]) == 2
    assert "keep the 2 most likely tokens" in panel.info.text()
    harness.wait_idle()
    step = shown_step(harness)
    assert harness.session.snapshot.settings == top_k
    # what was drawn from
    ids, expected = expected_bars(step, step.filtered_probs.astype(np.float64), harness)
    np.testing.assert_allclose(panel.filtered_bars.opts["height"], expected, rtol=1e-5, atol=1e-7)
    assert np.count_nonzero(panel.filtered_bars.opts["height"]) == 2
    # the cut-off tokens are shaded: every bar but the two kept ones
    shaded = np.round(panel.shade.opts["x"]).astype(int)
    assert panel.shade.isVisible()
    assert sorted(shaded) == [i for i in range(len(ids) + 1) if i >= 2]
    # a hot top-p keeps more tokens, with the same order
    hot = session.with_settings(strategy="topp", top_p=0.9, temperature=3.0)
    session.set_settings(hot)
    _, expected = expected_bars(step, filtered(step, hot), harness)
    np.testing.assert_allclose(panel.filtered_bars.opts["height"], expected, rtol=1e-5, atol=1e-7)
    assert np.count_nonzero(panel.filtered_bars.opts["height"]) > 2
    harness.wait_idle()


def test_entropies_in_nats_and_bits(harness, panel):
    session = harness.session
    step_to(harness, 1)
    step = shown_step(harness)
    p = step.probs.astype(np.float64)
    nats = -(p[p > 0] * np.log(p[p > 0])).sum()
    assert f"{nats:.3f} nats = {nats / np.log(2):.3f} bits" in panel.info.text()
    top_k = session.with_settings(strategy="topk", top_k=1)
    session.set_settings(top_k)
    assert "After the settings: <b>0.000 nats = 0.000 bits" in panel.info.text()
    harness.wait_idle()


def test_the_chosen_token_is_the_marked_bar(harness, panel):
    session = harness.session
    session.set_settings(session.with_settings(strategy="sample", temperature=2.0, seed=3))
    harness.wait_idle()
    step_to(harness, 4)
    for cursor in range(4):
        session.go_to_step(cursor)
        step = shown_step(harness)
        chosen = panel.bars.chosen
        assert panel.bars.token_ids[chosen] == step.token_id
        for series in (panel.model_bars, panel.filtered_bars):
            widths = [pen.widthF() for pen in series.opts["pens"]]
            assert widths[chosen] == 3 and widths.count(3) == 1
            assert series.opts["pens"][chosen].color().name() == HIGHLIGHT_COLOR
        assert panel.marker.toPlainText() in ("▼ chosen", "chosen ▼")
        x = panel.marker.pos().x()  # the label's ▼ end stands over that bar
        assert x == pytest.approx(chosen - 0.45 if chosen < len(panel.bars.token_ids) / 2 else chosen + 0.45)


def test_forcing_a_candidate_branches_and_can_be_undone(harness, panel):
    session = harness.session
    step_to(harness, 3)
    before = session.snapshot.steps
    ids, _ = expected_bars(before[2], before[2].probs)
    panel.force_candidate(5)
    harness.wait_idle()
    after = session.snapshot.steps
    assert session.cursor == 2 and len(after) == 3
    assert after[2].token_id == ids[5] and after[2].forced
    assert [s.token_id for s in after[:2]] == [s.token_id for s in before[:2]]
    assert (
        panel.bars.chosen == 5 and panel.marker.toPlainText() == "▼ forced"
    )  # bar 5 of 31: the label leans right
    assert panel.model_bars.opts["pens"][5].color().name() == FORCED_COLOR
    assert "forced by you" in panel.heading.text()
    assert panel.undo_button.isEnabled()
    panel.force_candidate(len(panel.bars.token_ids) - 1)  # the rest is many tokens: not forced
    assert not session.busy
    panel.undo_button.click()
    harness.wait_idle()
    assert [s.token_id for s in session.snapshot.steps] == [s.token_id for s in before]
    assert not any(s.forced for s in session.snapshot.steps)
    assert session.cursor == 2 and not panel.undo_button.isEnabled()


def test_clicking_a_bar_forces_its_token(harness, panel):
    step_to(harness, 2)
    ids, _ = expected_bars(shown_step(harness), shown_step(harness).probs, harness)
    view = panel.plot.vb
    harness.qtbot.waitUntil(lambda: view.sceneBoundingRect().width() > 100, timeout=EVENT_MS)
    scene = view.mapViewToScene(pg_point(3.2, 0.0001))
    pos = panel.plot_widget.mapFromScene(scene)
    harness.qtbot.mouseClick(
        panel.plot_widget.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(pos.x(), pos.y())
    )
    harness.wait_idle()
    step = shown_step(harness)
    assert step.token_id == ids[3] and step.forced


def pg_point(x: float, y: float):
    from PySide6.QtCore import QPointF

    return QPointF(x, y)


def test_log_scale_and_chinese(harness, panel):
    session = harness.session
    step_to(harness, 1)
    step = shown_step(harness)
    panel.log_scale.click()  # as the user does
    _, heights = expected_bars(step, step.probs.astype(np.float64), harness)
    floor = panel.log_floor
    assert floor < np.log10(heights.min())  # every bar stands above the axis's start
    top = panel.model_bars.opts["y0"] + panel.model_bars.opts["height"]
    np.testing.assert_allclose(top, np.log10(heights), rtol=1e-6)
    np.testing.assert_allclose(panel.model_bars.opts["y0"], floor)
    session.set_language("zh")
    assert harness.window.pages.tabText(harness.window.pages.currentIndex()) == "解码"
    assert tick_labels(panel)[-1] == "其余"
    assert "第 1 步" in panel.heading.text() and "奈特" in panel.info.text()
    panel.log_scale.click()
    np.testing.assert_allclose(panel.model_bars.opts["height"], heights, rtol=1e-6)


def test_greedy_says_exactly_one_token_can_come_out(harness):
    harness.session.step_forward()
    harness.wait_idle()
    harness.window.show_panel("decoding")
    harness.wait_idle()
    panel = next(p for p in harness.window.panels if p.key == "decoding")
    vocab = len(harness.session.snapshot.tokenizer)
    assert f"1 of {vocab} tokens can be drawn" in panel.info.text()


def test_the_datas_own_distribution_beside_the_models(harness, panel):
    """pick: has known answer frequencies: a line per candidate at the data's p, and the TV distance."""
    harness.session.set_source("pick: fruit")
    harness.wait_idle()
    step_to(harness, 1)
    step = shown_step(harness)
    tokenizer = harness.session.snapshot.tokenizer
    truth = np.zeros(len(step.probs))
    for member, p in {"a": 0.35, "b": 0.25, "c": 0.15, "g": 0.1, "m": 0.1, "p": 0.05}.items():
        truth[tokenizer.encode(member).ids[0]] = p
    bars = panel.bars
    np.testing.assert_allclose(bars.data_full, truth)
    for token_id in np.flatnonzero(truth):  # every first letter has a bar, however unlikely to the model
        assert int(token_id) in bars.token_ids
    marks = panel.data_marks.opts
    assert panel.data_marks.isVisible()
    centres = np.asarray(marks["y0"]) + np.asarray(marks["height"]) / 2
    shown = [i for i in bars.token_ids if i is not None and truth[i] > 0]
    np.testing.assert_allclose(sorted(centres), sorted(truth[shown]), atol=1e-9)
    tv = 0.5 * np.abs(step.probs.astype(np.float64) - truth).sum()
    assert f"{tv:.3f}" in panel.info.text() and "total variation" in panel.info.text()
    assert "data p" in panel.legend.text()
    # a source of no task: no data line, no distance
    harness.session.set_source("hello")
    harness.wait_idle()
    step_to(harness, 1)
    assert panel.bars.data is None and not panel.data_marks.isVisible()
    assert "total variation" not in panel.info.text() and "data p" not in panel.legend.text()


def test_a_near_certain_step_is_drawn_on_a_log_scale_until_the_user_chooses(harness, panel):
    from visualizer.panels.decoding import AUTO_LOG_ABOVE, Bars

    def bars(top: float) -> Bars:
        model = np.array([top, 1 - top])
        return Bars([5, None], ["a", ""], model, model, 0, model, model)

    panel.draw_bars(bars(0.999), forced=False)
    assert panel.log_scale.isChecked() and panel.log_floor is not None  # the runner-up is visible
    panel.draw_bars(bars(0.6), forced=False)
    assert not panel.log_scale.isChecked() and panel.log_floor is None
    assert 0.6 < AUTO_LOG_ABOVE < 0.999
    panel.log_scale.click()  # the user's choice wins from now on
    panel.draw_bars(bars(0.6), forced=False)
    assert panel.log_scale.isChecked() and panel.log_floor is not None
    panel.log_scale.click()
    panel.draw_bars(bars(0.999), forced=False)
    assert not panel.log_scale.isChecked() and panel.log_floor is None
