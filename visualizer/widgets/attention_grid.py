"""The grid of layers × heads (plus the mean over heads) for one kind of attention.

The whole grid is one RGBA image (a mosaic), not one item per head: in pyqtgraph the cost of
a repaint is per item far more than per pixel, and 48 separate items cost tens of
milliseconds a frame. Each head's matrix fills a square cell; masked entries are drawn grey,
outside the colour scale.

A cell has at most as many pixels as the screen shows it with: a 512 × 512 matrix in a cell
the screen draws 80 pixels wide is max-pooled to 80 × 80 (a larger image costs time and shows
nothing more, since the screen would drop the extra rows). Max-pooling keeps a sharp peak
visible, where averaging would dim it and sampling could skip it; hovering a pooled pixel
names the entry whose weight it shows. A matrix smaller than its cell is stretched (nearest
neighbour). The grid redraws at a finer resolution when it grows.

Where a grid cannot scroll (the Compare page's, two side by side), whole grids at 1024×700 had
cells of 16 pixels and head names run together ("H1H2H3H4mean"). Such a grid (``focus_when_small``)
draws, below ``READABLE_CELL``, only the selected layer's heads, or below that the selected head
alone; a click in it still chooses a head, and the other layers are a click away on the main page.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt, Signal
from PySide6.QtGui import QFontMetricsF, QGuiApplication, QPainterPath
from PySide6.QtWidgets import QGraphicsPathItem, QGraphicsRectItem, QGraphicsSimpleTextItem

from visualizer.i18n import tr, trf
from visualizer.state.events import Subscriptions
from visualizer.state.session import Session
from visualizer.state.views import AttentionView, describe_cell
from visualizer.widgets.grid_tokens import LABEL_COLOR, TokenLabels
from visualizer.widgets.heatmap import (
    BACKGROUND,
    HIGHLIGHT_COLOR,
    SELECTED_COLOR,
)
from visualizer.widgets.mosaic import (  # noqa: F401 (MEAN: the grid's column key, also read from here)
    MEAN,
    MosaicLayout,
    cell_view,
    colour_index,
    colour_table,
    peak,
    pooled,
    rgba_of,
)

CELL_STEP = 8  # cell sizes are multiples of this, so that resizing rarely redraws
MIN_CELL = 8  # below this a cell shows nothing readable anyway
# the smallest cell (screen pixels) the grid asks room for: a model with many layers and heads
# (NLLB: 12 × 16) gets a grid larger than its pane, which then scrolls, rather than unreadable cells
READABLE_CELL = 40
COLORBAR_ROOM = 72  # the colour bar beside the mosaic, with its tick labels


class AttentionGrid(pg.GraphicsLayoutWidget):
    """One image for the whole grid, updated in place on every step."""

    hovered = Signal(str)  # a description of the cell under the mouse, or ""

    def __init__(self, session: Session, parent=None) -> None:
        super().__init__(parent)
        self.setBackground(BACKGROUND)
        self.session = session
        self.scrolls = False  # True inside a scroll area: ask for room for readable cells
        self.focus_when_small = False  # True: too small for readable cells, show the selected part
        # the layers (rows) and heads (columns; MEAN: the mean) the mosaic draws, in its order
        self.row_layers: tuple[int, ...] = ()
        self.column_heads: tuple[int | None, ...] = ()
        self.drawn_view: AttentionView | None = None  # the part of ``view`` the mosaic draws
        self.viewbox = self.ci.addViewBox(row=0, col=0, enableMenu=False, lockAspect=True, invertY=True)
        self.viewbox.setMouseEnabled(x=False, y=False)
        self.viewbox.setDefaultPadding(0.01)
        self.image = pg.ImageItem(axisOrder="row-major")
        self.viewbox.addItem(self.image)
        self.row_outlines = QGraphicsPathItem()
        self.row_outlines.setPen(pg.mkPen(HIGHLIGHT_COLOR, width=2, cosmetic=True))
        self.row_outlines.setZValue(10)
        self.viewbox.addItem(self.row_outlines)
        self.zeroed_marks = QGraphicsPathItem()  # a cross over each head zeroed in the live model
        self.zeroed_marks.setPen(pg.mkPen(HIGHLIGHT_COLOR, width=2, cosmetic=True))
        self.zeroed_marks.setZValue(12)
        self.viewbox.addItem(self.zeroed_marks)
        self.selection = QGraphicsRectItem()
        self.selection.setPen(pg.mkPen(SELECTED_COLOR, width=3, cosmetic=True))
        self.selection.setZValue(11)
        self.viewbox.addItem(self.selection)
        self.labels: list[pg.TextItem] = []
        self.labels_placed: tuple | None = None  # the layout and texts the labels were placed for
        self.shown_range: tuple | None = None  # the last range fit_range set
        self.units_per_pixel: float | None = None  # mosaic units per screen pixel (fit_range)
        self.layout_: MosaicLayout | None = None
        self.view: AttentionView | None = None
        self.mosaic: np.ndarray | None = None  # (height, width, 4) uint8, what is drawn, reused
        self.mosaic_shape: tuple[int, int, int] | None = None  # (layers, columns, cell) it is for
        self.drawn: tuple | None = None  # (weights, cell, table) the mosaic shows
        self.lut = self._lookup_table()  # (256, 4) RGBA, the colour scale
        self.table = colour_table(self.lut)  # the same and the masked grey, as uint32 pixels
        self.scene().sigMouseMoved.connect(self.on_mouse_moved)
        self.scene().sigMouseClicked.connect(self.on_mouse_clicked)
        self.viewbox.sigResized.connect(self.on_resized)
        self.colorbar = pg.ColorBarItem(
            values=(0, 1), colorMap=pg.colormap.get(session.colormap), interactive=False, width=12
        )
        self.ci.addItem(self.colorbar, row=0, col=1)
        self.metrics = QFontMetricsF(QGraphicsSimpleTextItem().font())
        self.tokens = TokenLabels(self.viewbox, self.metrics)
        self.subscriptions = Subscriptions(
            (session.cursor_changed, self.on_change),
            (session.view_changed, self.on_view_changed),
            (session.selection_changed, self.on_selection_changed),
            (session.model_changed, self.on_change),
            (session.language_changed, self.on_change),
        )

    def detach(self) -> None:
        """Disconnect from the session, so that it does not keep a closed widget alive."""
        self.subscriptions.close()

    @property
    def token_labels(self) -> list[QGraphicsSimpleTextItem]:
        """The pooled token label items (some hidden)."""
        return self.tokens.items

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
        row, column = self.mosaic_cell(layer, head)
        y, x = row * layout.pitch, column * layout.pitch
        return self.image.image[y : y + layout.cell, x : x + layout.cell]

    def mosaic_cell(self, layer: int, head: int | None) -> tuple[int, int]:
        """(row, column) of the mosaic that draws ``layer`` and ``head`` (a model with one head
        draws its mean in that head's cell; a layer or head not drawn: the first cell)."""
        row = self.row_layers.index(layer) if layer in self.row_layers else 0
        if head in self.column_heads:
            return row, self.column_heads.index(head)
        return row, len(self.column_heads) - 1 if head is MEAN else 0

    def shown_cells(self, view: AttentionView) -> tuple[tuple[int, ...], tuple[int | None, ...]]:
        """(layers, heads) to draw: all; or, where cells would be too small to read and the grid
        may focus, the selected layer's heads, or the selected head alone."""
        layers = tuple(range(view.layers))
        heads = (*range(view.heads), MEAN) if view.heads > 1 else (0,)
        if not self.focus_when_small or self.cell_room(len(layers), len(heads)) >= READABLE_CELL:
            return layers, heads
        layers = (min(self.session.layer, view.layers - 1),)
        if self.cell_room(1, len(heads)) >= READABLE_CELL:
            return layers, heads
        head = self.session.head
        return layers, (heads[-1] if head is MEAN else min(head, view.heads - 1),)

    def part_of(self, view: AttentionView) -> AttentionView:
        """``view`` as the mosaic draws it: its shown layers and heads, the mean last."""
        if self.row_layers == tuple(range(view.layers)) and len(self.column_heads) >= view.heads:
            return view  # the whole grid: the engine's own arrays, so that an unchanged one is not redrawn
        layers = list(self.row_layers)
        heads = [head for head in self.column_heads if head is not MEAN]
        if heads:
            weights = view.weights[layers][:, heads]
        else:  # the mean alone: drawn as the one cell
            weights = view.mean[layers][:, None]
        return replace(view, weights=weights, mean=view.mean[layers])

    def on_change(self, *_args) -> None:
        self.view = self.session.attention()
        if self.view is None:  # a new model is loading: show nothing rather than the old one
            self.image.clear()
            self.mosaic = self.mosaic_shape = self.drawn = self.drawn_view = None
            self.row_outlines.setPath(QPainterPath())
            self.zeroed_marks.setPath(QPainterPath())
            self.tokens.place(None, None, self.units_per_pixel)
            return
        self.draw()

    def on_view_changed(self) -> None:
        self.lut = self._lookup_table()
        self.table = colour_table(self.lut)
        self.colorbar.setColorMap(pg.colormap.get(self.session.colormap))
        self.on_change()

    def on_resized(self, *_args) -> None:
        """Redraw when the cells now show more, or fewer, pixels; labels fit the new size."""
        view, layout = self.view, self.layout_
        if view is None or layout is None:
            return
        other_cells = self.shown_cells(view) != (self.row_layers, self.column_heads)
        if other_cells or self.new_layout(self.drawn_view).cell != layout.cell:
            self.draw()
        else:
            self.place_labels(layout)
            self.tokens.place(self.drawn_view, layout, self.units_per_pixel)

    def viewbox_size(self) -> tuple[float, float]:
        width, height = self.viewbox.width(), self.viewbox.height()
        if width < MIN_CELL or height < MIN_CELL:  # not laid out yet: the widget is a fair guess
            width, height = self.width(), self.height()
        return width, height

    def label_margins(self, layers: int) -> tuple[float, float, float, float]:
        """Screen pixels kept free around the mosaic (left, right, top, bottom) for the layer
        names, the widest query token, the head names and the key tokens: never clipped."""
        line = self.metrics.height()
        queries = self.view.query_labels if self.view is not None else ()
        widest_query = max((self.tokens.text(token)[1] for token in queries), default=0.0)
        # the layer and head names are pg.TextItems: 4 pixels of document margin on each side
        left = self.metrics.horizontalAdvance(f"L{layers}") + 8 + 4
        # the right margin in steps of 16 pixels: the range (and every item in the view) changes
        # only now and then as generated tokens widen the query column, not on every step
        right = math.ceil((widest_query + 8) / 16) * 16
        return left, right, line + 8 + 2, line + 6

    def cell_room(self, layers: int, columns: int) -> float:
        """The screen pixels each cell of a mosaic of ``layers`` × ``columns`` would be shown with."""
        width, height = self.viewbox_size()
        left, right, top, bottom = self.label_margins(layers)
        # the mosaic, gaps of 1/12 of a cell included, in what the label margins leave
        across = columns * 13 / 12 * 1.02
        down = layers * 13 / 12 * 1.02
        usable_width, usable_height = max(1.0, width - left - right), max(1.0, height - top - bottom)
        return min(usable_width / across, usable_height / down)

    def max_cell(self, layers: int, columns: int) -> int:
        """The most device pixels a cell is shown with: a larger mosaic would show nothing more."""
        pixels = self.cell_room(layers, columns) * self.devicePixelRatioF()
        # rounded down, so that the screen stretches the mosaic a little and never drops a row
        return max(MIN_CELL, int(pixels * 0.98) // CELL_STEP * CELL_STEP)

    def new_layout(self, view: AttentionView) -> MosaicLayout:
        """The mosaic of ``view`` as drawn (``part_of``): its heads, then the mean if drawn."""
        queries, keys = view.weights.shape[2:]
        columns = len(self.column_heads)
        return MosaicLayout(view.layers, columns, queries, keys, self.max_cell(view.layers, columns))

    def readable_size(self, layers: int, columns: int) -> tuple[int, int]:
        """Screen pixels in which every cell is at least ``READABLE_CELL`` wide, labels included."""
        left, right, top, bottom = self.label_margins(layers)
        width = left + right + columns * READABLE_CELL * 13 / 12 + COLORBAR_ROOM
        height = top + bottom + layers * READABLE_CELL * 13 / 12
        return math.ceil(width), math.ceil(height)

    def draw(self) -> None:
        whole = self.view
        if self.scrolls:
            width, height = self.readable_size(whole.layers, whole.heads + 1 if whole.heads > 1 else 1)
            if (self.minimumWidth(), self.minimumHeight()) != (width, height):
                self.setMinimumSize(width, height)  # the scroll area around the grid scrolls beyond it
        self.row_layers, self.column_heads = self.shown_cells(whole)
        view = self.drawn_view = self.part_of(whole)
        layout = self.new_layout(view)
        self.layout_ = layout
        if not self.shows(view, layout):
            self.image.setImage(self.render_mosaic(view, layout), autoLevels=False)
            self.image.setRect(QRectF(0, 0, layout.size[1], layout.size[0]))
            self.drawn = (view.weights, layout.cell, self.table)
        self.place_labels(layout)  # also unchanged ones: the widest query token may have changed
        self.place_row_outlines(view, layout)
        self.tokens.place(view, layout, self.units_per_pixel)
        self.place_zeroed_marks(whole, layout)
        self.on_selection_changed()

    def zeroed_heads(self, view: AttentionView) -> list[tuple[int, int]]:
        """(layer, head) of the shown kind's heads that the shown generation ran zeroed."""
        snapshot = self.session.snapshot
        zeroed = snapshot.interventions.zeroed_heads if snapshot is not None else frozenset()
        return sorted(
            (layer, head) for kind, layer, head in zeroed if kind == view.kind and head < view.heads
        )

    def place_zeroed_marks(self, view: AttentionView, layout: MosaicLayout) -> None:
        path = QPainterPath()
        for layer, head in self.zeroed_heads(view):
            if layer not in self.row_layers or head not in self.column_heads:
                continue
            row, column = self.mosaic_cell(layer, head)
            x, y = column * layout.pitch, row * layout.pitch
            path.moveTo(x, y)
            path.lineTo(x + layout.cell, y + layout.cell)
            path.moveTo(x + layout.cell, y)
            path.lineTo(x, y + layout.cell)
        self.zeroed_marks.setPath(path)

    def shows(self, view: AttentionView, layout: MosaicLayout) -> bool:
        """The mosaic already shows these weights (encoder attention stays the same step
        after step): the engine's arrays are read-only, so the same array is the same picture."""
        if self.drawn is None or self.mosaic is None or view.weights.flags.writeable:
            return False
        weights, cell, table = self.drawn
        return weights is view.weights and cell == layout.cell and table is self.table

    def render_mosaic(self, view: AttentionView, layout: MosaicLayout) -> np.ndarray:
        """Every cell's colours, written into the mosaic (reused while its layout stays)."""
        shape = (layout.layers, layout.columns, layout.cell)
        if self.mosaic is None or self.mosaic_shape != shape:
            height, width = layout.size
            self.mosaic = np.empty((height, width, 4), np.uint8)
            self.mosaic[:] = rgba_of(BACKGROUND)  # the gaps; cells are written on every draw
            self.mosaic_shape = shape
        cells = cell_view(self.mosaic, layout)  # (L, cell, H+1, cell) uint32
        if not (layout.queries and layout.keys):
            cells[...] = rgba_of(BACKGROUND).view(np.uint32)[0]
            return self.mosaic
        # colour indices laid out as the mosaic is, so that the lookup reads them in order
        index = np.empty(cells.shape, np.uint16)  # (L, cell, H+1, cell)
        by_cell = index.transpose(0, 2, 1, 3)  # (L, H+1, cell, cell)
        colour_index(pooled(view.weights, layout), out=by_cell[:, : view.heads])
        if layout.columns > view.heads:
            colour_index(pooled(view.mean, layout), out=by_cell[:, view.heads])
        np.take(self.table, index, out=cells, mode="clip")
        return self.mosaic

    def place_labels(self, layout: MosaicLayout) -> None:
        """Head and layer labels around the mosaic, and the view range that leaves them room.
        A head name wider than its column ("head 1", "mean of heads") becomes its short form
        ("H1", "mean") instead of running into its neighbour. Creating pyqtgraph TextItems is
        what costs (about 1 ms each), so texts are replaced only when they change."""
        self.fit_range(layout)
        language = self.session.language
        heads = self.column_heads
        texts = [
            tr("mean of heads", language) if head is MEAN else trf("head {n}", language, n=head + 1)
            for head in heads
        ]
        # the column's width on screen (stable from step to step: the margins move in 16-pixel steps)
        pitch_pixels = layout.pitch / self.units_per_pixel
        short = [tr("mean", language) if head is MEAN else f"H{head + 1}" for head in heads]
        texts = [
            text if self.metrics.horizontalAdvance(text) + 8 + 4 <= pitch_pixels else brief
            for text, brief in zip(texts, short, strict=True)
        ]
        texts += [f"L{layer + 1}" for layer in self.row_layers]
        if [label.textItem.toPlainText() for label in self.labels] != texts:
            for label in self.labels:
                self.viewbox.removeItem(label)
            self.labels = []
            for index, text in enumerate(texts):
                label = pg.TextItem(
                    text, color=LABEL_COLOR, anchor=(0.5, 1.0) if index < layout.columns else (1.0, 0.5)
                )
                if index >= layout.columns:
                    layer = self.row_layers[index - layout.columns]
                    label.setToolTip(trf("layer {n}", language, n=layer + 1))
                elif heads[index] is MEAN:
                    label.setToolTip(tr("mean of heads", language))
                self.viewbox.addItem(label)
                self.labels.append(label)
        placed = (layout.columns, layout.layers, layout.pitch, layout.cell, layout.gap, tuple(texts))
        if placed == self.labels_placed:  # moving a TextItem costs: only when the layout moved
            return
        self.labels_placed = placed
        for column in range(layout.columns):
            self.labels[column].setPos(column * layout.pitch + layout.cell / 2, -layout.gap)
        for layer in range(layout.layers):
            self.labels[layout.columns + layer].setPos(-layout.gap, layer * layout.pitch + layout.cell / 2)

    def fit_range(self, layout: MosaicLayout) -> None:
        """The view range: the mosaic and, around it, room for every label in screen pixels."""
        height, width = layout.size
        view_width, view_height = self.viewbox_size()
        left, right, top, bottom = self.label_margins(layout.layers)
        # mosaic units per screen pixel, so that the mosaic fits beside its margins both ways
        scale = max(
            width / max(1.0, view_width - left - right), height / max(1.0, view_height - top - bottom)
        )
        # kept for the token labels' places: the viewbox applies a new range only when it next paints
        self.units_per_pixel = scale
        # the layer and head names stand a gap (in mosaic units) off the mosaic
        x_range = (-left * scale - layout.gap, width + right * scale)
        y_range = (-top * scale - layout.gap, height + bottom * scale)
        if (x_range, y_range) == self.shown_range:  # the same range again still updates every item
            return
        self.shown_range = (x_range, y_range)
        self.viewbox.setRange(xRange=x_range, yRange=y_range, padding=0)

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
        layout, view = self.layout_, self.view
        if layout is None or view is None:
            return
        if self.shown_cells(view) != (self.row_layers, self.column_heads):
            self.draw()  # a focused grid shows the selected layer or head: another one now
            return
        head = self.session.head if self.session.head is MEAN else min(self.session.head, view.heads - 1)
        row, column = self.mosaic_cell(min(self.session.layer, view.layers - 1), head)
        self.selection.setRect(QRectF(column * layout.pitch, row * layout.pitch, layout.cell, layout.cell))

    # -- mouse ----------------------------------------------------------------------------
    def cell_under(self, scene_pos) -> tuple[int, int | None, int, int] | None:
        """(layer, head or MEAN, query, key) under a scene position: the entry whose weight
        the pixel there shows (the largest of its block, where cells are pooled)."""
        layout = self.layout_
        if layout is None or self.view is None or not self.viewbox.sceneBoundingRect().contains(scene_pos):
            return None
        point = self.viewbox.mapSceneToView(scene_pos)
        found = layout.locate(point.x(), point.y())
        if found is None:
            return None
        row, column, rows, keys = found
        layer, head = self.row_layers[row], self.column_heads[column]
        query, key = peak(self.cell_matrix(layer, head), rows, keys)
        return layer, head, query, key

    def on_mouse_moved(self, scene_pos) -> None:
        found = self.cell_under(scene_pos)
        if found is None or self.view is None:
            self.hovered.emit("")
            return
        self.hovered.emit(describe_cell(self.view, *found, self.session.language))

    def on_mouse_clicked(self, event) -> None:
        """Click: choose the head. Ctrl+click: zero the head in the live model, or give it back
        (the what-if the Head importance page also sets). Shift+click, on a speech model's
        attention over time: add the head to the heads that time the words, or take it out."""
        found = self.cell_under(event.scenePos())
        if found is None:
            return
        layer, head = found[0], found[1]
        # a click made up by a test may carry only its position
        modifiers = event.modifiers() if hasattr(event, "modifiers") else QGuiApplication.keyboardModifiers()
        if modifiers & Qt.KeyboardModifier.ControlModifier and head is not MEAN and self.view is not None:
            self.session.toggle_zeroed_head(self.view.kind, layer, head)
            return
        if modifiers & Qt.KeyboardModifier.ShiftModifier and head is not MEAN and self.view is not None:
            kind = self.session.snapshot.info.alignment_kind if self.session.snapshot else None
            if kind is not None and kind.name == self.view.kind:
                self.session.toggle_alignment_head(layer, head)
                return
        self.session.select_head(layer, head)

    def scene_position(self, layer: int, head: int | None, query: int, key: int):
        """The scene point at the centre of the pixels that show one matrix entry (for tests
        and tooltips); where cells are pooled, of the pixel whose block holds it."""
        layout = self.layout_
        row, column = self.mosaic_cell(layer, head)
        y_pixels = layout.pixels_of_row(query)
        x_pixels = layout.pixels_of_key(key)
        x = column * layout.pitch + (x_pixels[0] + x_pixels[-1] + 1) / 2
        y = row * layout.pitch + (y_pixels[0] + y_pixels[-1] + 1) / 2
        return self.viewbox.mapViewToScene(pg.Point(x, y))
