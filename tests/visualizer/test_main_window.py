"""The window driven as a user would, with its pictures checked against the engine's arrays."""

from __future__ import annotations

import json

import numpy as np
import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent
from PySide6.QtWidgets import QLabel

from model.generation.engine import GenerationEngine
from model.transformer.checkpoint import load_checkpoint
from tests.waits import EVENT_MS
from visualizer.state.session import Session
from visualizer.widgets.heatmap import display_token
from visualizer.window.main_window import MainWindow


def engine_after(path, source: str, steps: int) -> GenerationEngine:
    checkpoint = load_checkpoint(path, "cpu")
    engine = GenerationEngine(checkpoint, source)
    for _ in range(steps):
        engine.step()
    return engine


def press(harness, key, times: int = 1) -> None:
    harness.window.activateWindow()  # shortcuts act on the active window, as for a user
    harness.qtbot.waitUntil(harness.window.isActiveWindow, timeout=EVENT_MS)
    for _ in range(times):
        harness.qtbot.keyClick(harness.window.grid, key)
        harness.wait_idle()


def test_heatmaps_show_exactly_the_engine_arrays(harness, tiny_checkpoint_path):
    press(harness, Qt.Key.Key_Right, 3)
    assert harness.session.cursor == 2
    engine = engine_after(tiny_checkpoint_path, "reverse: abcdef", 3)
    grid = harness.window.grid
    config = engine.model.config
    harness.session.set_kind("cross")
    for layer in range(config.n_decoder_layers):
        for head in range(config.n_heads):
            expected = np.stack([step.attention["cross"][layer, head] for step in engine.steps])
            np.testing.assert_allclose(grid.cell_matrix(layer, head), expected, atol=1e-6)
        mean = grid.cell_matrix(layer, None)
        np.testing.assert_allclose(
            mean, np.stack([s.attention["cross"][layer] for s in engine.steps]).mean(1), atol=1e-6
        )
    # the pixels drawn are the colour map's colours of those weights
    pixels = grid.cell_pixels(1, 2)
    layout = grid.layout_
    for query, key in [(0, 0), (2, 5), (1, len(engine.encoder.tokens) - 1)]:
        y = np.nonzero(layout.rows == query)[0][0]
        x = np.nonzero(layout.cols == key)[0][0]
        weight = engine.steps[query].attention["cross"][1, 2, key]
        np.testing.assert_array_equal(pixels[y, x], grid.lut[int(weight * 255 + 0.5)])
    harness.session.set_kind("dec_self")
    shown = grid.cell_matrix(1, 2)
    assert shown.shape == (3, 3)
    for t, step in enumerate(engine.steps):
        np.testing.assert_allclose(shown[t, : t + 1], step.attention["dec_self"][1, 2], atol=1e-6)
        assert np.isnan(shown[t, t + 1 :]).all()  # the causal mask: drawn as masked, not as 0
    masked_pixel = grid.cell_pixels(1, 2)[0, -1]  # query 0, key 2: the future
    np.testing.assert_array_equal(masked_pixel, [0x5A, 0x5A, 0x5A, 255])
    harness.session.set_kind("enc_self")
    np.testing.assert_allclose(grid.cell_matrix(0, 1), engine.encoder.attention["enc_self"][0, 1], atol=1e-6)


def test_step_back_play_reset_and_run_to_end_by_keyboard(harness):
    session = harness.session
    press(harness, Qt.Key.Key_Right, 4)
    snapshot = session.snapshot
    assert len(snapshot.steps) == 4 and session.cursor == 3
    press(harness, Qt.Key.Key_Left, 2)
    assert session.cursor == 1
    assert session.snapshot is snapshot  # going back shows recorded steps, never recomputes
    assert harness.window.grid.view.current_row == 1
    press(harness, Qt.Key.Key_Right)
    assert session.cursor == 2 and session.snapshot is snapshot
    press(harness, Qt.Key.Key_End)
    assert session.snapshot.stop_reason is not None
    assert session.cursor == len(session.snapshot.steps) - 1
    press(harness, Qt.Key.Key_Home)
    assert session.snapshot.steps == () and session.cursor == -1
    harness.window.step_controls.speed.setValue(30)
    harness.qtbot.keyClick(harness.window.grid, Qt.Key.Key_Space)
    assert session.playing
    harness.qtbot.waitUntil(lambda: len(session.snapshot.steps) >= 3, timeout=EVENT_MS)
    harness.qtbot.keyClick(harness.window.grid, Qt.Key.Key_Space)
    assert not session.playing
    harness.wait_idle()
    steps = len(session.snapshot.steps)
    harness.qtbot.wait(300)
    assert len(session.snapshot.steps) == steps  # paused means paused


