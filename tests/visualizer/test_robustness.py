"""Devices that are not there, memory that runs out, a worker that raises, a window closed
mid-work: the app says what happened, keeps what it showed, and goes on (or quits) cleanly."""

from __future__ import annotations

import threading

import pytest
import torch
from PySide6.QtCore import QCoreApplication, QEvent
from PySide6.QtWidgets import QApplication, QMessageBox

import model.core.devices
import model.transformer.checkpoint
from model.generation.engine import GenerationEngine
from model.tasks.train import default_tokenizer
from model.transformer.checkpoint import load_checkpoint, save_checkpoint
from model.transformer.family import TransformerFamily, describe
from model.transformer.model import Transformer
from tests.factories import save_large_checkpoint, small_config, small_model
from tests.waits import EVENT_MS
from visualizer.state.session import Computed, ModelInfo, ModelLoaded, RequestFailed, Session
from visualizer.work.runner import out_of_memory_message

SOURCE = "reverse: abcdef"
OUT_OF_MEMORY = "CUDA out of memory. Tried to allocate 2.00 GiB"


def step(harness, times: int = 1) -> None:
    for _ in range(times):
        harness.session.step_forward()
        harness.wait_idle()


def messages_of(session: Session) -> list[tuple[str, str]]:
    received: list[tuple[str, str]] = []
    session.message.connect(lambda level, text: received.append((level, text)))
    return received


def engine_ids(path, steps: int, forced: dict[int, int] | None = None) -> list[int]:
    """The tokens a fresh engine on ``path`` chooses for SOURCE, forcing ``forced[position]``."""
    checkpoint = load_checkpoint(path, "cpu")
    engine = GenerationEngine(checkpoint, SOURCE)
    for position in range(steps):
        engine.step(force=(forced or {}).get(position))
    return engine.output_ids


def checked_device(window) -> str:
    return next(action.data() for action in window.device_actions.actions() if action.isChecked())


def close_error_dialog(harness) -> None:
    if harness.window.error_dialog is not None:
        harness.window.error_dialog.close()


# -- devices --------------------------------------------------------------------------------
def test_cuda_asked_for_on_a_machine_without_it_stays_on_cpu_with_a_notice(harness, tiny_checkpoint_path):
    assert not torch.cuda.is_available()  # this test is about a CPU-only machine
    session, window = harness.session, harness.window
    step(harness, 3)
    received = messages_of(session)
    session.set_device("cuda")
    harness.wait_idle()
    notice = "CUDA is not available on this machine; using CPU instead"
    assert ("warning", notice) in received
    assert window.message_label.text() == notice  # the notice is what the status bar shows last
    assert session.model.device == "cpu" and session.device == "cpu"
    # the label names the model's family between the file and the device
    assert f"tiny.safetensors · {session.model.family.display_name} · cpu" in window.model_label.text()
    assert checked_device(window) == "cpu"
    assert not window.cuda_action.isEnabled() and window.cuda_action.text() == "CUDA (not available)"
    # the user's place is kept: the same three steps, the cursor on the third
    assert session.cursor == 2
    assert session.snapshot.output_ids == engine_ids(tiny_checkpoint_path, 3)
    step(harness)
    assert session.snapshot.output_ids == engine_ids(tiny_checkpoint_path, 4) and session.cursor == 3


def test_a_device_switch_keeps_the_tokens_the_user_forced(harness, tiny_checkpoint_path):
    session = harness.session
    step(harness, 3)
    session.go_to_step(1)
    forced = session.snapshot.tokenizer.encode("z").ids[0]
    session.force_token(forced)
    harness.wait_idle()
    step(harness)
    expected = engine_ids(tiny_checkpoint_path, 3, forced={1: forced})
    assert session.snapshot.output_ids == expected and session.cursor == 2
    session.set_device("cpu")
    harness.wait_idle()
    assert session.snapshot.output_ids == expected and session.cursor == 2
    assert [s.forced for s in session.snapshot.steps] == [False, True, False]


