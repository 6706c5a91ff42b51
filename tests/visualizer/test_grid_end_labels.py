"""The token labels at the ends of a sequence are kept: <eos> under the grid's cross- and
encoder self-attention keys (it was always dropped: wide and last, it touched the label before
it or the next column's first), the decoder self-attention's last key, and in the enlarged
head, moved inside its plot rather than cut by what lies beyond."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QImage, QPainter

from tests.visualizer.test_layout import assert_apart, grid_label_rects
from visualizer.widgets.heatmap import TokenAxis

SOURCE = "reverse: attention"  # 19 keys with <eos>: narrower cells than "<eos>" at 1024x700


def shown_keys(grid) -> dict[int, list[str]]:
    """The key labels the grid shows, by column."""
    layout = grid.layout_
    columns: dict[int, list[tuple[float, str]]] = {}
    for place in grid.tokens.places:
        if place is not None and place[3]:
            text, x, _y, _is_key = place
            columns.setdefault(int(x // layout.pitch), []).append((x, text))
    return {column: [text for _x, text in sorted(labels)] for column, labels in columns.items()}


def drawn_labels(axis) -> list:
    """(rect, text) of each label the axis draws, in its own coordinates, left to right."""
    image = QImage(8, 8, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    try:
        texts = axis.generateDrawSpecs(painter)[2]
    finally:
        painter.end()
    return sorted(((rect, text) for rect, _flags, text in texts), key=lambda label: label[0].left())


def shown(harness, kind: str):
    harness.session.set_kind(kind)
    harness.qtbot.wait(30)  # the viewbox applies its range when it paints
    harness.window.grid.repaint()
    return harness.window.grid


@pytest.mark.parametrize("size", [(1024, 700), (1440, 900)])
def test_the_grid_and_the_enlarged_head_keep_the_end_labels(harness, size):
    harness.window.resize(*size)
    harness.session.set_source(SOURCE)
    harness.wait_idle()
    for _ in range(5):
        harness.session.step_forward()
        harness.wait_idle()
    snapshot = harness.session.snapshot
    assert snapshot.encoder.tokens[-1] == "<eos>"
    last_read = snapshot.tokenizer.token_text(snapshot.steps[-1].input_id)
    for kind, first, last in (
        ("cross", "r", "<eos>"),
        ("enc_self", "r", "<eos>"),
        ("dec_self", "<bos>", last_read),
    ):
        grid = shown(harness, kind)
        columns = shown_keys(grid)
        assert len(columns) == grid.layout_.columns, kind
        for labels in columns.values():  # every column alike
            assert labels[0] == first and labels[-1] == last, (kind, labels)
        box, rects = grid_label_rects(grid)
        for rect in rects:
            assert box.contains(rect), (kind, rect, box)
        assert_apart(rects, f"{kind} grid")
        # the enlarged head: the last label drawn inside the plot (a few pixels past its end at most)
        axis = harness.window.detail.matrix.plot.getAxis("bottom")
        assert isinstance(axis, TokenAxis)
        labels = drawn_labels(axis)
        assert labels[0][1] == first and labels[-1][1] == last, (kind, labels)
        width = axis.mapRectFromParent(axis.geometry()).width()
        for rect, text in labels:
            assert rect.left() >= -TokenAxis.PAST_END and rect.right() <= width + TokenAxis.PAST_END, text
        assert_apart([rect for rect, _text in labels], f"{kind} detail")


