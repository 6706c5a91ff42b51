"""The Why-attention page: the shipped curves as measured, the current source's length on
them, the RNN's attention what-ifs regenerating live, and the models it opens and compares."""

from __future__ import annotations

import json

import numpy as np
import pytest
from PySide6.QtCore import Qt

from model.generation.engine import GenerationEngine
from model.interface import Interventions
from model.registry import open_model
from model.shipped import default_checkpoint_path
from model.tasks.by_length import LengthCurve, LengthRow
from tests.factories import write_small_rnn
from tests.visualizer.conftest import window_on
from tests.waits import EVENT_MS
from visualizer.panels import why_attention


def write_curves(folder) -> list[LengthCurve]:
    """Two curves as ``attnviz eval --by-length --json`` writes them (made-up counts: the
    page must draw whatever the files hold)."""
    folder.mkdir()
    curves = [
        LengthCurve(
            "reverse",
            "RNN",
            "rnn-none.safetensors",
            0,
            0.03,
            [LengthRow(n, 100, 100 - 9 * n) for n in range(1, 11)],
        ),
        LengthCurve(
            "reverse",
            "RNN",
            "rnn-additive.safetensors",
            0,
            0.03,
            [LengthRow(n, 100, 99) for n in range(1, 11)],
        ),
    ]
    for curve in curves:
        (folder / f"{curve.name}.json").write_text(json.dumps(curve.to_dict()))
    (folder / "broken.json").write_text("{not json")
    return curves


@pytest.fixture
def rnn_path(tmp_path):
    return write_small_rnn(tmp_path / "rnn.safetensors")


@pytest.fixture
def why(qtbot, settings, tmp_path, rnn_path, monkeypatch):
    folder = tmp_path / "curves"
    write_curves(folder)
    monkeypatch.setattr(why_attention, "curve_paths", lambda: sorted(folder.glob("*.json")))
    for harness in window_on(qtbot, settings, rnn_path):
        harness.window.install_panels()
        harness.window.show_panel("why_attention")
        harness.wait_idle()
        panel = next(p for p in harness.window.panels if p.key == "why_attention")
        yield harness, panel


def test_the_curves_are_the_files_numbers_and_the_source_is_marked(why, tmp_path):
    harness, panel = why
    drawn = {curve.label: curve for curve in panel.shown}
    assert list(drawn) == ["RNN, no attention", "RNN, additive attention"]  # the story's order
    plain = drawn["RNN, no attention"]
    np.testing.assert_array_equal(plain.lengths, np.arange(1, 11))
    np.testing.assert_allclose(plain.accuracy, [100 - 9 * n for n in range(1, 11)])
    row = LengthRow(4, 100, 64)
    assert plain.low[3] == pytest.approx(row.interval[0] * 100) and plain.high[3] == pytest.approx(
        row.interval[1] * 100
    )
    # "reverse: abcdef": six characters
    assert panel.marker.isVisible() and panel.marker.value() == 6
    status = panel.status.text()
    assert "At input length 6: RNN, no attention 46 %, RNN, additive attention 99 %" in status
    assert "broken.json" in status  # a file that is no curve is named, not drawn
    harness.session.set_language("zh")
    assert "输入长度为 6 时" in panel.status.text() and panel.shown[0].label == "RNN，无注意力"


def attention_rows(harness) -> np.ndarray:
    return harness.window.grid.cell_matrix(0, 0)  # [steps, S] the alignment the grid draws


def test_each_what_if_regenerates_the_shown_steps_with_the_weights_it_names(why, qtbot, rnn_path):
    harness, panel = why
    session = harness.session
    for _ in range(3):
        qtbot.keyClick(harness.window.grid, Qt.Key.Key_Right)
        harness.wait_idle()
    S = len(session.snapshot.encoder.tokens)
    panel.what_if_choice.setCurrentIndex(why_attention.WHAT_IF_CHOICES.index("uniform_attention"))
    panel.what_if_choice.activated.emit(panel.what_if_choice.currentIndex())
    qtbot.waitUntil(
        lambda: (
            session.snapshot is not None
            and session.snapshot.interventions.uniform_attention
            and session.step_count == 3
            and not session.busy
        ),
        timeout=EVENT_MS,
    )
    assert session.cursor == 2  # the same step, regenerated
    assert panel.what_if_banner.isVisible() and "uniform" in panel.what_if_banner.text()
    np.testing.assert_allclose(attention_rows(harness), np.full((3, S), 1 / S), atol=1e-6)
    # the outputs are the model's under that what-if
    engine = GenerationEngine(
        open_model(rnn_path, "cpu"), session.source, interventions=Interventions(uniform_attention=True)
    )
    for _ in range(3):
        engine.step()
    assert session.snapshot.output_ids == engine.output_ids
    panel.what_if_choice.setCurrentIndex(why_attention.WHAT_IF_CHOICES.index("attend_only"))
    panel.what_if_choice.activated.emit(panel.what_if_choice.currentIndex())
    panel.position.setValue(3)
    qtbot.waitUntil(
        lambda: session.snapshot.interventions.attend_only == 2 and not session.busy, timeout=EVENT_MS
    )
    qtbot.waitUntil(lambda: session.step_count == 3, timeout=EVENT_MS)
    np.testing.assert_allclose(attention_rows(harness), np.tile(np.eye(S)[2], (3, 1)), atol=1e-6)
    assert panel.position.isEnabled() and panel.position.maximum() == S
    panel.what_if_choice.setCurrentIndex(0)
    panel.what_if_choice.activated.emit(0)
    qtbot.waitUntil(lambda: not session.snapshot.interventions.active and not session.busy, timeout=EVENT_MS)
    assert not panel.what_if_banner.isVisible()


def test_the_buttons_compare_with_the_transformer_and_open_the_shipped_models(why, qtbot):
    harness, panel = why
    window = harness.window
    assert panel.compare_button.text() == "Compare with the Transformer"
    qtbot.mouseClick(panel.compare_button, Qt.MouseButton.LeftButton)
    assert window.compare is not None and window.pages.currentWidget() is window.compare.view
    qtbot.waitUntil(lambda: window.compare.session.model is not None, timeout=EVENT_MS)
    assert window.compare.session.model.path == default_checkpoint_path()
    window.stop_compare()
    window.show_panel("why_attention")
    qtbot.mouseClick(panel.open_buttons["transformer"], Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: harness.session.model.path == default_checkpoint_path(), timeout=EVENT_MS)
    harness.wait_idle()
    # the Transformer has no weights for these what-ifs: the page says so instead
    assert not panel.what_if_choice.isEnabled() and panel.what_if_note.isVisible()
    assert panel.compare_button.text() == "Compare with the RNN with attention"
    assert not panel.open_buttons["transformer"].isEnabled()  # it is the one loaded
