"""The Train page in the real window, with its real training process: the run streams, the page
shows the run's own numbers and the probe on each snapshot, pause/resume/stop work, no process
outlives the page or the window, a crash is shown and the app goes on, replays open."""

from __future__ import annotations

import os
import signal

import numpy as np
import pytest
from PySide6.QtCore import QSettings

from model.generation.engine import GenerationEngine
from model.registry import open_model
from model.shipped import default_checkpoint_path, shipped_replay_path
from model.tasks.probe import trace_probe
from model.tasks.replay import read_replay
from model.transformer.checkpoint import load_checkpoint
from tests.waits import EVENT_MS
from visualizer.i18n import tr, trf
from visualizer.panels.registry import PANEL_KEYS
from visualizer.state.session import Session
from visualizer.state.views import attention_view
from visualizer.widgets.heatmap import display_token
from visualizer.window.main_window import MainWindow

pytestmark = pytest.mark.slow  # starts training processes



def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def start(panel, qtbot, steps: int, every: int) -> None:
    panel.steps.setValue(steps)
    panel.every.setValue(every)
    panel.train()
    qtbot.waitUntil(lambda: panel.run is not None and len(panel.run.steps) >= 1, timeout=EVENT_MS)


def shown_probe_equals(panel, qtbot, index: int) -> None:
    """The page shows snapshot ``index``'s probe: the large head equals the probe run directly."""
    qtbot.waitUntil(lambda: panel.traces.get(panel.probe_key(index)) is not None, timeout=EVENT_MS)
    qtbot.waitUntil(
        lambda: panel.probe_view.trace is panel.traces.get(panel.probe_key(index)), timeout=EVENT_MS
    )
    expected = trace_probe(panel.run.snapshot_model(index), panel.probe.text())
    layer, head = panel.probe_view.chosen
    kind = panel.kind.currentData()
    np.testing.assert_allclose(panel.probe_view.shown_matrix(), expected.attention[kind][layer, head])
    assert expected.output_text in panel.output.text()


@pytest.fixture
def train_page(harness):
    harness.window.show_panel("train")
    panel = harness.window.train_panel()
    assert panel is not None
    return panel


def test_the_page_is_a_panel_and_opens_with_the_shipped_replay(train_page):
    assert "train" in PANEL_KEYS
    run = train_page.run
    replay = read_replay(shipped_replay_path())
    assert run.replay is not None and [s.step for s in run.snapshots] == [s.step for s in replay.snapshots]
    assert train_page.slider.maximum() == len(replay.snapshots) - 1 == train_page.slider.value()
    line = train_page.curves.loss_line  # drawn on a log axis: its data as given
    steps, loss = line.xData, line.yData
    np.testing.assert_array_equal(steps, [s.step for s in replay.snapshots[1:]])
    np.testing.assert_allclose(loss, [s.loss for s in replay.snapshots[1:]])


def test_a_live_run_streams_and_every_view_shows_its_own_numbers(harness, train_page, qtbot, tmp_path):
    panel, session = train_page, harness.session
    start(panel, qtbot, steps=21, every=7)
    qtbot.waitUntil(lambda: panel.process.state == "finished", timeout=EVENT_MS)
    run = panel.run
    assert run.replay is None and run.steps == list(range(1, 22))
    assert [s.step for s in run.snapshots] == [0, 7, 14, 21]
    # the curves are the run's numbers
    panel.draw_curves()
    steps, loss = panel.curves.loss_line.xData, panel.curves.loss_line.yData
    np.testing.assert_array_equal(steps, run.steps)
    np.testing.assert_allclose(loss, run.loss)
    assert panel.curves.legend_words() == ["training batch", "held-out"]  # a live run has both
    held_steps, held = panel.curves.held_line.getData()
    np.testing.assert_array_equal(held_steps, [0, 7, 14, 21])
    np.testing.assert_allclose(held, [s.held_out for s in run.snapshots])
    assert panel.curves.marks[0].value() == 21  # the shown snapshot, marked
    assert "21" in panel.status.text()
    # the probe on the newest snapshot, then on an earlier one chosen with the slider
    shown_probe_equals(panel, qtbot, 3)
    panel.slider.setValue(1)
    shown_probe_equals(panel, qtbot, 1)
    assert panel.curves.marks[0].value() == 7
    # saved as a checkpoint: the snapshot's weights
    saved = tmp_path / "mine.safetensors"
    panel.save_checkpoint(saved)
    mine, snapshot = load_checkpoint(saved, "cpu"), load_checkpoint(run.snapshots[1].path, "cpu")
    for name, tensor in mine.model.state_dict().items():
        np.testing.assert_array_equal(tensor.numpy(), snapshot.model.state_dict()[name].numpy())
    panel.save_replay(tmp_path / "mine.replay.safetensors")
    assert [s.step for s in read_replay(tmp_path / "mine.replay.safetensors").snapshots] == [0, 7, 14, 21]
    # every view of the app pointed at the snapshot
    panel.open_in_main_view()
    qtbot.waitUntil(
        lambda: session.model is not None and session.model.path == run.snapshots[1].path, timeout=EVENT_MS
    )
    assert session.model.metadata["steps_done"] == 7
    assert harness.window.pages.currentIndex() == 0  # the attention page in front
    # compared with the shipped model
    panel.compare_with(str(default_checkpoint_path()))
    qtbot.waitUntil(lambda: harness.window.compare is not None, timeout=EVENT_MS)
    harness.window.stop_compare()
    # or with an earlier snapshot: the shown one in the main view, the other beside it
    path = session.model.path
    panel.compare_with(0)
    qtbot.waitUntil(lambda: harness.window.compare is not None, timeout=EVENT_MS)
    compared = harness.window.compare.session
    qtbot.waitUntil(lambda: compared.model is not None, timeout=EVENT_MS)
    assert compared.model.path == run.snapshots[0].path and session.model.path == path
    harness.window.stop_compare()


