"""A Hugging Face folder in the real window: opened like a checkpoint (and by the File menu's
folder action), stepped, its languages picked, every page shown or saying why; a broken folder
leaves the previous model loaded."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
from PySide6.QtCore import Qt

from model.generation.engine import GenerationEngine
from model.hf.loading import open_hf
from tests.hf_factories import write_hf_model
from tests.visualizer.conftest import window_on
from tests.waits import EVENT_MS
from visualizer.panels.registry import PANELS


@pytest.fixture(scope="module")
def nllb(tmp_path_factory):
    return write_hf_model("nllb", tmp_path_factory.mktemp("hf") / "nllb-tiny")


@pytest.fixture
def nllb_window(qtbot, settings, nllb):
    yield from window_on(qtbot, settings, nllb)


def test_a_folder_opens_steps_and_shows_the_librarys_attention(nllb_window, nllb, qtbot):
    window, session = nllb_window.window, nllb_window.session
    kinds = [window.kind_tabs.tabData(i) for i in range(window.kind_tabs.count())]
    assert kinds == ["enc_self", "dec_self", "cross"]
    assert "M2M100/NLLB" in window.model_label.text()
    session.set_kind("cross")
    for _ in range(3):
        qtbot.keyClick(window.grid, Qt.Key.Key_Right)
        nllb_window.wait_idle()
    engine = GenerationEngine(open_hf(nllb, "cpu"), session.source)
    for _ in range(3):
        engine.step()
    expected = np.stack([step.attention["cross"][2, 1] for step in engine.steps])
    np.testing.assert_allclose(window.grid.cell_matrix(2, 1), expected, atol=1e-6)
    assert session.snapshot.encoder.tokens[0] == "eng_Latn"


def test_the_language_picker_forces_the_first_token(nllb_window, nllb):
    window, session = nllb_window.window, nllb_window.session
    picker = window.source_bar.languages
    assert picker.isVisible()
    assert picker.target.itemText(0) == "(the model's choice)"
    session.set_language("zh")
    assert picker.target.itemText(0) == "（由模型决定）" and picker.target.currentIndex() == 0
    session.set_language("en")
    index = picker.target.findText("deu_Latn")
    picker.target.setCurrentIndex(index)
    picker.target.activated.emit(index)
    nllb_window.wait_idle()
    assert session.model.target_language == "deu_Latn"
    session.step_forward()
    nllb_window.wait_idle()
    first = session.snapshot.steps[0]
    assert session.model.tokenizer.token_text(first.token_id) == "deu_Latn"
    assert first.probs[first.token_id] == pytest.approx(1.0)


def test_pages_show_or_say_why(nllb_window):
    window, session = nllb_window.window, nllb_window.session
    reasons = {}
    for entry, page in zip(PANELS, window.panel_pages, strict=True):
        window.show_panel(entry.key)
        nllb_window.wait_idle()
        reasons[entry.key] = page.reason.text() if page.currentWidget() is page.reason else None
    assert reasons["masks"] is None and reasons["positions"] is None and reasons["decoding"] is None
    assert "√d_k" in reasons["scaling"]
    assert reasons["layernorm"] is None
    layernorm = window.panels[[entry.key for entry in PANELS].index("layernorm")]
    session.set_kind("enc_self")
    window.show_panel("layernorm")
    nllb_window.wait_idle()
    assert "pre-LN" in layernorm.model_norms.text() and "residual stream" in layernorm.legend.text()
    shown = layernorm.shown  # the encoder's layer, as the engine recorded it around each norm
    assert shown.encoder
    np.testing.assert_array_equal(shown.stats, session.snapshot.encoder.extras["norms"][shown.layer])
    np.testing.assert_array_equal(layernorm.curves[1]["out_std"].yData, shown.stat(1, "out_std"))
    assert "not as a bias on the scores" in reasons["relative_bias"]
    positions = window.panels[[entry.key for entry in PANELS].index("positions")]
    assert not positions.what_if_button.isEnabled()  # it cannot run without its positions
    assert "i + d/2" in positions.info.text()


def test_a_broken_folder_is_refused_and_the_model_stays(nllb_window, nllb, tmp_path):
    window, session = nllb_window.window, nllb_window.session
    broken = shutil.copytree(nllb, tmp_path / "broken")
    config = json.loads((broken / "config.json").read_text())
    (broken / "config.json").write_text(json.dumps({**config, "model_type": "llama"}))
    before = session.model
    session.open_checkpoint(broken)
    nllb_window.wait_idle()
    assert session.model is before
    assert "'llama'" in window.message_label.text() and "Marian" in window.message_label.text()
    assert "M2M100/NLLB" in window.model_label.text()


def test_languages_from_the_command_line_apply_before_the_first_generation(qtbot, settings, nllb):
    from visualizer.state.session import Session
    from visualizer.window.main_window import MainWindow

    session = Session()
    session.source = "the cat"
    session.initial_steps = 2
    session.initial_languages = ("fra_Latn", "deu_Latn")
    window = MainWindow(session, settings)
    qtbot.addWidget(window)
    window.show()
    window.open_checkpoint(nllb)
    qtbot.waitUntil(
        lambda: session.snapshot is not None and len(session.snapshot.steps) == 2, timeout=EVENT_MS
    )
    assert (session.model.source_language, session.model.target_language) == ("fra_Latn", "deu_Latn")
    assert session.snapshot.encoder.tokens[0] == "fra_Latn"
    assert session.model.tokenizer.token_text(session.snapshot.steps[0].token_id) == "deu_Latn"
    assert window.timeline.start.text() == "</s>"
    assert window.source_bar.languages.target.currentText() == "deu_Latn"
    window.close()


def test_many_layers_and_heads_scroll_with_readable_cells(qtbot, settings, tmp_path):
    """NLLB's 12 × 16 heads: the grid keeps cells of READABLE_CELL pixels and its pane scrolls."""
    from visualizer.widgets.attention_grid import READABLE_CELL

    sizes = dict(encoder_layers=12, decoder_layers=12, encoder_attention_heads=16, decoder_attention_heads=16)
    folder = write_hf_model("nllb", tmp_path / "wide", d_model=32, **sizes)
    opened = window_on(qtbot, settings, folder)
    harness = next(opened)
    window, grid = harness.window, harness.window.grid
    window.resize(1024, 700)
    harness.session.set_kind("cross")
    harness.session.step_forward()
    harness.wait_idle()
    qtbot.waitUntil(lambda: grid.layout_ is not None and grid.layout_.layers == 12)
    scroll = window.grid_scroll
    assert grid.minimumWidth() > scroll.viewport().width()
    assert scroll.horizontalScrollBar().maximum() > 0 and scroll.verticalScrollBar().maximum() > 0
    assert grid.minimumWidth() >= 17 * READABLE_CELL
    assert window.size().width() == 1024  # the window did not grow
    next(opened, None)  # closes the window