def test_timeline_click_shows_that_step(harness):
    press(harness, Qt.Key.Key_Right, 4)
    timeline = harness.window.timeline
    assert len(timeline.buttons) == 4
    harness.qtbot.mouseClick(timeline.buttons[1], Qt.MouseButton.LeftButton)
    assert harness.session.cursor == 1
    assert harness.window.grid.cell_matrix(0, 0).shape[0] == 2
    assert timeline.buttons[1].isChecked()
    assert "step 2 of 4" in harness.window.output_label.text()
    harness.qtbot.mouseClick(timeline.start, Qt.MouseButton.LeftButton)
    assert harness.session.cursor == -1


def test_clicking_a_head_enlarges_it_and_hover_reads_the_weight(harness, tiny_checkpoint_path):
    press(harness, Qt.Key.Key_Right, 3)
    harness.session.set_kind("cross")
    grid = harness.window.grid
    scene_pos = grid.scene_position(1, 3, query=2, key=4)
    grid.on_mouse_clicked(type("Click", (), {"scenePos": lambda self: scene_pos})())
    assert (harness.session.layer, harness.session.head) == (1, 3)
    engine = engine_after(tiny_checkpoint_path, "reverse: abcdef", 3)
    np.testing.assert_allclose(
        harness.window.detail.shown, np.stack([s.attention["cross"][1, 3] for s in engine.steps]), atol=1e-6
    )
    texts = []
    grid.hovered.connect(texts.append)
    grid.on_mouse_moved(scene_pos)
    weight = engine.steps[2].attention["cross"][1, 3, 4]
    assert texts[-1].endswith(f"{weight:.3f}")
    query_token = engine.tokenizer.token_text(engine.steps[2].input_id)  # what the decoder read at step 2
    assert f"query 2 {query_token!r} → key 4 'r'" in texts[-1]  # key 4 of "reverse: abcdef": the 'r'
    harness.qtbot.keyClick(harness.window.grid, Qt.Key.Key_M)
    assert harness.session.head is None


def test_a_bad_checkpoint_shows_a_dialog_and_keeps_the_old_model(harness, tmp_path):
    old_model, old_snapshot = harness.session.model, harness.session.snapshot
    bad = tmp_path / "bad.safetensors"
    bad.write_bytes(b"\x00" * 64)
    harness.window.open_checkpoint(bad)
    harness.wait_idle()
    dialog = harness.window.error_dialog
    assert dialog is not None and dialog.isVisible()
    assert "safetensors" in dialog.text()
    assert harness.session.model is old_model and harness.session.snapshot is old_snapshot
    dialog.close()
    press(harness, Qt.Key.Key_Right)
    assert len(harness.session.snapshot.steps) == 1  # still usable


def test_an_exception_in_the_worker_is_shown_and_the_state_kept(harness, monkeypatch):
    press(harness, Qt.Key.Key_Right)
    before = harness.session.snapshot

    def explode(self, force=None):
        raise RuntimeError("simulated failure inside the model")

    monkeypatch.setattr(GenerationEngine, "step", explode)
    press(harness, Qt.Key.Key_Right)
    assert "simulated failure" in harness.window.message_label.text()
    assert harness.window.error_dialog.isVisible()
    assert harness.session.snapshot is before
    harness.window.error_dialog.close()


def test_unknown_characters_are_shown_as_unk_with_a_notice(harness):
    harness.window.source_bar.edit.setText("reverse: héllo")
    harness.window.source_bar.run()
    harness.wait_idle()
    assert "'é'" in harness.window.message_label.text()
    assert harness.session.snapshot.encoder.tokens[10] == "<unk>"


def test_exports_write_png_svg_and_a_trace_equal_to_the_engine(harness, tmp_path, tiny_checkpoint_path):
    press(harness, Qt.Key.Key_Right, 3)
    assert harness.window.export_png(str(tmp_path / "v.png"))
    assert (tmp_path / "v.png").stat().st_size > 1000
    assert harness.window.export_svg(str(tmp_path / "v.svg"))
    assert (tmp_path / "v.svg").read_text().lstrip().startswith("<?xml")
    assert harness.window.export_trace(str(tmp_path / "t.npz"))
    arrays = np.load(tmp_path / "t.npz")
    engine = engine_after(tiny_checkpoint_path, "reverse: abcdef", 3)
    np.testing.assert_allclose(arrays["cross"][:, :, 1], engine.steps[1].attention["cross"], atol=1e-6)
    assert json.loads((tmp_path / "t.json").read_text())["source"] == "reverse: abcdef"


