"""Pieces shared by every heatmap: a plot set up for a matrix, token ticks, colours.

Images are built once and updated in place with ``setImage(..., autoLevels=False)``;
attention weights are probabilities, so levels stay fixed at (0, 1). Masked cells are NaN,
which pyqtgraph leaves transparent, so the plot's grey background shows through: masked is
drawn distinctly, never as a colour of the scale.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF
from PySide6.QtGui import QColor, QFontMetricsF
from PySide6.QtWidgets import QGraphicsRectItem

MASKED_COLOR = "#5a5a5a"
HIGHLIGHT_COLOR = "#ff5252"
SELECTED_COLOR = "#ffb300"
BACKGROUND = "#1e1e1e"


def display_token(token: str) -> str:
    """A label that shows every token: spaces as ␣, control characters by code."""
    if token == " ":
        return "␣"
    if len(token) == 1 and (ord(token) < 32 or 0x7F <= ord(token) < 0xA0):
        return f"U+{ord(token):04X}"
    return token


class TokenAxis(pg.AxisItem):
    """One label per token, centred on its cell; where the cells are narrower than the labels,
    a label that would touch the one before it is left out, never a pile-up such as "n<eos>"
    or "<eos> <bos>". Hovering a cell still names every token."""

    GAP = 4  # pixels between neighbouring labels

    def __init__(self, orientation: str) -> None:
        super().__init__(orientation)
        self.tokens: list[str] = []
        self.enableAutoSIPrefix(False)  # token axes: never "(x0.001)"
        self.setStyle(hideOverlappingLabels=False)  # the first and last label may overhang the ends

    def set_tokens(self, tokens: Sequence[str]) -> None:
        self.tokens = [display_token(t) for t in tokens]
        self.picture = None  # pyqtgraph's cached drawing
        self.update()

    def label_extents(self) -> list[float]:
        """Pixels each label needs along the axis: its width across, one line down."""
        metrics = QFontMetricsF(self.style["tickFont"] or self.font())
        if self.orientation in ("bottom", "top"):
            return [metrics.horizontalAdvance(t) for t in self.tokens]
        return [metrics.height() + 1] * len(self.tokens)

    def shown_indices(self, pixels_per_token: float) -> list[int]:
        """The tokens labelled: each whose label clears the last one kept by GAP pixels."""
        shown, end = [], -math.inf
        for index, extent in enumerate(self.label_extents()):
            centre = (index + 0.5) * pixels_per_token
            if centre - extent / 2 >= end + self.GAP:
                shown.append(index)
                end = centre + extent / 2
        return shown

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
