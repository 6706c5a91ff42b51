"""View > Compare in the real window: side B on its own worker, stepped with A, and A − B drawn."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt

from model.generation.engine import GenerationEngine
from model.interface import Interventions
from model.registry import open_model
from tests.waits import EVENT_MS


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
    assert window.compare.view.titles[1].text().endswith("what-if: without positional encoding")