def test_pause_resume_and_stop_and_no_process_is_left_behind(train_page, qtbot, monkeypatch):
    from visualizer.work import training_process

    # Stop kills a run that has not finished saving 10 s later; on a busy machine (another suite
    # running) saving can take longer than that, and this test is about the graceful stop
    monkeypatch.setattr(training_process, "STOP_GRACE_MS", EVENT_MS)
    panel = train_page
    start(panel, qtbot, steps=100_000, every=50)
    pid = panel.process.process.processId()
    panel.toggle_pause()
    qtbot.waitUntil(lambda: panel.process.state == "paused", timeout=EVENT_MS)
    assert panel.buttons["pause"].text() == "Resume"
    heard = len(panel.run.steps)
    qtbot.wait(800)
    assert len(panel.run.steps) == heard  # nothing trains while paused
    panel.toggle_pause()
    qtbot.waitUntil(lambda: len(panel.run.steps) >= heard + 3, timeout=EVENT_MS)
    assert panel.process.state == "running"
    panel.process.stop()
    qtbot.waitUntil(lambda: panel.process.state == "finished", timeout=EVENT_MS)
    assert gone(pid)
    last = panel.run.snapshots[-1]
    assert last.step == panel.run.steps[-1] < 100_000  # the model trained so far, saved
    assert "Stopped at step" in panel.status.text()
    assert panel.buttons["train"].isEnabled() and not panel.buttons["stop"].isEnabled()


def test_closing_the_window_mid_run_ends_the_training_process(qtbot, tmp_path):
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(Session(), settings=settings, remember=False)
    qtbot.addWidget(window)
    window.show()
    window.show_panel("train")
    panel = window.train_panel()
    start(panel, qtbot, steps=100_000, every=1000)
    pid = panel.process.process.processId()
    folders = list(panel.folders)
    window.close()
    assert gone(pid)
    assert not any(folder.exists() for folder in folders)


def test_a_crash_in_the_training_process_is_shown_and_the_app_keeps_working(
    harness, train_page, qtbot, tmp_path
):
    panel, session = train_page, harness.session
    bad = tmp_path / "pairs.tsv"
    bad.write_text("no tab here\nnor here\n", encoding="utf-8")
    panel.choose_pairs_file(bad)
    assert "--data" in panel.arguments(tmp_path)
    panel.train()
    qtbot.waitUntil(lambda: panel.process.state == "failed", timeout=EVENT_MS)
    assert panel.failure.isVisible() and "pairs.tsv holds no source<TAB>target pairs" in panel.failure.text()
    # killed from outside
    panel.data.setCurrentIndex(0)
    start(panel, qtbot, steps=100_000, every=1000)
    os.kill(panel.process.process.processId(), signal.SIGKILL)
    qtbot.waitUntil(lambda: panel.process.state == "failed", timeout=EVENT_MS)
    assert "ended unexpectedly" in panel.failure.text()
    # the window goes on: the model steps, and a new run trains
    before = len(session.snapshot.steps)
    session.step_forward()
    qtbot.waitUntil(lambda: len(session.snapshot.steps) == before + 1, timeout=EVENT_MS)
    # on the user's own pairs this time: the vocabulary is the data's
    good = tmp_path / "good.tsv"
    good.write_text(
        "".join(f"{w}\t{w[::-1]}\n" for w in ("abc", "bca", "cab", "aab", "bba") * 8), encoding="utf-8"
    )
    panel.choose_pairs_file(good)
    start(panel, qtbot, steps=5, every=5)
    qtbot.waitUntil(lambda: panel.process.state == "finished", timeout=EVENT_MS)
    assert not panel.failure.isVisible()
    assert [s.step for s in panel.run.snapshots] == [0, 5]
    trained = load_checkpoint(panel.run.snapshots[-1].path, "cpu")
    assert {t for t in trained.tokenizer.tokens if len(t) == 1} == set("abc")
    assert trained.metadata["data"]["file"] == "good.tsv"


