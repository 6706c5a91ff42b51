"""View > Compare in the real window: side B on its own worker, stepped with A, and A − B drawn."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt

from model.generation.engine import GenerationEngine
from model.interface import Interventions
from model.registry import open_model
from model.shipped import default_checkpoint_path, rnn_checkpoint_path
from tests.visualizer.conftest import window_on
from tests.waits import EVENT_MS
from visualizer.i18n import tr
from visualizer.widgets.attention_grid import READABLE_CELL
from visualizer.widgets.compare_view import shown_output


def caught_up(harness) -> bool:
    compare = harness.window.compare
    a, b = harness.session, compare.session
    return (
        not a.busy
        and not b.busy
        and b.snapshot is not None
        and b.step_count >= a.step_count
        and b.cursor == a.cursor
    )


def test_b_steps_with_a_and_the_difference_is_drawn(harness, tiny_checkpoint_path, qtbot):
    window = harness.window
    window.compare_with(tiny_checkpoint_path, "no_scaling")
    assert window.pages.currentWidget() is window.compare.view
    for _ in range(3):
        qtbot.keyClick(window.compare.view, Qt.Key.Key_Right)
        qtbot.waitUntil(lambda: caught_up(harness), timeout=EVENT_MS)
    b = window.compare.session
    assert harness.session.cursor == b.cursor == 2
    assert b.snapshot.interventions.no_scaling and not harness.session.snapshot.interventions.no_scaling
    harness.session.set_kind("cross")
    harness.session.select_head(1, 3)
    qtbot.waitUntil(lambda: window.compare.view.shown_difference is not None, timeout=EVENT_MS)
    model = open_model(tiny_checkpoint_path, "cpu")
    a_engine = GenerationEngine(model, "reverse: abcdef")
    b_engine = GenerationEngine(model, "reverse: abcdef", interventions=Interventions(no_scaling=True))
    for _ in range(3):
        a_engine.step()
        b_engine.step()
    expected = np.stack(
        [
            sa.attention["cross"][1, 3] - sb.attention["cross"][1, 3]
            for sa, sb in zip(a_engine.steps, b_engine.steps, strict=True)
        ]
    )
    np.testing.assert_allclose(window.compare.view.shown_difference, expected, atol=1e-6)
    assert window.compare.view.titles[1].text().endswith("what-if: without ÷√d_k")
    np.testing.assert_allclose(
        window.compare.view.grids[1].cell_matrix(1, 3)[-1],
        b_engine.steps[-1].attention["cross"][1, 3],
        atol=1e-6,
    )


def test_stop_comparing_removes_the_page_and_its_worker(harness, tiny_checkpoint_path, qtbot):
    window = harness.window
    window.compare_with(tiny_checkpoint_path)
    qtbot.waitUntil(lambda: caught_up(harness), timeout=EVENT_MS)
    bridge = window.compare.bridge
    pages = window.pages.count()
    window.stop_compare()
    assert window.compare is None and window.pages.count() == pages - 1
    assert not bridge.thread.isRunning()
    assert not window.actions_by_name["stop_compare"].isEnabled()


def test_the_compare_page_follows_the_language(harness, tiny_checkpoint_path, qtbot):
    window = harness.window
    window.compare_with(tiny_checkpoint_path, "no_positional")
    qtbot.waitUntil(lambda: caught_up(harness), timeout=EVENT_MS)
    harness.session.set_language("zh")
    index = window.pages.indexOf(window.compare.view)
    assert window.pages.tabText(index) == "比较 A | B"
    assert window.compare.view.b_what_if.currentText() == "B：去掉位置编码"
    assert window.compare.session.language == "zh"
    # the titles follow too (they kept their English until the next step)
    what_if = f"{tr('what-if', 'zh')}: {tr('without positional encoding', 'zh')}"
    assert window.compare.view.titles[1].text().endswith(what_if)


def header_rects(grid) -> list:
    """The screen rectangles of the grid's head names, as drawn."""
    grid.repaint()
    transform = grid.viewportTransform()
    heads = grid.labels[: grid.layout_.columns]
    return [label.deviceTransform(transform).mapRect(label.boundingRect()) for label in heads]


def test_at_1024x700_each_side_shows_the_selected_layer_in_readable_cells(
    harness, tiny_checkpoint_path, qtbot
):
    window = harness.window
    window.resize(1024, 700)
    window.compare_with(tiny_checkpoint_path)
    for _ in range(3):
        harness.session.step_forward()
        qtbot.waitUntil(lambda: caught_up(harness), timeout=EVENT_MS)
    harness.session.set_kind("cross")
    harness.session.select_head(1, 2)  # layer 2, head 3
    view = harness.session.attention()
    for grid in window.compare.view.grids:
        qtbot.waitUntil(lambda grid=grid: grid.row_layers == (1,), timeout=EVENT_MS)
        qtbot.wait(30)  # the viewbox applies its range when it paints
        # too small for all 2 × 5 cells: the selected layer's heads and their mean, each readable
        assert grid.column_heads == (0, 1, 2, 3, None)
        assert grid.layout_.cell / grid.units_per_pixel >= READABLE_CELL
        rects = header_rects(grid)
        assert len(rects) == 5
        assert all(not a.intersects(b) for i, a in enumerate(rects) for b in rects[i + 1 :])
        # what it draws is that layer of the engine's arrays; a click chooses the head clicked
        np.testing.assert_array_equal(grid.drawn_view.weights[0], view.weights[1])
        np.testing.assert_array_equal(grid.drawn_view.mean[0], view.mean[1])
    window.compare.view.grids[1].on_mouse_clicked(
        Click(window.compare.view.grids[1].scene_position(1, 0, 0, 0))
    )
    assert (harness.session.layer, harness.session.head) == (1, 0)


class Click:
    """A mouse click at a scene position, as the grid reads one."""

    def __init__(self, position) -> None:
        self.position = position

    def scenePos(self):  # noqa: N802 (Qt's name)
        return self.position


def test_a_model_without_attention_shows_its_output_and_why(qtbot, settings):
    opened = window_on(qtbot, settings, default_checkpoint_path())
    harness = next(opened)
    window, session = harness.window, harness.session
    session.set_source("reverse: attention")
    harness.wait_idle()
    none = rnn_checkpoint_path("none")
    window.compare_with(none)
    for _ in range(6):
        session.step_forward()
        qtbot.waitUntil(lambda: caught_up(harness), timeout=EVENT_MS)
    view = window.compare.view
    engine = GenerationEngine(open_model(none, "cpu"), "reverse: attention")
    for _ in range(6):
        engine.step()
    b = window.compare.session
    assert shown_output(b) == engine.output_text() != ""
    reason = view.reasons[1]
    assert reason.isVisible() and not view.grids[1].isVisible()
    assert f"<b>{engine.output_text()}</b>" in reason.text()
    assert b.model.family.without_attention in reason.text()
    assert not view.reasons[0].isVisible() and view.grids[0].isVisible()
    assert view.cells[1].plot.titleLabel.text == "B · no attention"
    assert view.status.text() == (
        "Both models have run to step 6. B has no attention: there is no A − B to show."
    )
    session.set_language("zh")
    assert tr(b.model.family.without_attention, "zh") in reason.text()
    assert view.status.text().startswith("两个模型都已运行到第 6 步")
    next(opened, None)
