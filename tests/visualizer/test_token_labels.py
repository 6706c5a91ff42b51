"""One label for a token everywhere (``display_token``: a space is ␣), drawn whole: the token
axes of the Why ÷√d_k, Attribution, Compare and Train pages, the Output line and the
timeline, whose current chip stays in view on a long output."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QRect
from PySide6.QtGui import QFontMetrics, QFontMetricsF, QImage, QPainter, QTextDocument

from model.shipped import default_checkpoint_path
from tests.visualizer.conftest import window_on
from tests.waits import EVENT_MS
from visualizer.widgets.heatmap import display_token

SPACED = "sort: a b c d"  # spaces in the source: ␣ on every axis
LONG = "sort: the quick brown fox jumps over the lazy dog"  # 43 characters, as many steps


def stepped(harness, source: str, steps: int) -> None:
    harness.session.set_source(source)
    harness.wait_idle()
    for _ in range(steps):
        harness.session.step_forward()
        harness.wait_idle()


def panel_of(harness, key: str):
    harness.window.show_panel(key)
    harness.wait_idle()
    return next(p for p in harness.window.panels if p.key == key)


def assert_drawn_whole(qtbot, axis) -> list[str]:
    """Once painted, the axis draws each of its labels whole: the ink inside the area the axis
    paints, a pixel to spare (pyqtgraph reserved 0.8 of a line, and ␣, which reaches below the
    font's descent, lost its bar and showed as ".."). Returns the labels drawn."""
    for view in axis.scene().views():
        view.grab()  # painted, as on screen: pyqtgraph sizes an axis by what it last painted
    # and laid out at the height the axis asks for
    qtbot.waitUntil(lambda: axis.geometry().height() >= axis.minimumHeight(), timeout=EVENT_MS)
    font = axis.style["tickFont"] or axis.font()
    image = QImage(8, 8, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    painter.setFont(font)  # as the axis paints: it measures its labels with the painter's font
    try:
        _axis, _ticks, texts = axis.generateDrawSpecs(painter)
    finally:
        painter.end()
    metrics = QFontMetricsF(font)
    painted = axis.boundingRect()
    drawn = [text for _rect, _flags, text in texts]
    assert "␣" in drawn
    # each label is drawn from the top of its rectangle; ␣ first, the label that lost its bar
    for rect, _flags, text in sorted(texts, key=lambda spec: spec[2] != "␣"):
        ink = metrics.tightBoundingRect(text).translated(rect.center().x(), rect.top() + metrics.ascent())
        assert ink.bottom() + 1 <= painted.bottom(), (text, ink, painted)
        assert ink.top() >= painted.top(), (text, ink, painted)
    return drawn


def assert_labels(qtbot, axis, tokens) -> None:
    """The token axis labels exactly ``display_token`` of ``tokens``, each drawn whole."""
    assert axis.tokens == [display_token(t) for t in tokens]
    assert "␣" in axis.tokens
    assert_drawn_whole(qtbot, axis)


def test_the_why_scaling_page_labels_spaces_as_the_grid_does(harness):
    stepped(harness, SPACED, 3)
    harness.session.set_kind("cross")
    panel = panel_of(harness, "scaling")
    harness.qtbot.waitUntil(lambda: bool(panel.scaled.plot.getAxis("bottom").tokens), timeout=EVENT_MS)
    tokens = harness.session.snapshot.encoder.tokens
    for cell in (panel.scaled, panel.unscaled):
        assert_labels(harness.qtbot, cell.plot.getAxis("bottom"), tokens)


def test_the_attribution_page_labels_spaces_as_the_grid_does(harness):
    stepped(harness, SPACED, 3)
    panel = panel_of(harness, "attribution")
    harness.qtbot.waitUntil(lambda: panel.result is not None, timeout=EVENT_MS)
    result, step = panel.result, harness.session.cursor
    tokens = [*result.source_tokens, *result.read_tokens[: step + 1]]
    assert_labels(harness.qtbot, panel.rows.plot.getAxis("bottom"), tokens)


def test_the_compare_pages_bottom_row_labels_spaces_as_the_grid_does(harness, tiny_checkpoint_path):
    stepped(harness, SPACED, 3)
    harness.session.set_kind("cross")
    window = harness.window
    window.compare_with(tiny_checkpoint_path, "no_scaling")
    view = window.compare.view
    harness.qtbot.waitUntil(lambda: view.shown_difference is not None, timeout=EVENT_MS)
    tokens = harness.session.snapshot.encoder.tokens
    for cell in view.cells:  # A, B and A − B
        assert_labels(harness.qtbot, cell.plot.getAxis("bottom"), tokens)


def test_the_train_pages_probe_labels_spaces_as_the_grid_does(harness):
    harness.window.show_panel("train")
    panel = harness.window.train_panel()
    probe = panel.probe_view
    probe.show_trace(None, "")  # as before the first trace arrives: painted with no labels
    probe.grab()
    panel.probe.setText("reverse: a b c")
    panel.probe.editingFinished.emit()
    harness.qtbot.waitUntil(
        lambda: probe.trace is not None and probe.trace.source_tokens[:8] == list("reverse:"),
        timeout=EVENT_MS,
    )
    panel.kind.setCurrentIndex(panel.kind.findData("cross"))
    harness.qtbot.waitUntil(lambda: probe.kind == "cross", timeout=EVENT_MS)
    assert_labels(harness.qtbot, probe.big.plot.getAxis("bottom"), probe.trace.source_tokens)


def shown_text(label) -> str:
    document = QTextDocument()
    document.setHtml(label.text())
    return document.toPlainText()


def test_the_output_line_shows_every_space_as_the_grid_does(harness):
    line = harness.window.output_label
    line.show_output("Output:", "  ab", " c", "(step 4 of 6)")
    assert shown_text(line) == "Output: ␣␣ab␣c (step 4 of 6)"
    assert line.toolTip() == "  ab c"  # the text itself is a hover away
    # and as the window writes it: a source whose answer starts with spaces
    stepped(harness, SPACED, 3)
    snapshot, cursor = harness.session.snapshot, harness.session.cursor
    shown = "".join(display_token(c) for c in snapshot.output_text(cursor + 1))
    assert f"Output: {shown}" in shown_text(line)


@pytest.fixture
def shipped(qtbot, settings):
    yield from window_on(qtbot, settings, default_checkpoint_path())


def test_the_decoding_pages_bars_label_spaces_as_the_grid_does(shipped):
    panel = panel_of(shipped, "decoding")
    panel.plot.scene().views()[0].grab()  # painted before the first step: no bars, no labels
    stepped(shipped, SPACED, 1)  # the shipped model's answer starts with a space
    snapshot = shipped.session.snapshot
    assert snapshot.tokenizer.token_text(snapshot.steps[0].token_id) == " "
    drawn = assert_drawn_whole(shipped.qtbot, panel.plot.getAxis("bottom"))
    ids = [i for i in panel.bars.token_ids if i is not None]  # the last bar may be "rest"
    expected = [display_token(snapshot.tokenizer.token_text(i)) for i in ids]
    assert drawn[: len(expected)] == expected


def chip_in_view(timeline, chip) -> bool:
    place = QRect(chip.mapTo(timeline.viewport(), QPoint(0, 0)), chip.size())
    return timeline.viewport().rect().contains(place)


def laid_out(timeline, count: int) -> bool:
    """The timeline has a chip for each step, shown, each right of the one before it."""
    chips = [timeline.start, *timeline.buttons[:count]]
    return (
        len(chips) == count + 1
        and all(chip.isVisible() for chip in chips)
        and all(a.geometry().right() < b.x() for a, b in zip(chips, chips[1:], strict=False))
    )


def assert_whole(chip) -> None:
    """The chip is as wide as its text and the style's padding (5 px) and border (1 px) each side."""
    assert chip.width() >= QFontMetrics(chip.font()).horizontalAdvance(chip.text()) + 12, chip.text()


def test_the_timeline_keeps_the_current_chip_in_view_and_the_first_chip_whole(shipped):
    window, session = shipped.window, shipped.session
    window.resize(1024, 700)
    session.set_source(LONG)
    shipped.wait_idle()
    timeline = window.timeline
    scrolled = []  # every scroll position the timeline took
    timeline.horizontalScrollBar().valueChanged.connect(scrolled.append)
    for _ in range(40):
        session.step_forward()
        shipped.wait_idle()
        shipped.qtbot.waitUntil(lambda: laid_out(timeline, session.cursor + 1), timeout=EVENT_MS)
        chip = timeline.buttons[session.cursor]
        assert chip_in_view(timeline, chip), session.cursor
    assert timeline.horizontalScrollBar().value() > 0  # 41 chips are wider than the window
    assert scrolled == sorted(scrolled)  # stepping forward, it never jumped back to the start
    assert_whole(timeline.start)
    assert timeline.start.text() == "<bos>"  # the model's own start token, as the grid names it
    for chip in timeline.buttons:
        assert_whole(chip)
    # back to the start: the first chip comes into view again, whole
    session.go_to_step(-1)
    shipped.wait_idle()
    assert chip_in_view(timeline, timeline.start)
