"""The grid of layers × heads (plus the mean over heads) for one kind of attention.

The whole grid is one RGBA image (a mosaic), not one item per head: in pyqtgraph the cost of
a repaint is per item far more than per pixel, and 48 separate items cost tens of
milliseconds a frame. Each head's matrix is stretched (nearest neighbour) to a square cell;
masked entries are drawn grey, outside the colour scale.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Signal
from PySide6.QtGui import QColor, QFontMetricsF, QPainterPath, QTransform
from PySide6.QtWidgets import QGraphicsPathItem, QGraphicsRectItem, QGraphicsSimpleTextItem

from visualizer.events import Subscriptions
from visualizer.session import Session
from visualizer.views import AttentionView, describe_cell
from visualizer.widgets.heatmap import (
    BACKGROUND,
    HIGHLIGHT_COLOR,
    MASKED_COLOR,
    SELECTED_COLOR,
    display_token,
)

MEAN = None  # the column key for the mean over heads
LABEL_COLOR = "#dddddd"


def rgba_of(color: str) -> np.ndarray:
    qcolor = QColor(color)
    return np.array([qcolor.red(), qcolor.green(), qcolor.blue(), 255], dtype=np.uint8)


class MosaicLayout:
    """Where each cell lies in the mosaic image, in pixels."""

    def __init__(self, layers: int, columns: int, queries: int, keys: int) -> None:
        self.layers, self.columns, self.queries, self.keys = layers, columns, queries, keys
        self.cell = max(queries, keys, 1)  # every cell is a square of this many pixels
        self.gap = max(2, self.cell // 12)
        self.pitch = self.cell + self.gap
        # pixel → matrix index within a cell (nearest neighbour)
        self.rows = np.arange(self.cell) * max(queries, 1) // self.cell
        self.cols = np.arange(self.cell) * max(keys, 1) // self.cell

    @property
    def size(self) -> tuple[int, int]:
        """(height, width) of the mosaic."""
        return self.layers * self.pitch - self.gap, self.columns * self.pitch - self.gap

    def locate(self, x: float, y: float) -> tuple[int, int, int, int] | None:
        """(layer, column, query, key) under mosaic coordinates, or None in a gap."""
        if x < 0 or y < 0:
            return None
        column, cx = divmod(int(x), self.pitch)
        layer, cy = divmod(int(y), self.pitch)
        if layer >= self.layers or column >= self.columns or cx >= self.cell or cy >= self.cell:
            return None
        if self.queries == 0:
            return None
        return layer, column, int(self.rows[cy]), int(self.cols[cx])

    def row_span(self, row: int) -> tuple[int, int]:
        """First pixel and pixel count of matrix row ``row`` inside a cell."""
        pixels = np.nonzero(self.rows == row)[0]
        return int(pixels[0]), len(pixels)


class AttentionGrid(pg.GraphicsLayoutWidget):
    """One image for the whole grid, updated in place on every step."""

    hovered = Signal(str)  # a description of the cell under the mouse, or ""

    def __init__(self, session: Session, parent=None) -> None:
        super().__init__(parent)
        self.setBackground(BACKGROUND)
        self.session = session
        self.viewbox = self.ci.addViewBox(row=0, col=0, enableMenu=False, lockAspect=True, invertY=True)
        self.viewbox.setMouseEnabled(x=False, y=False)
        self.viewbox.setDefaultPadding(0.01)
        self.image = pg.ImageItem(axisOrder="row-major")
        self.viewbox.addItem(self.image)
        self.row_outlines = QGraphicsPathItem()
        self.row_outlines.setPen(pg.mkPen(HIGHLIGHT_COLOR, width=2, cosmetic=True))
        self.row_outlines.setZValue(10)
        self.viewbox.addItem(self.row_outlines)
        self.selection = QGraphicsRectItem()
        self.selection.setPen(pg.mkPen(SELECTED_COLOR, width=3, cosmetic=True))
        self.selection.setZValue(11)
        self.viewbox.addItem(self.selection)
        self.labels: list[pg.TextItem] = []
        self.layout_: MosaicLayout | None = None
        self.view: AttentionView | None = None
        self.mosaic: np.ndarray | None = None  # (height, width, 4) uint8, what is drawn
        self.lut = self._lookup_table()
        self.scene().sigMouseMoved.connect(self.on_mouse_moved)
        self.scene().sigMouseClicked.connect(self.on_mouse_clicked)
        self.colorbar = pg.ColorBarItem(
            values=(0, 1), colorMap=pg.colormap.get(session.colormap), interactive=False, width=12
        )
        self.ci.addItem(self.colorbar, row=0, col=1)
        self.token_labels: list[QGraphicsSimpleTextItem] = []  # a pool, reused step after step
        self.subscriptions = Subscriptions(
            (session.cursor_changed, self.on_change),
            (session.view_changed, self.on_view_changed),
            (session.selection_changed, self.on_selection_changed),
            (session.model_changed, self.on_change),
        )

    def detach(self) -> None:
        """Disconnect from the session, so that it does not keep a closed widget alive."""
        self.subscriptions.close()

    def _lookup_table(self) -> np.ndarray:
        return pg.colormap.get(self.session.colormap).getLookupTable(0.0, 1.0, 256, alpha=True)

    # -- what is shown --------------------------------------------------------------------
    def cell_matrix(self, layer: int, head: int | None) -> np.ndarray:
        """The matrix drawn in one cell ([Q, K], NaN where masked)."""
        assert self.view is not None
        return self.view.mean[layer] if head is MEAN else self.view.weights[layer, head]

    def cell_pixels(self, layer: int, head: int | None) -> np.ndarray:
        """The RGBA pixels of one cell as drawn ([cell, cell, 4])."""
        assert self.image.image is not None and self.layout_ is not None
        layout = self.layout_
        column = self.view.heads if head is MEAN else head
        y, x = layer * layout.pitch, column * layout.pitch
        return self.image.image[y : y + layout.cell, x : x + layout.cell]

    def on_change(self, *_args) -> None:
        self.view = self.session.attention()
        if self.view is None:  # a new model is loading: show nothing rather than the old one
            self.image.clear()
            self.mosaic = None
            self.row_outlines.setPath(QPainterPath())
            self.place_token_labels(None, None)
            return
        self.draw()

    def on_view_changed(self) -> None:
        self.lut = self._lookup_table()
        self.colorbar.setColorMap(pg.colormap.get(self.session.colormap))
        self.on_change()

    def draw(self) -> None:
        view = self.view
        queries, keys = view.weights.shape[2:]
        layout = MosaicLayout(view.layers, view.heads + 1, queries, keys)
        relabel = self.layout_ is None or (layout.layers, layout.columns, layout.cell) != (
            self.layout_.layers,
            self.layout_.columns,
            self.layout_.cell,
        )
        self.layout_ = layout
        self.mosaic = self.render_mosaic(view, layout)
        self.image.setImage(self.mosaic, autoLevels=False)
        self.image.setRect(QRectF(0, 0, layout.size[1], layout.size[0]))
        if relabel:
            self.place_labels(layout)
        self.place_row_outlines(view, layout)
        self.place_token_labels(view, layout)
        self.on_selection_changed()

    def render_mosaic(self, view: AttentionView, layout: MosaicLayout) -> np.ndarray:
        cells = np.concatenate([view.weights, view.mean[:, None]], axis=1)  # (L, H+1, Q, K)
        background = rgba_of(BACKGROUND)
        padded = np.empty((layout.layers, layout.columns, layout.pitch, layout.pitch, 4), np.uint8)
        padded[:] = background
        if cells.shape[2] and cells.shape[3]:
            sampled = cells[:, :, layout.rows][:, :, :, layout.cols]  # (L, H+1, cell, cell)
            masked = np.isnan(sampled)
            index = np.clip(np.nan_to_num(sampled) * 255 + 0.5, 0, 255).astype(np.uint8)
            pixels = self.lut[index]  # (L, H+1, cell, cell, 4)
            pixels[masked] = rgba_of(MASKED_COLOR)
            padded[:, :, : layout.cell, : layout.cell] = pixels
        height, width = layout.size
        mosaic = padded.transpose(0, 2, 1, 3, 4).reshape(layout.layers * layout.pitch, -1, 4)
        return np.ascontiguousarray(mosaic[:height, :width])

    def place_labels(self, layout: MosaicLayout) -> None:
        for label in self.labels:
            self.viewbox.removeItem(label)
        self.labels = []
        heads = layout.columns - 1
        for column in range(layout.columns):
            text = "mean of heads" if column == heads else f"head {column + 1}"
            label = pg.TextItem(text, color=LABEL_COLOR, anchor=(0.5, 1.0))
            label.setPos(column * layout.pitch + layout.cell / 2, -layout.gap)
            self.labels.append(label)
        for layer in range(layout.layers):
            label = pg.TextItem(f"L{layer + 1}", color=LABEL_COLOR, anchor=(1.0, 0.5))
            label.setPos(-layout.gap, layer * layout.pitch + layout.cell / 2)
            label.setToolTip(f"layer {layer + 1}")
            self.labels.append(label)
        for label in self.labels:
            self.viewbox.addItem(label)
        height, width = layout.size
        self.viewbox.setRange(
            xRange=(-layout.cell * 0.35, width + layout.cell * 0.25),
            yRange=(-layout.cell * 0.2, height + layout.cell * 0.15),
            padding=0.02,
        )

    def place_token_labels(self, view: AttentionView | None, layout: MosaicLayout | None) -> None:
        """Key tokens under the bottom row of cells, query tokens right of the mean column.

        Where cells are too small for every label, a label that would overlap the one before it
        is left out (hover still names every cell).
        """
        wanted: list[tuple[str, float, float, bool]] = []  # text, x, y, is_key
        if view is not None and layout is not None and layout.queries:
            pixel_x, pixel_y = (abs(v) or 1.0 for v in self.viewbox.viewPixelSize())
            metrics = QFontMetricsF(QGraphicsSimpleTextItem().font())
            bottom = layout.layers * layout.pitch - layout.gap
            for column in range(layout.columns):
                end = -np.inf
                for key in range(layout.keys):
                    text = display_token(view.key_labels[key])
                    x = column * layout.pitch + (key + 0.5) * layout.cell / layout.keys
                    half = metrics.horizontalAdvance(text) / 2 * pixel_x
                    if x - half > end + 3 * pixel_x:
                        wanted.append((text, x, bottom, True))
                        end = x + half
            right = layout.columns * layout.pitch - layout.gap
            line = metrics.height() * pixel_y
            for layer in range(layout.layers):
                end = -np.inf
                for query in range(layout.queries):
                    y = layer * layout.pitch + (query + 0.5) * layout.cell / layout.queries
                    if y - line / 2 > end:
                        wanted.append((display_token(view.query_labels[query]), right, y, False))
                        end = y + line / 2
        while len(self.token_labels) < len(wanted):
            item = QGraphicsSimpleTextItem()
            item.setBrush(QColor(LABEL_COLOR))
            item.setFlag(QGraphicsSimpleTextItem.GraphicsItemFlag.ItemIgnoresTransformations)
            self.viewbox.addItem(item)
            self.token_labels.append(item)
        for item, (text, x, y, is_key) in zip(self.token_labels, wanted, strict=False):
            item.setText(text)
            rect = item.boundingRect()
            item.setPos(x, y)
            # ItemIgnoresTransformations: this offset is in screen pixels from (x, y)
            offset = (-rect.width() / 2, 2) if is_key else (3, -rect.height() / 2)
            item.setTransform(QTransform.fromTranslate(*offset))
            item.show()
        for item in self.token_labels[len(wanted) :]:
            item.hide()

    def place_row_outlines(self, view: AttentionView, layout: MosaicLayout) -> None:
        path = QPainterPath()
        if view.current_row is not None and layout.queries:
            start, count = layout.row_span(view.current_row)
            for layer in range(layout.layers):
                for column in range(layout.columns):
                    x, y = column * layout.pitch, layer * layout.pitch + start
                    path.addRect(QRectF(x, y, layout.cell, count))
        self.row_outlines.setPath(path)

    def on_selection_changed(self) -> None:
        layout = self.layout_
        if layout is None:
            return
        head = self.session.head
        column = layout.columns - 1 if head is MEAN else head
        layer = min(self.session.layer, layout.layers - 1)
        self.selection.setRect(QRectF(column * layout.pitch, layer * layout.pitch, layout.cell, layout.cell))

    # -- mouse ----------------------------------------------------------------------------
    def cell_under(self, scene_pos) -> tuple[int, int | None, int, int] | None:
        """(layer, head or MEAN, query, key) under a scene position."""
        if self.layout_ is None or not self.viewbox.sceneBoundingRect().contains(scene_pos):
            return None
        point = self.viewbox.mapSceneToView(scene_pos)
        found = self.layout_.locate(point.x(), point.y())
        if found is None:
            return None
        layer, column, query, key = found
        head = MEAN if column == self.layout_.columns - 1 else column
        return layer, head, query, key

    def on_mouse_moved(self, scene_pos) -> None:
        found = self.cell_under(scene_pos)
        if found is None or self.view is None:
            self.hovered.emit("")
            return
        self.hovered.emit(describe_cell(self.view, *found))

    def on_mouse_clicked(self, event) -> None:
        found = self.cell_under(event.scenePos())
        if found is not None:
            self.session.select_head(found[0], found[1])

    def scene_position(self, layer: int, head: int | None, query: int, key: int):
        """The scene point at the centre of one matrix entry (for tests and tooltips)."""
        layout = self.layout_
        column = layout.columns - 1 if head is MEAN else head
        y_pixels = np.nonzero(layout.rows == query)[0]
        x_pixels = np.nonzero(layout.cols == key)[0]
        x = column * layout.pitch + (x_pixels[0] + x_pixels[-1] + 1) / 2
        y = layer * layout.pitch + (y_pixels[0] + y_pixels[-1] + 1) / 2
        return self.viewbox.mapViewToScene(pg.Point(x, y))
