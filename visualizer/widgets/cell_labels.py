"""A short text in each cell of a heatmap, readable on the cell's own colour.

One item paints every cell's text (a few hundred items would each cost a scene update per
step). It sits in the heatmap's view, in the matrix's coordinates (cell (row, column) is the
square [column, column + 1] × [row, row + 1], as ``MatrixPlot`` draws it), but paints its text
at a fixed font size, whatever the zoom: a text that does not fit its cell on screen is left
out (hovering the cell still names it), never drawn over its neighbours.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter

DARK_TEXT = QColor("#111111")
LIGHT_TEXT = QColor("#ffffff")
PADDING = 2  # pixels a text keeps from its cell's sides


def readable_on(background: QColor) -> QColor:
    """Dark text on a light cell, light text on a dark one (by the cell's perceived brightness)."""
    brightness = 0.299 * background.red() + 0.587 * background.green() + 0.114 * background.blue()
    return DARK_TEXT if brightness > 140 else LIGHT_TEXT


class CellLabels(pg.GraphicsObject):
    """``texts[row][column]`` centred in each cell, coloured against the colour ``colormap``
    gives the cell's value at ``levels`` (light text where the value is NaN: the grey of a
    masked cell)."""

    def __init__(self, point_size: float = 8.0) -> None:
        super().__init__()
        self.texts: list[list[str]] = []
        self.colours: list[list[QColor]] = []
        self.font = QFont()
        self.font.setPointSizeF(point_size)
        self.setZValue(5)  # over the image, under the selection outlines

    def set_cells(
        self,
        texts: Sequence[Sequence[str]],
        values: np.ndarray,
        colormap: pg.ColorMap,
        levels: tuple[float, float],
    ) -> None:
        """The texts of a [rows, columns] matrix of ``values``, as it is drawn."""
        self.prepareGeometryChange()
        self.texts = [list(row) for row in texts]
        low, high = levels
        scaled = np.clip((np.asarray(values, dtype=float) - low) / (high - low), 0.0, 1.0)
        self.colours = [
            [
                LIGHT_TEXT if np.isnan(value) else readable_on(colormap.map(float(value), mode="qcolor"))
                for value in row
            ]
            for row in scaled
        ]
        self.update()

    def clear(self) -> None:
        self.set_cells([], np.zeros((0, 0)), pg.colormap.get("viridis"), (0.0, 1.0))

    def boundingRect(self) -> QRectF:  # noqa: N802 (Qt's name)
        rows = len(self.texts)
        return QRectF(0, 0, len(self.texts[0]) if rows else 0, rows)

    def fitting(self) -> list[tuple[int, int]]:
        """The cells whose text fits on screen now: those it paints."""
        scene = self.scene()
        if scene is None or not scene.views() or not self.texts:
            return []
        transform = self.deviceTransform(scene.views()[0].viewportTransform())
        return [cell for cell, _rect in self.placed(transform)]

    def placed(self, transform) -> list[tuple[tuple[int, int], QRectF]]:
        """(cell, its rectangle in pixels) of each non-empty text that fits its cell."""
        metrics = QFontMetricsF(self.font)
        found = []
        for row, line in enumerate(self.texts):
            for column, text in enumerate(line):
                if not text:
                    continue
                rect = transform.mapRect(QRectF(column, row, 1, 1))
                if (
                    metrics.horizontalAdvance(text) + 2 * PADDING <= rect.width()
                    and metrics.height() <= rect.height()
                ):
                    found.append(((row, column), rect))
        return found

    def paint(self, painter: QPainter, *_args) -> None:
        if not self.texts:
            return
        cells = self.placed(painter.transform())
        painter.save()
        painter.resetTransform()  # pixels from here on: the font keeps its size
        painter.setFont(self.font)
        for (row, column), rect in cells:
            painter.setPen(self.colours[row][column])
            painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, self.texts[row][column])
        painter.restore()
