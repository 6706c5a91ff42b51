"""An output <unk> filled by attention, as the window shows it: the timeline chip, the Output
line and the amber line under the source box (the rare-word lesson)."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QTextDocument

from model.shipped import default_checkpoint_path
from tests.visualizer.conftest import window_on
from tests.waits import EVENT_MS
from visualizer.widgets.output_line import COPIED_STYLE

SOURCE = "reverse: 我爱你"  # 爱 is not in the vocabulary


@pytest.fixture
def shipped(qtbot, settings):
    yield from window_on(qtbot, settings, default_checkpoint_path())


def run_to_end(harness, source: str) -> None:
    harness.window.source_bar.edit.setText(source)
    harness.session.set_source(source)
    harness.wait_idle()
    harness.session.run_to_end()
    harness.qtbot.waitUntil(lambda: harness.session.snapshot.stop_reason is not None, timeout=EVENT_MS)
    harness.wait_idle()


def test_the_copied_character_is_marked_in_the_timeline_and_the_output_line(shipped):
    run_to_end(shipped, SOURCE)
    window, snapshot = shipped.window, shipped.session.snapshot
    (copy,) = snapshot.copies.values()
    assert copy.character == "爱" and copy.step == 1
    chips = window.timeline.buttons
    shipped.qtbot.waitUntil(lambda: len(chips) >= 3, timeout=EVENT_MS)
    assert [chip.text() for chip in chips[:3]] == ["你", "爱", "我"]
    assert chips[1].property("copied") is True and not chips[0].property("copied")
    weight = f"{copy.weight:.3f}"
    assert "copied by attention from source position 10" in chips[1].toolTip()
    assert f"layer 3, head {copy.head + 1} put {weight} there" in chips[1].toolTip()
    line = window.output_label
    assert f"<span style='{COPIED_STYLE}'>爱</span>" in line.text()
    document = QTextDocument()
    document.setHtml(line.text())
    assert document.toPlainText().startswith("Output: 你爱我")
    assert line.toolTip().splitlines()[0] == "你爱我"
    assert "copied by attention from source position 10" in line.toolTip()
    # the amber line says what happens to the unknown character
    outside = window.source_bar.outside
    assert outside.isVisible()
    assert "copied from the source position cross-attention points at" in outside.text()


def test_sort_says_it_cannot_know_where_an_unknown_character_belongs(shipped):
    shipped.window.source_bar.edit.setText("sort: 我爱你")
    shipped.wait_idle()
    text = shipped.window.source_bar.outside.text()
    assert "sort: cannot know where an unknown character belongs" in text