def test_running_out_of_memory_while_moving_the_model_falls_back_to_cpu(
    harness, monkeypatch, tiny_checkpoint_path
):
    session, window = harness.session, harness.window
    step(harness, 2)
    real_resolve, real_to = model.core.devices.resolve_device, Transformer.to

    def resolve_as_if_cuda_were_there(name):
        return (torch.device("cuda"), None) if name == "cuda" else real_resolve(name)

    def to_that_fails_on_cuda(self, *args, **kwargs):
        if torch.device(args[0]).type == "cuda":
            raise torch.cuda.OutOfMemoryError(OUT_OF_MEMORY)
        return real_to(self, *args, **kwargs)

    # a device move resolves the name through model.core.devices (load_checkpoint keeps its own reference)
    monkeypatch.setattr(model.core.devices, "resolve_device", resolve_as_if_cuda_were_there)
    monkeypatch.setattr(Transformer, "to", to_that_fails_on_cuda)
    received = messages_of(session)
    session.set_device("cuda")
    harness.wait_idle()
    monkeypatch.undo()
    notice = f"out of memory on cuda while moving the model ({OUT_OF_MEMORY}); using CPU instead"
    assert received[-1] == ("warning", notice) and window.message_label.text() == notice
    assert session.model.device == "cpu" and checked_device(window) == "cpu"
    assert session.cursor == 1 and session.snapshot.output_ids == engine_ids(tiny_checkpoint_path, 2)
    step(harness)
    assert session.snapshot.output_ids == engine_ids(tiny_checkpoint_path, 3)


def test_the_out_of_memory_message_says_where_while_doing_what_and_what_to_try():
    error = torch.OutOfMemoryError(OUT_OF_MEMORY + "\n(GPU 0; 8.00 GiB total capacity; see the docs)")
    assert out_of_memory_message("cuda:0", "stepping", error) == (
        f"out of memory on cuda:0 while stepping: {OUT_OF_MEMORY} — try a shorter source or the CPU"
    )
    assert out_of_memory_message("cpu", "stepping", MemoryError()) == (
        "out of memory on cpu while stepping — try a shorter source or a smaller model"
    )
    assert out_of_memory_message("cuda", "loading the checkpoint", error, source_sized=False) == (
        f"out of memory on cuda while loading the checkpoint: {OUT_OF_MEMORY} — try the CPU"
    )


def test_running_out_of_memory_while_loading_says_so_and_keeps_the_old_model(
    harness, monkeypatch, tmp_path, tiny_checkpoint_path
):
    session, window = harness.session, harness.window
    step(harness, 2)
    before = session.snapshot

    def load_without_memory(path, device="auto"):
        raise MemoryError("Unable to allocate 2.00 GiB for an array with shape (524288, 1024)")

    monkeypatch.setattr(model.transformer.checkpoint, "load_checkpoint", load_without_memory)
    window.open_checkpoint(tiny_checkpoint_path)
    harness.wait_idle()
    monkeypatch.undo()
    assert window.message_label.text() == (
        "out of memory on cpu while loading the checkpoint: Unable to allocate 2.00 GiB for an array"
        " with shape (524288, 1024) — try a smaller model"
    )
    assert session.model.path == tiny_checkpoint_path and session.snapshot is before
    close_error_dialog(harness)
    step(harness)
    assert session.snapshot.output_ids == engine_ids(tiny_checkpoint_path, 3)


def out_of_memory_after(calls: int):
    """A ``GenerationEngine.step`` that works ``calls`` times, then runs out of memory."""
    real_step = GenerationEngine.step
    taken = []

    def step_then_fail(self, force=None):
        if len(taken) >= calls:
            raise torch.OutOfMemoryError(OUT_OF_MEMORY)
        taken.append(force)
        return real_step(self, force)

    return step_then_fail


def test_running_out_of_memory_while_stepping_says_so_and_keeps_the_generation(
    harness, monkeypatch, tiny_checkpoint_path
):
    session, window = harness.session, harness.window
    step(harness, 2)
    before = session.snapshot
    emptied = []
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)  # as on a CUDA machine
    monkeypatch.setattr(torch.cuda, "empty_cache", lambda: emptied.append(True))
    monkeypatch.setattr(GenerationEngine, "step", out_of_memory_after(0))
    step(harness)
    monkeypatch.undo()
    message = (
        f"out of memory on cpu while stepping: {OUT_OF_MEMORY} — try a shorter source or a smaller model"
    )
    assert window.message_label.text() == message  # one line, no Python class name in front
    assert window.error_dialog.isVisible() and window.error_dialog.text() == message
    assert emptied == [True]  # the device's cached memory was handed back
    assert session.snapshot is before and session.cursor == 1 and session.model.device == "cpu"
    close_error_dialog(harness)
    step(harness)
    assert session.snapshot.output_ids == engine_ids(tiny_checkpoint_path, 3) and session.cursor == 2


