"""Pieces shared by every heatmap: a plot set up for a matrix, token ticks, colours.

Images are built once and updated in place with ``setImage(..., autoLevels=False)``;
attention weights are probabilities, so levels stay fixed at (0, 1). Masked cells are NaN,
which pyqtgraph leaves transparent, so the plot's grey background shows through: masked is
drawn distinctly, never as a colour of the scale.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Iterable, Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF
from PySide6.QtGui import QColor, QFont, QFontMetricsF
from PySide6.QtWidgets import QGraphicsRectItem

# the one token label, kept with the state (hover texts are built there); widgets import it here
from visualizer.state.token_labels import display_token

MASKED_COLOR = "#5a5a5a"
HIGHLIGHT_COLOR = "#ff5252"
SELECTED_COLOR = "#ffb300"
BACKGROUND = "#1e1e1e"


def spaced_labels(
    centres: Sequence[float],
    halves: Sequence[float],
    gap: float,
    low: float = -math.inf,
    high: float = math.inf,
    move: bool = True,
) -> list[tuple[int, float]]:
    """(index, centre) of the labels to draw along one axis: none comes within ``gap`` of
    another, none reaches past ``low`` or ``high`` (``move``: a label near an end is moved
    inside; else it is left out, as is one wider than the room).

    The first and the last label are placed first, then every other one, left to right, that
    clears its kept neighbours. The ends are where a sequence's own tokens stand (<bos>, <eos>,
    a language code), and a pass from the left alone always dropped a wide last label such as
    <eos> against the narrow one before it.
    """
    count = len(centres)
    order = [0, count - 1, *range(1, count - 1)] if count > 1 else list(range(count))
    kept: list[int] = []  # indices, in order along the axis
    placed: dict[int, float] = {}
    for index in order:
        centre, half = centres[index], halves[index]
        if move:
            centre = min(max(centre, low + half), high - half)
        if centre - half < low or centre + half > high:
            continue
        at = bisect.bisect(kept, index)
        before = kept[at - 1] if at > 0 else None
        after = kept[at] if at < len(kept) else None
        if before is not None and centre - half < placed[before] + halves[before] + gap:
            continue
        if after is not None and placed[after] - halves[after] < centre + half + gap:
            continue
        kept.insert(at, index)
        placed[index] = centre
    return [(index, placed[index]) for index in kept]


def fit_label_height(axis: pg.AxisItem, labels: Iterable[str]) -> None:
    """Make a bottom (or top) axis as tall as its labels as drawn: their line (a fallback font's
    taller glyphs included), the ink below it (␣ reaches below the font's descent) and a pixel
    for where the axis's fractional position rounds. pyqtgraph reserves 0.8 of a line, or less
    after painting no labels, which cut the bar off ␣: it showed as "..".
    """
    metrics = QFontMetricsF(axis.style["tickFont"] or axis.font())
    height = metrics.height()
    for text in set(labels):
        line = metrics.boundingRect(QRectF(0, 0, 1000, 1000), 0, text).height()
        ink = metrics.tightBoundingRect(text)  # relative to the baseline
        height = max(height, line, max(metrics.ascent(), -ink.top()) + ink.bottom())
    needed = math.ceil(height) + 1
    if axis.style["autoExpandTextSpace"] or axis.style["tickTextHeight"] != needed:
        axis.setStyle(autoExpandTextSpace=False, tickTextHeight=needed)


class TokenAxis(pg.AxisItem):
    """One label per token, centred on its cell; where the cells are narrower than the labels,
    a label that would touch a neighbour is left out (the first and the last are kept first),
    never a pile-up such as "n<eos>" or "<eos> <bos>". Hovering a cell still names every token.

    A bottom axis is as tall as its labels as drawn (``fit_label_height``), and a label at its
    ends is moved in rather than reach past them: what lies beyond (a colour bar, the next
    plot) would cover it, as it cut <eos> to "<eos".
    """

    GAP = 4  # pixels between neighbouring labels
    PAST_END = 4  # pixels a bottom axis's label may reach past the axis's ends
    # a left axis's: pyqtgraph's, with hideOverlappingLabels=False (a row is rarely shorter)
    OVERHANG = 15

    def __init__(self, orientation: str) -> None:
        super().__init__(orientation)
        self.tokens: list[str] = []
        self.reach = 0.0  # the widest label (pixels): how far past its ends a centred label reaches
        self.enableAutoSIPrefix(False)  # token axes: never "(x0.001)"
        self.setStyle(hideOverlappingLabels=False)  # the first and last label may overhang the ends

    def set_tokens(self, tokens: Sequence[str]) -> None:
        self.tokens = [display_token(t) for t in tokens]
        if self.orientation in ("bottom", "top"):
            fit_label_height(self, self.tokens)
            reach = max(self.label_extents(), default=0.0)
            if reach != self.reach:
                self.prepareGeometryChange()  # the bounding rectangle follows the widest label
                self.reach = reach
        self.picture = None  # pyqtgraph's cached drawing
        self.update()

    def label_font(self) -> QFont:
        return self.style["tickFont"] or self.font()

    def label_extents(self) -> list[float]:
        """Pixels each label needs along the axis: its width across, one line down."""
        metrics = QFontMetricsF(self.label_font())
        if self.orientation in ("bottom", "top"):
            return [metrics.horizontalAdvance(t) for t in self.tokens]
        return [metrics.height() + 1] * len(self.tokens)

    def shown_indices(self, pixels_per_token: float) -> list[int]:
        """The tokens labelled: the ends first, then each label that clears its neighbours by GAP
        pixels, where it is drawn (``generateDrawSpecs`` moves a bottom axis's end labels in)."""
        halves = [extent / 2 for extent in self.label_extents()]
        centres = [(index + 0.5) * pixels_per_token for index in range(len(halves))]
        length = len(halves) * pixels_per_token
        if self.orientation in ("bottom", "top"):
            kept = spaced_labels(centres, halves, self.GAP, -self.PAST_END, length + self.PAST_END)
        else:
            kept = spaced_labels(
                centres, halves, self.GAP, -self.OVERHANG, length + self.OVERHANG, move=False
            )
        return [index for index, _centre in kept]

    def boundingRect(self) -> QRectF:  # noqa: N802 (Qt's name)
        """pyqtgraph's, and room for any label centred on an end cell: pyqtgraph leaves out a
        label reaching past this rectangle, before ``generateDrawSpecs`` can move it in."""
        rect = super().boundingRect()
        if self.orientation in ("bottom", "top") and self.reach:
            rect = rect.adjusted(-self.reach, 0, self.reach, 0)
        return rect

    def generateDrawSpecs(self, p):  # noqa: N802 (pyqtgraph's name)
        """pyqtgraph's, with a bottom axis's labels moved inside its ends (PAST_END pixels
        beyond at most), as ``shown_indices`` placed them; the tick marks stay on their cells."""
        specs = super().generateDrawSpecs(p)
        if specs is None or self.orientation not in ("bottom", "top"):
            return specs
        line, ticks, texts = specs
        low = -self.PAST_END
        high = self.mapRectFromParent(self.geometry()).width() + self.PAST_END
        moved = []
        for rect, flags, text in texts:
            shift = max(0.0, low - rect.left()) or min(0.0, high - rect.right())
            moved.append((rect.translated(shift, 0), flags, text))
        return line, ticks, moved

    def tickValues(self, minVal, maxVal, size):  # noqa: N802, N803 (pyqtgraph's names)
        if not self.tokens:
            return []
        span = abs(maxVal - minVal)  # an inverted axis (rows top-down) passes its range reversed
        if span <= 0 or size <= 0:
            return []
        return [(1.0, [i + 0.5 for i in self.shown_indices(size / span)])]

    def tickStrings(self, values, scale, spacing):  # noqa: N802 (pyqtgraph's name)
        return [self.tokens[int(v)] if 0 <= int(v) < len(self.tokens) else "" for v in values]


class MatrixPlot:
    """One attention matrix in a PlotItem with token axes (the enlarged head)."""

    def __init__(self, plot: pg.PlotItem | pg.ViewBox, colormap: str) -> None:
        self.plot = plot
        self.colormap = colormap
        self.viewbox = plot.getViewBox() if isinstance(plot, pg.PlotItem) else plot
        self.image = pg.ImageItem(axisOrder="row-major")
        self.image.setColorMap(pg.colormap.get(colormap))
        plot.addItem(self.image)
        plot.setMouseEnabled(x=False, y=False)
        plot.setMenuEnabled(False)
        if isinstance(plot, pg.PlotItem):
            plot.hideButtons()
        plot.invertY(True)
        self.viewbox.setBackgroundColor(QColor(MASKED_COLOR))
        if isinstance(plot, pg.PlotItem):
            plot.setAxisItems({"left": TokenAxis("left"), "bottom": TokenAxis("bottom")})
        self.viewbox.setDefaultPadding(0)
        self.row_outline = QGraphicsRectItem()
        self.row_outline.setPen(pg.mkPen(HIGHLIGHT_COLOR, width=2, cosmetic=True))
        self.row_outline.setZValue(10)
        self.row_outline.hide()
        plot.addItem(self.row_outline)
        self.shape: tuple[int, int] | None = None

    def show_matrix(
        self, matrix: np.ndarray, current_row: int | None, levels: tuple[float, float] = (0.0, 1.0)
    ) -> None:
        if matrix.size == 0:
            self.image.clear()
            self.row_outline.hide()
            return
        self.image.setImage(matrix, autoLevels=False, levels=levels)
        if matrix.shape != self.shape:
            self.shape = matrix.shape
            self.image.setRect(QRectF(0, 0, matrix.shape[1], matrix.shape[0]))
            self.plot.setRange(xRange=(0, matrix.shape[1]), yRange=(0, matrix.shape[0]), padding=0)
        if current_row is None:
            self.row_outline.hide()
        else:
            self.row_outline.setRect(QRectF(0, current_row, matrix.shape[1], 1))
            self.row_outline.show()

    def set_colormap(self, name: str) -> None:
        self.colormap = name
        self.image.setColorMap(pg.colormap.get(name))

    def set_ticks(self, query_labels: Sequence[str], key_labels: Sequence[str]) -> None:
        self.plot.getAxis("left").set_tokens(query_labels)
        self.plot.getAxis("bottom").set_tokens(key_labels)

    def cell_at(self, scene_pos) -> tuple[int, int] | None:
        """(query row, key column) under a scene position, or None outside the matrix."""
        if self.shape is None or not self.viewbox.sceneBoundingRect().contains(scene_pos):
            return None
        point = self.viewbox.mapSceneToView(scene_pos)
        row, col = int(np.floor(point.y())), int(np.floor(point.x()))
        if 0 <= row < self.shape[0] and 0 <= col < self.shape[1]:
            return row, col
        return None