def test_replays_open_from_the_file_menu_and_bad_files_are_refused(harness, train_page, qtbot, tmp_path):
    panel, window, session = train_page, harness.window, harness.session
    before = panel.run
    assert not panel.open_replay(harness.session.model.path)  # a checkpoint, not a replay
    assert "is not a replay" in panel.failure.text() and panel.run is before
    broken = tmp_path / "broken.replay.safetensors"
    broken.write_bytes(shipped_replay_path().read_bytes()[:5000])
    assert not panel.open_replay(broken) and panel.run is before
    # File > Open of a replay: the Train page shows it, the main view its last snapshot
    window.open_checkpoint(shipped_replay_path())
    assert window.pages.currentWidget().entry.key == "train"
    assert panel.run is not before and panel.run.replay_path == shipped_replay_path()
    qtbot.waitUntil(
        lambda: session.model is not None and session.model.path == shipped_replay_path(), timeout=EVENT_MS
    )
    assert session.model.metadata["replay_snapshot"] == len(panel.run.snapshots) - 1
    # any snapshot of it, in the main view
    panel.slider.setValue(2)
    panel.open_in_main_view()
    qtbot.waitUntil(
        lambda: session.model.metadata.get("steps_done") == panel.run.snapshots[2].step, timeout=EVENT_MS
    )
    assert open_model(session.model.path, "cpu").metadata["steps_done"] == panel.run.snapshots[2].step
    # Play goes through the snapshots
    panel.slider.setValue(panel.slider.maximum())
    panel.toggle_play()
    assert panel.play_timer.isActive() and panel.slider.value() == 0
    qtbot.waitUntil(lambda: panel.slider.value() >= 2, timeout=EVENT_MS)
    panel.toggle_play()
    assert not panel.play_timer.isActive()


def test_the_page_speaks_chinese(harness, train_page):
    harness.session.set_language("zh")
    assert train_page.buttons["train"].text() == tr("Train", "zh")
    assert train_page.explanation.text() == tr(train_page.explain("en"), "zh")
    assert tr("Press Play to watch attention form.", "zh") in train_page.status.text()


def shown_trace(panel, qtbot):
    """The shown snapshot's probe, once the page draws it."""
    index = panel.shown_index()
    qtbot.waitUntil(lambda: panel.traces.get(panel.probe_key(index)) is not None, timeout=EVENT_MS)
    qtbot.waitUntil(
        lambda: panel.probe_view.trace is panel.traces.get(panel.probe_key(index)), timeout=EVENT_MS
    )
    return panel.probe_view.trace


def test_a_replays_legend_names_only_the_curves_it_draws(train_page):
    curves = train_page.curves
    assert train_page.run.replay is not None
    assert curves.train_line.xData is None or len(curves.train_line.xData) == 0  # no per-batch numbers
    assert [label.text for _sample, label in curves.exact_plot.legend.items] == ["held-out"]
    assert curves.legend_words() == [tr("held-out", "en")]


def test_the_probe_labels_its_rows_by_what_the_decoder_read_as_the_main_view_does(train_page, qtbot):
    panel = train_page
    trace = shown_trace(panel, qtbot)
    model = panel.run.snapshot_model(panel.shown_index())
    expected = trace_probe(model, panel.probe.text())
    tokenizer = model.tokenizer
    # the main view's rows: the decoder's input at each step, from its start token
    engine = GenerationEngine(model, panel.probe.text())
    for _ in range(len(expected.input_tokens)):
        engine.step()
    main = attention_view(engine.snapshot(), "cross", len(expected.input_tokens) - 1)
    rows = panel.probe_view.big_plot.getAxis("left").tokens
    assert rows == [display_token(t) for t in main.query_labels]
    assert rows[0] == display_token(tokenizer.token_text(tokenizer.bos_id))
    assert rows[1:] == [display_token(t) for t in trace.output_tokens[:-1]]
    columns = panel.probe_view.big_plot.getAxis("bottom").tokens
    assert columns == [display_token(t) for t in main.key_labels]


def test_the_probe_names_its_kinds_by_their_titles_in_chinese(harness, train_page, qtbot):
    panel = train_page
    trace = shown_trace(panel, qtbot)
    harness.session.set_language("zh")
    info = panel.run.snapshot_model(panel.shown_index()).info
    titles = [tr(kind.title, "zh") for kind in info.kinds]
    assert [panel.kind.itemText(i) for i in range(panel.kind.count())] == titles
    assert [panel.kind.itemData(i) for i in range(panel.kind.count())] == [kind.name for kind in info.kinds]
    layer, head = panel.probe_view.chosen
    assert panel.probe_view.big_plot.titleLabel.text == trf(
        "{kind} L{layer} H{head}", "zh", kind=tr("Cross-attention", "zh"), layer=layer + 1, head=head + 1
    )
    assert "cross" not in panel.probe_view.big_plot.titleLabel.text
    # the large head keeps its token labels in Chinese too
    axis = panel.probe_view.big_plot.getAxis("bottom")
    assert axis.tokens and axis.tickValues(*axis.range, axis.width())[0][1]
    assert trace.kinds == tuple(kind.name for kind in info.kinds)