def test_w_shows_attention_over_words_and_says_so(nllb_window, qtbot):
    from visualizer.state.views import attention_view, words_view

    window, session = nllb_window.window, nllb_window.session
    session.set_source("der hundepark läuft parkingdogs")
    nllb_window.wait_idle()
    session.set_kind("cross")
    for _ in range(3):
        qtbot.keyClick(window.grid, Qt.Key.Key_Right)
        nllb_window.wait_idle()
    assert window.words_action.isEnabled()
    pieces = window.grid.cell_matrix(0, 1).shape
    qtbot.keyClick(window.grid, Qt.Key.Key_W)
    assert session.words and window.words_action.isChecked()
    expected = words_view(
        session.snapshot, attention_view(session.snapshot, "cross", session.cursor), session.cursor
    )
    qtbot.waitUntil(lambda: window.grid.cell_matrix(0, 1).shape == expected.weights.shape[2:])
    np.testing.assert_allclose(window.grid.cell_matrix(0, 1), expected.weights[0, 1], atol=1e-6)
    assert window.grid.cell_matrix(0, 1).shape[1] < pieces[1]
    assert "words" in window.step_hint.text()
    qtbot.keyClick(window.grid, Qt.Key.Key_W)
    assert not session.words and window.grid.cell_matrix(0, 1).shape == pieces


def test_w_is_off_for_a_character_model(harness):
    assert not harness.window.words_action.isEnabled()
    harness.session.set_words(True)
    assert not harness.session.words


