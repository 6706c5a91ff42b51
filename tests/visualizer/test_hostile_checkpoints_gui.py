"""Every hostile checkpoint of the corpus, opened in the window: a dialog, nothing lost.

The corpus (tests/model/test_hostile_checkpoints.py) is opened file after file in one window
holding a good model and a generation: each shows its loader message in the error dialog,
the model, the generation and the shown step stay, nothing in a file runs, and the window
still steps at the end.
"""

import os

from model.transformer.checkpoint import save_checkpoint
from tests.factories import small_model
from tests.model.test_hostile_checkpoints import CORPUS, MARKER


def test_each_hostile_checkpoint_shows_its_message_and_keeps_the_model(
    harness, tiny_checkpoint_path, tmp_path
):
    harness.open(tiny_checkpoint_path)
    harness.session.step_forward()
    harness.wait_idle()
    model, snapshot, cursor = harness.session.model, harness.session.snapshot, harness.session.cursor
    good = tmp_path / "valid.safetensors"
    save_checkpoint(good, *small_model(seed=4), {"note": "the corpus starts from this file"})
    valid = good.read_bytes()
    shown = 0
    for name, (build, message) in sorted(CORPUS.items()):
        if name == "fifo" and not hasattr(os, "mkfifo"):
            continue
        where = tmp_path / name
        where.mkdir()
        path = build(valid, where)
        harness.window.open_checkpoint(path)
        harness.wait_idle()
        dialog = harness.window.error_dialog
        assert dialog is not None and dialog.isVisible(), name
        assert message in dialog.text() and "\n" not in dialog.text(), (name, dialog.text())
        assert dialog.text().startswith((path.name, str(path))), (name, dialog.text())  # the file, first
        assert harness.window.message_label.text() == dialog.text()
        assert harness.session.model is model and harness.session.snapshot is snapshot, name
        assert harness.session.cursor == cursor
        assert not (where / MARKER).exists(), f"{name}: code in the file ran"
        dialog.close()
        shown += 1
    assert shown >= len(CORPUS) - 1
    harness.session.step_forward()
    harness.wait_idle()
    assert len(harness.session.snapshot.steps) == len(snapshot.steps) + 1
