"""Strange text in the window: refused with a message that keeps what was shown, or run.

The tiny random-weight model (max_len 48) reads any text; characters outside its vocabulary
become <unk> and are named in the status bar.
"""

from pathlib import Path

import pytest
import torch
from PySide6.QtCore import QPointF

from model.tasks.pick import PICK_NAMES
from model.transformer.checkpoint import save_checkpoint
from tests.factories import small_model


def shown(harness) -> tuple:
    snapshot = harness.session.snapshot
    return snapshot.source, len(snapshot.steps), harness.session.cursor


def messages(harness) -> list[tuple[str, str]]:
    received = []
    harness.session.message.connect(lambda level, text: received.append((level, text)))
    return received


@pytest.fixture
def ready(harness, tiny_checkpoint_path):
    harness.open(tiny_checkpoint_path)
    harness.session.step_forward()
    harness.session.step_forward()
    harness.wait_idle()
    return harness


@pytest.mark.parametrize(
    "text, says",
    [("x" * 200, "at most 47"), ("", "empty")],
    ids=["longer than max_len", "empty"],
)
def test_a_source_the_model_cannot_read_is_refused_and_the_generation_kept(ready, text, says):
    before = shown(ready)
    received = messages(ready)
    ready.session.set_source(text)
    ready.wait_idle()
    assert any(level == "error" and says in message for level, message in received), received
    assert ready.window.message_label.text() == next(m for level, m in received if level == "error")
    assert shown(ready) == before
    ready.session.step_forward()  # the kept generation still steps
    ready.wait_idle()
    assert len(ready.session.snapshot.steps) == before[1] + 1
    if ready.window.error_dialog is not None:
        ready.window.error_dialog.close()


@pytest.mark.parametrize(
    "text",
    [
        "reverse: 😀 emoji",
        "reverse: שלום עולם",  # right-to-left
        "reverse: e\u0301 combining",  # e + a combining acute accent
        "reverse: tab\there\x00nul\x1bescape",  # control characters
        "reverse: <pad><eos><bos>",  # special-token names as plain text
        "   ",  # whitespace only: runnable text
    ],
    ids=["emoji", "rtl", "combining", "control", "special-names", "whitespace"],
)
def test_any_text_runs_and_unknown_characters_are_named(ready, text):
    received = messages(ready)
    ready.session.set_source(text)
    ready.wait_idle()
    snapshot = ready.session.snapshot
    assert snapshot.source == text
    tokenizer = snapshot.tokenizer
    src_ids = list(snapshot.encoder.src_ids)
    assert src_ids[-1] == tokenizer.eos_id and len(src_ids) == len(text) + 1
    assert all(i >= 4 or i == tokenizer.unk_id for i in src_ids[:-1])  # no special token from text
    unknown = [char for char in text if char not in tokenizer.index or tokenizer.index[char] < 4]
    assert [char for _, char in snapshot.encoder.unknown] == unknown
    if unknown:
        warning = next(message for level, message in received if level == "warning")
        assert "<unk>" in warning and repr(unknown[0]) in warning
    else:
        assert not [m for level, m in received if level in ("warning", "error")]
    ready.session.run_to_end()
    ready.wait_idle()
    assert ready.session.snapshot.stop_reason in ("eos", "max_length")


def test_reaching_the_maximum_length_stops_cleanly_and_says_so(harness, tmp_path):
    # all-zero logits: the argmax is always token 0, never <eos>, so only max_len stops it
    model, tokenizer = small_model(seed=2, max_len=12)
    with torch.no_grad():
        model.generator.weight.zero_()
    path = tmp_path / "never-ends.safetensors"
    save_checkpoint(path, model, tokenizer, {})
    harness.session.source = "abc"
    harness.open(path)
    received = messages(harness)
    harness.session.run_to_end()
    harness.wait_idle()
    snapshot = harness.session.snapshot
    assert snapshot.stop_reason == "max_length" and len(snapshot.steps) == 12
    assert ("warning", "stopped at the maximum length of 12 tokens") in received
    assert "maximum length" in harness.window.message_label.text()
    harness.session.step_forward()  # nothing more to compute: stepping on changes nothing
    harness.wait_idle()
    assert harness.session.snapshot is snapshot