def test_running_out_of_memory_half_way_to_the_end_leaves_the_generation_as_shown(
    harness, monkeypatch, tiny_checkpoint_path
):
    """Steps taken before the failure are undone on the worker too: the next step is step 3."""
    session = harness.session
    step(harness, 2)
    monkeypatch.setattr(GenerationEngine, "step", out_of_memory_after(5))
    session.run_to_end()
    harness.wait_idle()
    monkeypatch.undo()
    assert "out of memory on cpu while stepping" in harness.window.message_label.text()
    assert len(session.snapshot.steps) == 2
    close_error_dialog(harness)
    step(harness)
    assert session.snapshot.output_ids == engine_ids(tiny_checkpoint_path, 3)


def test_running_out_of_memory_while_forcing_a_token_keeps_the_steps_shown(
    harness, monkeypatch, tiny_checkpoint_path
):
    """A branch cuts the generation back before it steps: a failed step must undo the cut."""
    session = harness.session
    step(harness, 4)
    session.go_to_step(1)
    monkeypatch.setattr(GenerationEngine, "step", out_of_memory_after(0))
    session.force_token(session.snapshot.tokenizer.encode("z").ids[0])
    harness.wait_idle()
    monkeypatch.undo()
    assert "out of memory on cpu while forcing a token" in harness.window.message_label.text()
    close_error_dialog(harness)
    assert len(session.snapshot.steps) == 4 and session.cursor == 1
    session.go_to_step(3)
    step(harness)
    assert session.snapshot.output_ids == engine_ids(tiny_checkpoint_path, 5) and session.cursor == 4


# -- exceptions in the worker ---------------------------------------------------------------
@pytest.mark.parametrize(
    ("error", "message"),
    [
        (RuntimeError("simulated failure inside the model\nmore detail"), "RuntimeError: simulated failure"),
        (ZeroDivisionError("division by zero"), "ZeroDivisionError: division by zero"),
        (KeyError(), "KeyError while stepping"),
    ],
)
def test_an_unexpected_exception_is_shown_in_one_line_and_stepping_goes_on(
    harness, monkeypatch, tiny_checkpoint_path, error, message
):
    session, window = harness.session, harness.window
    step(harness)
    before = session.snapshot

    def explode(self, force=None):
        raise error

    monkeypatch.setattr(GenerationEngine, "step", explode)
    step(harness)
    monkeypatch.undo()
    assert window.message_label.text().startswith(message) and "\n" not in window.message_label.text()
    assert window.error_dialog.isVisible()
    assert session.snapshot is before and session.cursor == 0
    close_error_dialog(harness)
    step(harness)
    assert session.snapshot.output_ids == engine_ids(tiny_checkpoint_path, 2)


def test_a_source_that_cannot_run_keeps_the_previous_generation_steppable(harness, tiny_checkpoint_path):
    session, window = harness.session, harness.window
    step(harness, 2)
    window.source_bar.edit.setText("")
    window.source_bar.run()
    harness.wait_idle()
    assert window.message_label.text().startswith("the source is empty")
    assert session.source == SOURCE and len(session.snapshot.steps) == 2
    close_error_dialog(harness)
    step(harness)  # the worker must not take this step for a stale one
    assert session.snapshot.output_ids == engine_ids(tiny_checkpoint_path, 3)


def test_each_error_dialog_replaces_the_one_before(harness):
    """A long session's errors do not pile up as hidden dialogs (children of the window)."""
    window = harness.window
    for _ in range(3):
        harness.session.set_source("")
        harness.wait_idle()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    assert window.findChildren(QMessageBox) == [window.error_dialog]
    assert window.error_dialog.isVisible()
    close_error_dialog(harness)


# -- closing mid-work -----------------------------------------------------------------------
def test_closing_the_window_while_playing_stops_cleanly(harness):
    session, window = harness.session, harness.window
    window.step_controls.speed.setValue(30)
    session.toggle_play()
    harness.qtbot.waitUntil(lambda: len(session.snapshot.steps) >= 3, timeout=EVENT_MS)
    window.close()
    assert not window.bridge.thread.isRunning()
    assert not session.playing and not window.play_timer.isActive()
    shown = session.snapshot
    harness.qtbot.wait(100)  # let a result that was on its way arrive
    QApplication.processEvents()
    assert session.snapshot is shown  # nothing is applied to a closed window's session


@pytest.fixture
def large_checkpoint_path(tmp_path):
    """A random-weight model that takes a while to load (~20 MB)."""
    return save_large_checkpoint(tmp_path / "large.safetensors")