def test_settings_are_remembered(qtbot, settings, harness, tiny_checkpoint_path):
    harness.session.set_kind("dec_self")
    harness.session.set_colormap("magma")
    harness.session.set_settings(harness.session.with_settings(strategy="topk", top_k=3, seed=7))
    harness.wait_idle()
    harness.window.step_controls.speed.setValue(12)
    harness.window.close()
    assert settings.value("geometry") == harness.window.saveGeometry()
    window = MainWindow(Session(), settings)
    qtbot.addWidget(window)
    assert window.session.kind == "dec_self" and window.session.colormap == "magma"
    assert (
        window.session.settings.strategy,
        window.session.settings.top_k,
        window.session.settings.seed,
    ) == (
        "topk",
        3,
        7,
    )
    assert window.decoding.strategy.currentData() == "topk"
    assert window.step_controls.speed.value() == 12
    assert window.recent_files()[0] == str(tiny_checkpoint_path)
    # the attention tabs are built from the model's kinds once a model loads: the remembered one is shown
    window.open_checkpoint(tiny_checkpoint_path)
    qtbot.waitUntil(lambda: window.session.snapshot is not None and not window.session.busy, timeout=EVENT_MS)
    assert window.session.kind == "dec_self"
    assert window.kind_tabs.currentIndex() == 1 and window.kind_tabs.tabData(1) == "dec_self"
    window.close()


