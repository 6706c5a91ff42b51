"""The test family in the real window: tabs and keys from its kinds, the grid from its arrays,
and the panels it cannot support disabled, each saying why — with no change to any widget."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt

from model.generation.engine import GenerationEngine
from model.registry import open_model
from tests.factories import write_small_rnn
from tests.families.toy import HEADS
from tests.visualizer.conftest import window_on
from visualizer.panels.registry import PANELS


@pytest.fixture
def toy_window(qtbot, settings, toy_path):
    yield from window_on(qtbot, settings, toy_path)


def tab_names(window) -> list[str]:
    return [window.kind_tabs.tabData(i) for i in range(window.kind_tabs.count())]


def test_tabs_keys_and_grid_come_from_the_kinds(toy_window, toy_path, qtbot):
    window, session = toy_window.window, toy_window.session
    assert tab_names(window) == ["enc_mix", "alignment"]
    assert [window.kind_tabs.tabText(i) for i in range(2)] == ["Encoder mixing", "Alignment"]
    assert session.kind == "alignment"
    for _ in range(3):
        qtbot.keyClick(window.grid, Qt.Key.Key_Right)
        toy_window.wait_idle()
    engine = GenerationEngine(open_model(toy_path, "cpu"), "reverse: abcdef")
    for _ in range(3):
        engine.step()
    for head in range(HEADS):
        expected = np.stack([step.attention["alignment"][0, head] for step in engine.steps])
        np.testing.assert_allclose(window.grid.cell_matrix(0, head), expected, atol=1e-6)
    qtbot.keyClick(window.grid, Qt.Key.Key_1)  # the first kind, by its number key
    assert session.kind == "enc_mix" and window.kind_tabs.currentIndex() == 0
    np.testing.assert_allclose(
        window.grid.cell_matrix(1, 0), engine.encoder.attention["enc_mix"][1, 0], atol=1e-6
    )
    assert "Toy recurrent model" in window.model_label.text()


def test_panels_it_cannot_support_say_why(toy_window):
    window = toy_window.window
    reasons = {}
    for entry, page in zip(PANELS, window.panel_pages, strict=True):
        window.show_panel(entry.key)
        reasons[entry.key] = page.reason.text() if page.currentWidget() is page.reason else None
    assert "no positional encoding" in reasons["positions"]
    assert "raw attention scores" in reasons["masks"]
    assert "√d_k" in reasons["scaling"] and "no normalisation layers" in reasons["layernorm"]
    assert reasons["decoding"] is None and reasons["beam"] is None  # these work on any family
    # the panels behind a reason asked the model for nothing
    assert not any(key[0] in ("positions", "layernorm") for key in toy_window.session.computed)


def test_loading_the_transformer_after_the_toy_restores_everything(toy_window, tiny_checkpoint_path):
    window = toy_window.window
    toy_window.open(tiny_checkpoint_path)
    assert tab_names(window) == ["enc_self", "dec_self", "cross"]
    shown = {}
    for entry, page in zip(PANELS, window.panel_pages, strict=True):
        window.show_panel(entry.key)
        shown[entry.key] = page.shows_panel
    assert shown.pop("relative_bias") is False  # a page for T5's bias, not for a position table
    assert all(shown.values())


@pytest.fixture
def rnn_window(qtbot, settings, tmp_path):
    yield from window_on(qtbot, settings, write_small_rnn(tmp_path / "rnn.safetensors"))


def test_an_rnn_with_attention_runs_in_the_window_and_every_page_shows_or_says_why(rnn_window, qtbot):
    window, session = rnn_window.window, rnn_window.session
    assert tab_names(window) == ["alignment"] and session.kind == "alignment"
    for _ in range(3):
        qtbot.keyClick(window.grid, Qt.Key.Key_Right)
        rnn_window.wait_idle()
    steps = session.snapshot.steps
    expected = np.stack([step.attention["alignment"][0, 0] for step in steps])
    np.testing.assert_allclose(window.grid.cell_matrix(0, 0), expected, atol=1e-6)
    assert "additive attention" in window.model_label.text()
    reasons = {}
    for entry, page in zip(PANELS, window.panel_pages, strict=True):
        window.show_panel(entry.key)
        rnn_window.wait_idle()
        reasons[entry.key] = page.reason.text() if not page.shows_panel else None
    assert reasons["positions"] and reasons["layernorm"] and reasons["scaling"]
    assert reasons["masks"] is None and reasons["decoding"] is None and reasons["beam"] is None
    masks = next(panel for panel in window.panels if panel.key == "masks")
    assert masks.items is not None  # the alignment scores, mask and weights, teacher-forced
    np.testing.assert_allclose(masks.cells[(0, "softmax")].shown.sum(-1), 1.0, atol=1e-5)


@pytest.fixture
def plain_rnn_window(qtbot, settings, tmp_path):
    yield from window_on(qtbot, settings, write_small_rnn(tmp_path / "plain.safetensors", "none"))


def test_an_rnn_without_attention_steps_and_says_it_has_no_attention(
    plain_rnn_window, qtbot, tiny_checkpoint_path, tmp_path
):
    from model.rnn.family import NO_ATTENTION

    window, session = plain_rnn_window.window, plain_rnn_window.session
    assert tab_names(window) == [] and session.attention() is None
    for _ in range(3):
        qtbot.keyClick(window.grid, Qt.Key.Key_Right)
        plain_rnn_window.wait_idle()
    assert len(session.snapshot.steps) == 3 and session.cursor == 2
    assert not window.views.isVisible() and window.no_attention_label.isVisible()
    assert window.no_attention_label.text().startswith(NO_ATTENTION)
    session.set_language("zh")
    assert window.no_attention_label.text().startswith("这个模型没有注意力")
    session.set_language("en")
    assert window.export_png(str(tmp_path / "plain.png")) and (tmp_path / "plain.png").stat().st_size > 0
    assert window.export_trace(str(tmp_path / "plain.npz"))
    assert "alignment" not in np.load(tmp_path / "plain.npz")
    reasons = {}
    for entry, page in zip(PANELS, window.panel_pages, strict=True):
        window.show_panel(entry.key)
        plain_rnn_window.wait_idle()
        reasons[entry.key] = page.reason.text() if not page.shows_panel else None
    assert reasons["masks"].endswith(f": {NO_ATTENTION}.")
    assert reasons["decoding"] is None and reasons["beam"] is None
    # the next model with attention brings the grid back, with its own kinds
    plain_rnn_window.open(tiny_checkpoint_path)
    assert tab_names(window) == ["enc_self", "dec_self", "cross"]
    assert not window.views.isHidden() and window.no_attention_label.isHidden()