def test_closing_the_window_while_a_checkpoint_loads_stops_cleanly(
    harness, monkeypatch, large_checkpoint_path, tiny_checkpoint_path
):
    session, window = harness.session, harness.window
    started, release = threading.Event(), threading.Event()
    real_load = model.transformer.checkpoint.load_checkpoint

    def slow_load(path, device="auto"):
        started.set()
        release.wait(10)  # held until the window is closing: the close lands mid-load
        return real_load(path, device)

    monkeypatch.setattr(model.transformer.checkpoint, "load_checkpoint", slow_load)
    window.open_checkpoint(large_checkpoint_path)
    harness.qtbot.waitUntil(started.is_set, timeout=EVENT_MS)
    releaser = threading.Timer(0.2, release.set)  # the GUI thread waits inside close()
    releaser.start()
    window.close()
    releaser.join()
    assert not window.bridge.thread.isRunning()
    harness.qtbot.wait(100)
    QApplication.processEvents()
    assert session.model.path == tiny_checkpoint_path  # the late load is not applied
    assert window.bridge.worker.checkpoint is None  # a closed window keeps no model


# -- a new checkpoint while a generation plays ----------------------------------------------
def test_opening_a_checkpoint_while_playing_stops_and_shows_the_new_model(harness, tmp_path):
    session, window = harness.session, harness.window
    other_model, tokenizer = small_model(seed=3, n_heads=2, n_decoder_layers=3, max_len=40)
    other = tmp_path / "other.safetensors"
    save_checkpoint(other, other_model, tokenizer)
    window.show_panel("masks")  # a panel that asks the worker for computations as it plays
    window.step_controls.speed.setValue(30)
    session.toggle_play()
    harness.qtbot.waitUntil(lambda: len(session.snapshot.steps) >= 2, timeout=EVENT_MS)
    window.open_checkpoint(other)
    harness.qtbot.waitUntil(lambda: session.model.path == other, timeout=EVENT_MS)
    harness.wait_idle()
    # a new model starts a new generation from its first step: playing stops there
    assert not session.playing and not window.play_timer.isActive()
    assert window.actions_by_name["play"].text() == "Play"
    assert session.model.family == describe(other_model.config)
    assert session.snapshot.info == describe(other_model.config)  # not a late step of the old model
    assert session.snapshot.steps == () and session.cursor == -1
    step(harness, 2)
    assert session.snapshot.info == describe(other_model.config) and len(session.snapshot.steps) == 2
    expected = GenerationEngine(TransformerFamily(other_model, tokenizer), SOURCE)
    expected.step(), expected.step()
    assert session.snapshot.output_ids == expected.output_ids
    window.show_panel("attention")


def test_a_computation_cut_off_by_a_model_load_is_dropped_not_shown_as_an_error():
    session = Session()
    sent, received = [], messages_of(session)
    session.request.connect(sent.append)
    tokenizer = default_tokenizer()
    info = ModelInfo(None, describe(small_config(len(tokenizer))), tokenizer, "cpu", {})
    session.model = info
    session.playing = True
    session.compute(("panel", "old source"), lambda model_family, snapshot: 1)
    session.open_checkpoint("other.safetensors")
    compute, load = sent
    session.apply(ModelLoaded(load.id, info))
    session.playing = True
    session.apply(RequestFailed(compute.id, "compute", "index out of range"))
    assert [level for level, _ in received] == ["info"]  # "loaded …", no error
    assert session.playing and session.failed == {} and session.computed == {}
    session.apply(Computed(compute.id, 0, ("panel", "old source"), 1))
    assert session.computed == {}


def test_a_failed_start_overtaken_by_a_newer_one_does_not_undo_it():
    session = Session()
    sent = []
    session.request.connect(sent.append)
    tokenizer = default_tokenizer()
    session.model = ModelInfo(None, describe(small_config(len(tokenizer))), tokenizer, "cpu", {})
    session.set_source("")
    session.set_source("reverse: abc")
    failing, newer = sent
    session.apply(RequestFailed(failing.id, "start", "the source is empty"))
    assert session.generation == newer.generation and session.source == "reverse: abc"


def test_panel_answers_are_bounded():
    from visualizer.state.session import MAX_COMPUTED

    session = Session()
    sent = []
    session.request.connect(sent.append)
    session.model = object()
    for number in range(3 * MAX_COMPUTED):
        session.compute(("k", number), lambda model_family, snapshot: None)
        session.apply(Computed(sent[-1].id, 0, ("k", number), number))
    assert len(session.computed) == MAX_COMPUTED
    assert list(session.computed) == [("k", n) for n in range(2 * MAX_COMPUTED, 3 * MAX_COMPUTED)]
    session.compute(("k", 0), lambda model_family, snapshot: None)  # forgotten: asked again
    assert sent[-1].key == ("k", 0)