def test_dropping_a_checkpoint_opens_it(harness, tmp_path, tiny_checkpoint_path):
    import shutil

    copy = tmp_path / "dropped.safetensors"
    shutil.copy(tiny_checkpoint_path, copy)
    data = QMimeData()
    data.setUrls([QUrl.fromLocalFile(str(copy))])
    event = QDropEvent(
        QPointF(10, 10),
        Qt.DropAction.CopyAction,
        data,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    harness.window.dropEvent(event)
    harness.wait_idle()
    assert harness.session.model.path == copy
    assert "dropped.safetensors" in harness.window.model_label.text()


def test_changing_the_strategy_regenerates_up_to_the_same_step(harness):
    press(harness, Qt.Key.Key_Right, 3)
    controls = harness.window.decoding
    controls.strategy.setCurrentIndex(controls.strategy.findData("beam"))
    harness.wait_idle()
    assert harness.session.settings.strategy == "beam"
    assert len(harness.session.snapshot.steps) == 3 and harness.session.snapshot.beam is not None
    assert controls.beam.isEnabled() and not controls.top_p.isEnabled()


@pytest.mark.parametrize("count", [20_000])
def test_signal_emits_do_not_crash_the_interpreter(qtbot, count):
    """PySide6 6.12.0 on Python 3.11 lost a reference to True per emit and aborted the process."""
    from PySide6.QtCore import QObject, Signal

    class Emitter(QObject):
        fired = Signal(bool)

    received = []
    emitter = Emitter()
    emitter.fired.connect(received.append)
    for _ in range(count):
        emitter.fired.emit(True)
    assert len(received) == count and all(received)


def test_the_app_starts_on_the_shipped_checkpoint(qtbot, settings):
    from model.transformer.checkpoint import default_checkpoint_path

    session = Session()  # the default source, "reverse: attention"
    window = MainWindow(session, settings)
    qtbot.addWidget(window)
    window.show()
    window.open_checkpoint(default_checkpoint_path())
    qtbot.waitUntil(lambda: session.snapshot is not None and not session.busy, timeout=EVENT_MS)
    assert session.model.path == default_checkpoint_path()
    session.run_to_end()
    qtbot.waitUntil(lambda: not session.busy, timeout=EVENT_MS)
    assert session.snapshot.output_text() == "noitnetta"
    assert "noitnetta" in window.output_label.text()
    window.close()


def test_switching_the_language_translates_the_window(harness):
    window = harness.window
    harness.session.set_language("zh")
    assert window.menuBar().actions()[0].text() == "文件(&F)"
    assert window.actions_by_name["step"].text() == "单步"
    assert window.kind_tabs.tabText(2) == "交叉注意力"
    assert window.pages.tabText(0) == "注意力头"
    assert window.decoding.strategy.itemText(0) == "贪心"
    assert "输出" in window.output_label.text()
    harness.session.set_language("en")
    assert window.menuBar().actions()[0].text() == "&File"
    assert window.actions_by_name["step"].text() == "Step"
    assert window.decoding.strategy.itemText(4) == "beam search"


def test_a_lazy_window_paints_its_tabs_first_and_builds_the_panels_after_torch(qtbot, settings):
    """The interactive start (lazy_panels): pages with the panels' titles that say they are
    loading, the chosen page kept, then the real panels once the worker has imported torch."""
    from model.transformer.checkpoint import default_checkpoint_path
    from visualizer.panels.page import PanelPage
    from visualizer.panels.registry import PANELS

    session = Session()
    window = MainWindow(session, settings, lazy_panels=True)
    qtbot.addWidget(window)
    # nothing has run the event loop yet, so the worker's "torch is imported" cannot have arrived
    assert not any(page.built for page in window.panel_pages)
    tabs = range(1, window.pages.count())
    assert [window.pages.tabText(i) for i in tabs] == [entry.title("en") for entry in PANELS]
    assert [window.pages.widget(i) for i in tabs] == window.panel_pages
    assert all(isinstance(page, PanelPage) for page in window.panel_pages)
    window.show_panel("layernorm")
    window.show()
    layernorm = window.pages.currentWidget()
    assert not layernorm.built and layernorm.reason.text() == "Loading…"
    qtbot.waitUntil(lambda: all(page.built for page in window.panel_pages), timeout=EVENT_MS)
    assert [page.built_panel.key for page in window.panel_pages] == [entry.key for entry in PANELS]
    assert [page.panel for page in window.panel_pages] == window.panels
    assert layernorm.panel is window.panels[[e.key for e in PANELS].index("layernorm")]
    window.open_checkpoint(default_checkpoint_path())
    qtbot.waitUntil(lambda: session.snapshot is not None and not session.busy, timeout=EVENT_MS)
    assert layernorm.shows_panel and layernorm.content() is layernorm.panel
    assert window.cuda_action.text() in ("CUDA", "CUDA (not available)")
    window.close()


def test_a_window_builds_a_panel_only_when_its_page_is_first_shown(harness):
    """Without lazy_panels (tests, --screenshot): no panel is built until its page is shown."""
    from visualizer.panels.registry import PANELS

    window, session = harness.window, harness.session
    session.step_forward()
    harness.wait_idle()
    assert not any(page.built for page in window.panel_pages)
    window.show_panel("decoding")
    harness.wait_idle()
    built = [entry.key for entry, page in zip(PANELS, window.panel_pages, strict=True) if page.built]
    assert built == ["decoding"]
    page = window.pages.currentWidget()
    assert page.shows_panel and page.built_panel.isVisible()
    # built late, it shows the state it was built into: the step already taken
    shown = page.built_panel.bars.filtered_full
    np.testing.assert_array_equal(shown, session.snapshot.steps[0].filtered_probs)


def test_panels_that_cannot_be_loaded_say_why_in_their_tabs(qtbot, settings, monkeypatch):
    import visualizer.window.main_window as main_window
    from visualizer.panels.registry import PANELS

    loaded = main_window.panel_class

    def fail_from_the_third(entry):
        if entry is PANELS[2]:
            raise ImportError("libtorch_cpu.so: cannot open shared object file")
        return loaded(entry)

    monkeypatch.setattr(main_window, "panel_class", fail_from_the_third)
    window = MainWindow(Session(), settings, lazy_panels=True)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.panels_failed, timeout=EVENT_MS)
    assert [panel.key for panel in window.panels] == [entry.key for entry in PANELS[:2]]
    for page in window.panel_pages[2:]:
        assert not page.built and "libtorch_cpu.so" in page.reason.text()
        assert page.currentWidget() is page.reason
    assert "could not be loaded" in window.message_label.text()
    window.error_dialog.close()
    window.close()


def test_a_long_run_gets_every_timeline_button_and_the_grid_labels_are_reused(harness):
    from visualizer.widgets.timeline import BUTTONS_PER_PASS

    grid = harness.window.grid
    harness.session.set_kind("cross")
    harness.session.step_forward()
    harness.wait_idle()
    labels = list(grid.labels)
    harness.session.run_to_end()
    harness.wait_idle()
    steps = harness.session.snapshot.steps
    assert len(steps) > BUTTONS_PER_PASS  # more buttons than one pass of the event loop makes
    timeline = harness.window.timeline
    harness.qtbot.waitUntil(lambda: len(timeline.buttons) == len(steps), timeout=EVENT_MS)
    assert [b.text() for b in timeline.buttons] == [
        display_token(t) for t in harness.session.snapshot.output_tokens
    ]
    assert timeline.buttons[-1].isChecked() and not timeline.buttons[-1].isFlat()
    harness.session.go_to_step(-1)
    assert all(b.isFlat() for b in timeline.buttons)  # every step is ahead of the shown one
    assert grid.labels == labels  # more rows only move the head and layer labels