def test_exporting_a_trace_asks_before_replacing_a_lone_json(ready, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QFileDialog, QMessageBox

    companion = tmp_path / "trace.json"
    companion.write_text("keep me")
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(tmp_path / "trace.npz"), ""))
    asked = []

    def answer(_parent, _title, text, *args):
        asked.append(text)
        return QMessageBox.StandardButton.No

    monkeypatch.setattr(QMessageBox, "question", answer)
    assert ready.window.export_trace() is False
    assert asked and "trace.json" in asked[0]
    assert companion.read_text() == "keep me" and not (tmp_path / "trace.npz").exists()
    monkeypatch.setattr(QMessageBox, "question", lambda *a: QMessageBox.StandardButton.Yes)
    assert ready.window.export_trace() is True
    assert (tmp_path / "trace.npz").exists() and companion.read_text() != "keep me"


def test_exporting_a_trace_typed_without_its_suffix_asks_before_replacing_the_npz(
    ready, tmp_path, monkeypatch
):
    from PySide6.QtWidgets import QFileDialog, QMessageBox

    existing = tmp_path / "foo.npz"
    existing.write_bytes(b"keep me")
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(tmp_path / "foo"), ""))
    asked = []
    monkeypatch.setattr(
        QMessageBox, "question", lambda _p, _t, text, *a: asked.append(text) or QMessageBox.StandardButton.No
    )
    assert ready.window.export_trace() is False
    assert asked and "foo.npz" in asked[0]
    assert existing.read_bytes() == b"keep me"


def test_examples_menu_offers_fresh_and_chosen_inputs_per_task(harness):
    bar = harness.window.source_bar
    menu = bar.examples.menu()
    submenus = {action.text(): action.menu() for action in menu.actions() if action.menu()}
    assert list(submenus) == ["reverse: …", "sort: …", "date: …", "pick: …"]
    date_texts = [a.text() for a in submenus["date: …"].actions()]
    ambiguous = next(a for a in submenus["date: …"].actions() if a.text().startswith("date: 03/04/2026"))
    assert "ambiguous" in ambiguous.text() and len(date_texts) >= 6
    ambiguous.trigger()
    harness.wait_idle()
    assert harness.session.source == "date: 03/04/2026" == bar.edit.text()
    fresh = submenus["date: …"].actions()[0].menu()
    us_form = next(a for a in fresh.actions() if a.text() == "11/29/2026")  # mm/dd/yyyy, shown by a date
    us_form.trigger()
    harness.wait_idle()
    task, text = harness.session.source.split(": ", 1)
    assert task == "date" and "/" in text and harness.session.source == bar.edit.text()
    picks = [a.text().split("    ")[0] for a in submenus["pick: …"].actions()]
    assert picks == [f"pick: {category}" for category in PICK_NAMES]
    harness.session.set_language("zh")
    assert "有歧义" in ambiguous.text() and fresh.title() == "随机生成一个新输入"
    harness.session.set_language("en")


@pytest.fixture
def described_checkpoint(tmp_path):
    """A small model whose metadata says what it was trained on, as attnviz train writes it."""
    from model.tasks.coverage import trained_on
    from model.tasks.synthetic import TASK_NAMES

    model, tokenizer = small_model(seed=3)
    path = tmp_path / "described.safetensors"
    info = {
        "recipe_name": "tiny",
        "steps_done": 30,
        "train_seconds": 120.0,
        "initialized_from": {
            "checkpoint": "first.safetensors",
            "recipe_name": "default",
            "steps_done": 8000,
            "train_seconds": 6000.0,
        },
        "trained_on": trained_on(TASK_NAMES),
        "eval": {"reverse": {"accuracy": 0.5, "n": 10}, "date/cjk_digits": {"accuracy": 1.0, "n": 1}},
    }
    save_checkpoint(path, model, tokenizer, info)
    return path


def test_the_source_box_says_when_a_source_is_outside_the_training_data(harness, described_checkpoint):
    bar = harness.window.source_bar
    assert not bar.outside.isVisible()  # the test model's metadata says nothing about its training
    bar.edit.setText("hello")
    assert not bar.outside.isVisible()
    harness.open(described_checkpoint)
    assert "no task prefix" in bar.outside.text() and bar.outside.isVisible()
    bar.edit.setText("reverse: " + "x" * 60)
    assert bar.outside.text() == (
        "⚠ 48 characters is the longest reverse: input this model was trained on (this one has 60)"
    )
    bar.edit.setText("reverse: Hello, World!")
    assert not bar.outside.isVisible() and bar.outside.text() == ""
    bar.edit.setText("pick: vegetable")
    harness.session.set_language("zh")
    assert "不是训练过的 pick: 类别" in bar.outside.text()
    harness.session.set_language("en")
    bar.run()  # a warning never blocks running the source
    harness.wait_idle()
    assert harness.session.snapshot.source == "pick: vegetable"


