"""The token labels around the attention grid: keys under the bottom row of cells, queries right
of the last column. A pool of text items reused step after step (a step moves a few), each
token measured once as drawn, and labels left out where they would overlap."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtGui import QColor, QFontMetricsF, QTransform
from PySide6.QtWidgets import QGraphicsSimpleTextItem

from visualizer.state.views import AttentionView
from visualizer.widgets.heatmap import display_token, spaced_labels
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
        """(text, x, y, is_key) of each token label. Each column's key labels stay in its own
        room, its cell and the gap before it, as each layer's query labels do: none reaches into
        the next column (or layer), and the last column's keys never reach right of the grid,
        where the query labels begin (nor the last layer's queries below it, where the keys
        are). Where the cells are too small for every label, one that would overlap another is
        left out (hover still names every cell), every column and every layer leaving out the
        same ones.

        The first and the last token are labelled first (``spaced_labels``), a label at the end
        moved inside its room: a wide last key such as <eos> reached past its column and was
        always dropped, against the key before it or against the next column's first label.
        """
        # the range fit_range set, also before the viewbox has applied it (square pixels)
        pixel_x = pixel_y = units_per_pixel or (abs(self.viewbox.viewPixelSize()[0]) or 1.0)
        keys = self.along(
            view.key_labels, layout.keys, layout, lambda width, _height: width / 2 * pixel_x, 3 * pixel_x
        )
        queries = self.along(
            view.query_labels, layout.queries, layout, lambda _width, height: height / 2 * pixel_y, pixel_y
        )
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

    def along(self, tokens, count: int, layout: MosaicLayout, half, gap: float) -> list[tuple[str, float]]:
        """(text, place in the cell) of the labels kept along one side of a cell of ``count``
        tokens; ``half`` gives a label's half extent (mosaic units) from its (width, height) in
        pixels, and kept labels stand ``gap`` apart, also across the gap from the cell before."""
        sized = [self.size(token) for token in tokens]
        halves = [half(width, height) for _text, width, height in sized]
        centres = [(index + 0.5) * layout.cell / count for index in range(len(sized))]
        before = max(0.0, layout.gap - gap)  # the gap before the cell, less ``gap`` from the last
        kept = spaced_labels(centres, halves, gap, -before, layout.cell)
        return [(sized[index][0], centre) for index, centre in kept]

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