def test_t5_shows_its_relative_position_bias(qtbot, settings, tmp_path):
    from model.probes.relative_bias import relative_bias

    folder = write_hf_model("t5", tmp_path / "t5")
    opened = window_on(qtbot, settings, folder)
    harness = next(opened)
    window, session = harness.window, harness.session
    window.show_panel("relative_bias")
    panel = window.panels[[entry.key for entry in PANELS].index("relative_bias")]
    session.select_head(0, 1)
    qtbot.waitUntil(lambda: panel.bias is not None and bool(panel.head_curves), timeout=EVENT_MS)
    expected = relative_bias(open_hf(folder, "cpu"), list(session.snapshot.encoder.tokens))
    shown = {title: curve.getData() for title, curve in panel.head_curves.items()}
    encoder = next(data for title, data in shown.items() if "encoder" in title)
    np.testing.assert_array_equal(encoder[0], expected.encoder.distance)
    np.testing.assert_allclose(encoder[1], expected.encoder.bias[1], atol=1e-6)
    np.testing.assert_allclose(panel.matrix.image.image, expected.source_matrix[1], atol=1e-6)
    assert "8 buckets" in panel.info.text()
    next(opened, None)


def test_the_norm_page_names_rmsnorm_where_the_model_has_it():
    from visualizer.panels.layernorm import norm_text

    for language in ("en", "zh"):
        rms = norm_text(language, "rmsnorm", "pre")
        assert "RMSNorm" in rms["output"] and "RMSNorm" in rms["ln_mean"] and "LayerNorm" not in rms["batch"]
        assert "RMSNorm" in rms["model_norms"] and "β" in rms["model_norms"]
        assert "Add & Norm" not in rms["page_layer"]  # a pre-norm model adds after, not before
        post = norm_text(language, "layernorm", "post")
        assert "LayerNorm" in post["output"] and "x + Sublayer(x)" in post["input"]


def test_opening_a_folder_shows_each_stage_in_the_status_bar(nllb_window, nllb):
    window, session = nllb_window.window, nllb_window.session
    seen = []  # what the window showed at each stage (the window's handler runs first)
    session.load_progress.connect(
        lambda fraction, stage: seen.append(
            (fraction, stage, window.progress.maximum(), window.progress.value(), window.message_label.text())
        )
    )
    session.open_checkpoint(nllb)
    nllb_window.wait_idle()
    stages = [stage for _, stage, *_ in seen]
    assert stages == [
        "checking the folder",
        "importing the Hugging Face library",
        "reading the tokenizer",
        "reading the weights",
        "checking the weights on a test input",
        "moving the model to its device",
        "finding the attention and norm layers",
    ]
    fractions = [fraction for fraction, *_ in seen]
    assert fractions == sorted(fractions) and fractions[0] == 0 and fractions[-1] < 1
    for fraction, stage, maximum, value, text in seen:
        assert (maximum, value) == (100, round(100 * fraction))
        assert text == f"Opening the model: {stage}…"
    assert window.progress.maximum() == 0  # indeterminate again for the next work
    assert not window.message_label.text().startswith("Opening the model")


def test_the_masks_page_shows_each_architectures_own_score_stages(qtbot, settings, nllb, tmp_path):
    """NLLB divides QKᵀ by √d_k; T5 adds its position bias and divides by nothing: the page
    says so, stage by stage, and softmax of its masked scores is the attention recorded."""
    t5 = write_hf_model("t5", tmp_path / "t5-tiny")
    for folder, kind, symbols, scale in (
        (nllb, "dec_self", ["QKᵀ", "÷√d_k"], "scale 1/√d_k = "),
        (t5, "enc_self", ["QKᵀ + B"], "the scores are not scaled"),
        (t5, "cross", ["QKᵀ"], "the scores are not scaled"),
    ):
        opened = window_on(qtbot, settings, folder)
        harness = next(opened)
        harness.session.step_forward()
        harness.wait_idle()
        harness.session.set_kind(kind)
        harness.window.show_panel("masks")
        harness.wait_idle()
        panel = next(p for p in harness.window.panels if p.key == "masks")
        assert scale in panel.status.text() and ("T5's" in panel.explanation.text()) == (folder == t5)
        stages = panel.grid[1]
        assert [stage.symbol for stage in stages[: len(symbols)]] == symbols, kind
        assert [stage.name for stage in stages[len(symbols) :]] == ["mask", "masked", "softmax"]
        masked = panel.cells[(0, "masked")].shown
        weights = np.exp(masked - masked.max(-1, keepdims=True))
        np.testing.assert_allclose(
            weights / weights.sum(-1, keepdims=True), panel.cells[(0, "softmax")].shown, atol=1e-5
        )
        next(opened, None)  # closes the window
