"""The token labels around the attention grid: keys under the bottom row of cells, queries right
of the last column. A pool of text items reused step after step (a step moves a few), each
token measured once as drawn, and labels left out where they would overlap."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QColor, QFontMetricsF, QTransform
from PySide6.QtWidgets import QGraphicsSimpleTextItem

from visualizer.state.views import AttentionView
from visualizer.widgets.heatmap import display_token
from visualizer.widgets.mosaic import MosaicLayout

LABEL_COLOR = "#dddddd"


class TokenLabels:
    """The grid's token labels in its viewbox (mosaic units; the labels keep their pixel size)."""

    def __init__(self, viewbox: pg.ViewBox, metrics: QFontMetricsF) -> None:
        self.viewbox = viewbox
        self.metrics = metrics
        self.items: list[QGraphicsSimpleTextItem] = []  # a pool, reused step after step
        self.places: list[tuple | None] = []  # what each pooled label shows (None: hidden)
        self.measured: dict[str, tuple[str, float, float]] = {}  # token -> label, width, height

    def place(
        self, view: AttentionView | None, layout: MosaicLayout | None, units_per_pixel: float | None
    ) -> None:
        """Key tokens under the bottom row of cells, query tokens right of the mean column.

        Only labels whose text or place changed are touched: a step moves a few.
        """
        drawn = view is not None and layout is not None and layout.queries
        wanted = self.spots(view, layout, units_per_pixel) if drawn else []
        while len(self.items) < len(wanted):
            item = QGraphicsSimpleTextItem()
            item.setBrush(QColor(LABEL_COLOR))
            item.setFlag(QGraphicsSimpleTextItem.GraphicsItemFlag.ItemIgnoresTransformations)
            self.viewbox.addItem(item)
            self.items.append(item)
            self.places.append(None)
        for index, (item, place) in enumerate(zip(self.items, wanted, strict=False)):
            shown = self.places[index]
            if shown == place:
                continue
            text, x, y, is_key = place
            item.setPos(x, y)
            if shown is None or (shown[0], shown[3]) != (text, is_key):
                item.setText(text)
                rect = item.boundingRect()
                # ItemIgnoresTransformations: this offset is in screen pixels from (x, y)
                offset = (-rect.width() / 2, 2) if is_key else (3, -rect.height() / 2)
                item.setTransform(QTransform.fromTranslate(*offset))
            if shown is None:
                item.show()
            self.places[index] = place
        for index in range(len(wanted), len(self.items)):
            if self.places[index] is not None:
                self.items[index].hide()
                self.places[index] = None

    def spots(
        self, view: AttentionView, layout: MosaicLayout, units_per_pixel: float | None
    ) -> list[tuple[str, float, float, bool]]:
        """(text, x, y, is_key) of each token label. Where cells are too small for every label,
        a label that would overlap the one before it is left out (hover still names every cell);
        every column leaves out the same ones, and every layer."""
        # the range fit_range set, also before the viewbox has applied it (square pixels)
        pixel_x = pixel_y = units_per_pixel or (abs(self.viewbox.viewPixelSize()[0]) or 1.0)
        keys, end = [], -np.inf
        halves = []
        for key, token in enumerate(view.key_labels):
            text, width = self.text(token)
            x = (key + 0.5) * layout.cell / layout.keys
            half = width / 2 * pixel_x
            if x - half > end + 3 * pixel_x:
                keys.append((text, x))
                halves.append(half)
                end = x + half
        # the last label of a column must also clear the first of the next column
        while (
            len(keys) > 1 and keys[-1][1] + halves[-1] + 3 * pixel_x > keys[0][1] + layout.pitch - halves[0]
        ):
            keys.pop()
            halves.pop()
        if len(keys) == 1 and 2 * halves[0] + 3 * pixel_x > layout.pitch:  # wider than its column
            keys.clear()
        queries, halves, end = [], [], -np.inf
        for query, token in enumerate(view.query_labels):
            y = (query + 0.5) * layout.cell / layout.queries
            text, _width, height = self.size(token)
            half = height / 2 * pixel_y
            if y - half > end + pixel_y:  # a pixel apart at least
                queries.append((text, y))
                halves.append(half)
                end = y + half
        # and the last row's label must clear the next layer's first
        while len(queries) > 1 and queries[-1][1] + halves[-1] > queries[0][1] + layout.pitch - halves[0]:
            queries.pop()
            halves.pop()
        bottom = layout.layers * layout.pitch - layout.gap
        right = layout.columns * layout.pitch - layout.gap
        return [
            (text, column * layout.pitch + x, bottom, True)
            for column in range(layout.columns)
            for text, x in keys
        ] + [
            (text, right, layer * layout.pitch + y, False)
            for layer in range(layout.layers)
            for text, y in queries
        ]

    def text(self, token: str) -> tuple[str, float]:
        """A token's label and its width in pixels (measured once per token)."""
        text, width, _height = self.size(token)
        return text, width

    def size(self, token: str) -> tuple[str, float, float]:
        """A token's label and the pixels it covers, as drawn: a glyph the label's font lacks
        comes from a fallback font (a CJK font stands taller than the Latin one), so the label
        is measured as a drawn item, not by the font's own line height."""
        known = self.measured.get(token)
        if known is None:
            text = display_token(token)
            drawn = QGraphicsSimpleTextItem(text).boundingRect()
            width = max(self.metrics.horizontalAdvance(text), drawn.width())
            known = self.measured[token] = (text, width, max(self.metrics.height(), drawn.height()))
        return known