def test_the_first_screen_shows_the_encoder_and_says_what_to_press(harness):
    session, window = harness.session, harness.window
    assert session.cursor == -1 and session.kind == "cross"
    # cross-attention has no row before the first step: the grid shows the encoder's self-attention
    assert session.shown_kind == "enc_self"
    view = window.grid.view
    np.testing.assert_array_equal(view.weights, session.snapshot.encoder.attention["enc_self"])
    height = window.step_hint.height()
    hint = window.step_hint.text()
    assert "Encoder self-attention" in hint and "→" in hint and "Space" in hint
    # the enlarged head says what it shows: the encoder's self-attention, source against source
    assert window.detail.title.text.startswith("Encoder self-attention")
    assert window.detail.matrix.plot.getAxis("left").labelText == "query (source)"
    session.set_language("zh")
    assert "<b>→</b> 生成一个词元" in window.step_hint.text()
    session.set_language("en")
    session.step_forward()
    harness.wait_idle()
    assert session.shown_kind == "cross" and window.grid.view.kind == "cross"
    # after the first step: a reminder of what the grid answers to, on the same fixed-height line
    assert "hover a cell" in window.step_hint.text() and "→" not in window.step_hint.text()
    assert window.step_hint.height() == height  # the grid keeps its size
    session.set_kind("enc_self")
    session.set_source("reverse: abc")
    harness.wait_idle()
    assert session.cursor == -1 and "→" in window.step_hint.text()
    assert "Nothing generated yet" not in window.step_hint.text()  # the chosen kind is shown
    # the enlarged head's token axes never carry pyqtgraph's SI prefix
    for side in ("left", "bottom"):
        assert not window.detail.matrix.plot.getAxis(side).autoSIPrefix


def test_enter_in_the_source_box_runs_and_plays(harness, qtbot):
    bar, session = harness.window.source_bar, harness.session
    bar.edit.setText("reverse: entér")
    qtbot.keyClick(bar.edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: session.snapshot is not None and session.snapshot.source == "reverse: entér")
    qtbot.waitUntil(lambda: session.cursor >= 1, timeout=EVENT_MS)  # it plays on its own
    # the answer to this action stays while it plays: the play timer's steps are not new actions
    assert "not in the vocabulary" in harness.window.message_label.text()
    session.stop()
    harness.wait_idle()


def test_the_window_title_captions_ending_and_error_note_speak_chinese(harness):
    session, window = harness.session, harness.window
    session.run_to_end()
    harness.wait_idle()
    session.set_language("zh")
    assert window.windowTitle().startswith("注意力可视化 — ")
    captions = [label.text() for label in window.decoding.findChildren(QLabel)]
    assert "温度" in captions and "束宽" in captions and "种子" in captions
    assert window.timeline.ending.text() in ("■ 序列结束", "■ 已达最大长度而停止")
    window.show_error("boom")
    assert window.error_dialog.informativeText() == "之前的模型和生成结果保持不变。"
    window.error_dialog.close()
    session.set_language("en")
    assert window.windowTitle().startswith("Attention Visualizer — ")
    assert "T" in [label.text() for label in window.decoding.findChildren(QLabel)]


def test_after_an_error_dialog_the_stepping_keys_step_at_once(harness, qtbot):
    from PySide6.QtWidgets import QApplication

    window = harness.window
    window.activateWindow()
    window.source_bar.edit.setFocus()  # where a user typing a source leaves it
    window.on_message("error", "could not read broken.safetensors")
    dialog = window.error_dialog
    assert dialog is not None and dialog.isVisible()
    assert "unchanged" in dialog.informativeText()
    dialog.accept()
    qtbot.waitUntil(lambda: not dialog.isVisible())
    # focus is back on the window, not on the Source box, so → steps instead of moving a cursor
    focused = QApplication.focusWidget()
    assert focused is not window.source_bar.edit
    cursor = harness.session.cursor
    qtbot.keyClick(focused or window, Qt.Key.Key_Right)
    harness.wait_idle()
    assert harness.session.cursor == cursor + 1