def test_about_this_model_says_what_it_was_trained_on(harness, described_checkpoint):
    from visualizer.state.about_model import about_html

    assert "says nothing about what it was trained on" in about_html(harness.session.model, "en")
    harness.open(described_checkpoint)
    text = about_html(harness.session.model, "en")
    assert "described.safetensors" in text and f"{harness.session.model.family.parameters:,}" in text
    assert "reverse:, sort:, date:, pick:" in text and "1 to 48 of 428 characters" in text
    assert "11 written forms, years 1900–2099" in text and "prime &lt; 50" in text
    assert "30 steps in 2 minutes" in text and "reverse 50.0 %" in text and "cjk_digits" not in text
    assert "weights of first.safetensors (8,000 steps of <b>default</b>, 100 minutes)" in text
    assert "训练过的任务" in about_html(harness.session.model, "zh")
    assert about_html(None, "en") == "No model is loaded."


def test_messages_and_readouts_go_with_the_state_they_belong_to(ready):
    window = ready.window
    ready.session.set_source("x" * 200)  # refused: a red error in the status bar
    ready.wait_idle()
    assert "at most 47" in window.message_label.text() and "c62828" in window.message_label.styleSheet()
    if window.error_dialog is not None:
        window.error_dialog.close()
    ready.session.step_forward()  # the next action clears it
    ready.wait_idle()
    assert window.message_label.text() == "" and window.message_label.styleSheet() == ""
    window.show_hover("query 3 '5' · key 2 'b' · 0.25")  # as the grid reports a hovered cell
    ready.session.step_forward()  # the same source: the readout still describes what is shown
    ready.wait_idle()
    assert window.hover_label.text().startswith("query 3")
    ready.session.set_source("reverse: xyz")  # another source: the readout is stale
    ready.wait_idle()
    assert window.hover_label.text().strip() == ""


def test_the_decoding_hover_line_belongs_to_its_step(ready):
    window = ready.window
    window.show_panel("decoding")
    ready.wait_idle()
    panel = next(p for p in window.panels if p.key == "decoding")
    plot = panel.plot
    centre = plot.vb.mapViewToScene(QPointF(0, 0.01))
    panel.on_mouse_moved(centre)
    assert "click to force" in panel.hover.text()
    ready.session.step_forward()
    ready.wait_idle()
    assert panel.hover.text().strip() == ""


def test_export_names_follow_the_page_step_and_source_in_the_last_folder(ready, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QFileDialog

    from visualizer.state.export_names import export_name

    assert export_name("cross", 5, "reverse: Hello, World!", "png") == "cross-step5-reverse-Hello-World.png"
    assert export_name("masks", 0, "sort: 注意力 / x", "svg") == "masks-step0-sort-注意力-x.svg"
    assert export_name("beam", 2, "::", "png") == "beam-step2-untitled.png"
    assert len(export_name("cross", 1, "reverse: " + "a" * 80, "png")) <= len("cross-step1-") + 40 + 4
    suggested = []

    def save_dialog(_parent, _title, name, _filter):
        suggested.append(name)
        return str(tmp_path / Path(name).name), ""

    monkeypatch.setattr(QFileDialog, "getSaveFileName", save_dialog)
    window, session = ready.window, ready.session
    window.show_panel("decoding")
    assert window.export_png() is True
    step = session.cursor + 1
    source_slug = export_name("x", 0, session.source, "png").split("-step0-")[1]
    assert suggested[-1] == f"decoding-step{step}-{source_slug}"  # no folder yet: the dialog's own
    assert (tmp_path / suggested[-1]).is_file()
    window.show_panel("attention")
    assert window.export_svg() is True
    assert suggested[-1] == str(tmp_path / f"{session.kind}-step{step}-{source_slug[:-4]}.svg")
    assert window.export_trace() is True
    assert suggested[-1] == str(tmp_path / f"trace-step{step}-{source_slug[:-4]}.npz")
