"""The decoder's logit lens: layers × the steps written, and the most likely tokens of one cell.

Above, a heatmap: for each decoder layer and each step the model wrote, the probability the
lens gives the token actually written there, with the lens's own first choice written in the
cell. Clicking a cell chooses it (the shown step is chosen until then, and again after each
step); below, a table of that step's most likely tokens after every layer, the chosen layer
marked, each probability coloured on the heatmap's scale. The numbers come from
``model.attribution.logit_lens.logit_lens_grid`` on the worker: every step at once, from one
teacher-forced pass; the last layer is the model's own next-token distribution.
"""

from __future__ import annotations

import html

import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QGraphicsRectItem,
    QHeaderView,
    QLabel,
    QSizePolicy,
    QTableWidget,
    QTableWidgetItem,
)

from model.attribution.results import LogitLens, LogitLensGrid
from visualizer.i18n import tr, trf
from visualizer.numbers import percent
from visualizer.panels.base import ConceptPanel
from visualizer.state.jobs import LogitLensGridJob
from visualizer.widgets.cell_labels import CellLabels, readable_on
from visualizer.widgets.heatmap import SELECTED_COLOR, MatrixPlot, display_token

TOP_K = 8
WRITTEN_COLOR = QColor("#ffb300")
LABEL_COLOR = "#dddddd"
TABLE_ROWS = 8  # layers the table shows without scrolling (a 12-layer decoder scrolls)
ROW_PADDING = 6  # pixels above and below a row's text
CHOSEN_MARK = "▶ "


class LogitLensPanel(ConceptPanel):
    key = "logit_lens"

    def explain(self, language: str) -> str:
        return tr(
            "<b>Logit lens.</b> The decoder builds its answer layer by layer. Reading a decoder "
            "layer's output through the model's own final norm and output layer gives the "
            "next-token distribution the model would have if it stopped there (nostalgebraist "
            "2020). The heatmap: for each layer (row) and each step written (column), the "
            "probability of the token the model actually wrote there; each cell names the token "
            "that layer finds most likely. Click a cell to choose it; the table below gives that "
            "step's most likely tokens after every layer (the written token underlined in bold), "
            "with the written token's probability and rank. The last layer is the model's own "
            "distribution.",
            language,
        )

    def __init__(self, session, parent=None) -> None:
        super().__init__(session, parent)
        self.status, self.canvas = self.add_view(canvas_height=150)
        self.map = MatrixPlot(self.canvas.addPlot(row=0, col=0), session.colormap)
        for side in ("left", "bottom"):
            self.map.plot.getAxis(side).setTextPen(LABEL_COLOR)
        self.labels = CellLabels(point_size=10)
        self.map.plot.addItem(self.labels)
        self.shown_step_mark = self.outline(pg.mkPen("#ffffff", width=1, style=Qt.PenStyle.DashLine))
        self.chosen_mark = self.outline(pg.mkPen(SELECTED_COLOR, width=3))
        self.colour_bar = pg.ColorBarItem(
            values=(0, 1), colorMap=pg.colormap.get(session.colormap), interactive=False, width=10
        )
        self.colour_bar.getAxis("right").setTextPen(LABEL_COLOR)
        self.canvas.addItem(self.colour_bar, row=0, col=1)
        self.hover = QLabel(" ")
        self.outer.addWidget(self.hover)
        self.table = QTableWidget()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        rows = self.table.verticalHeader()
        rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        rows.setDefaultSectionSize(self.table.fontMetrics().height() + 2 * ROW_PADDING)
        self.table.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.table.setStyleSheet(
            "QTableWidget { background: #1e1e1e; color: #eeeeee; gridline-color: #444; }"
        )
        self.outer.addWidget(self.table)
        self.canvas.scene().sigMouseMoved.connect(self.on_mouse_moved)
        self.canvas.scene().sigMouseClicked.connect(self.on_mouse_clicked)
        self.table.cellClicked.connect(self.on_table_clicked)
        self.grid: LogitLensGrid | None = None
        self.lens: LogitLens | None = None  # the chosen step's lens: what the table shows
        self.chosen: tuple[int, int] | None = None  # (layer, step) the table shows
        self.followed_step = -1  # the shown step the choice last followed

    def outline(self, pen) -> QGraphicsRectItem:
        mark = QGraphicsRectItem()
        pen.setCosmetic(True)
        mark.setPen(pen)
        mark.setZValue(20)
        mark.hide()
        self.map.plot.addItem(mark)
        return mark

    # -- what to compute ------------------------------------------------------------------------
    def refresh(self) -> None:
        language = self.session.language
        snapshot, step = self.session.snapshot, self.session.cursor
        if snapshot is None or step < 0:
            self.status.setText(
                tr("Run a source and take at least one step: the lens reads the shown step.", language)
            )
            self.table.setRowCount(0)
            return
        self.show_what_if(
            tr(
                "The lens reads the model as trained: the what-ifs shown elsewhere are not applied here.",
                language,
            )
            if snapshot.interventions.active
            else None
        )
        ids = tuple(s.token_id for s in snapshot.steps)
        key = ("logit_lens", snapshot.source, ids, TOP_K)
        self.session.compute(key, LogitLensGridJob(snapshot.source, ids, TOP_K))
        grid = self.session.computed.get(key)
        if grid is None:  # the last drawing stays until the new one arrives
            return
        if step != self.followed_step or self.chosen is None:
            # the shown step is chosen by default, and again whenever the user steps
            layer = grid.layers - 1 if self.chosen is None else min(self.chosen[0], grid.layers - 1)
            self.chosen, self.followed_step = (layer, step), step
        self.grid = grid
        self.draw()

    def choose(self, layer: int, step: int) -> None:
        """Show the lens of (``layer``, ``step``) in the table (a click on the map or the table)."""
        if self.grid is None or not (0 <= layer < self.grid.layers and 0 <= step < self.grid.steps):
            return
        self.chosen = (layer, step)
        self.draw()

    # -- drawing --------------------------------------------------------------------------------
    def draw(self) -> None:
        grid, (layer, step) = self.grid, self.chosen
        language = self.session.language
        colormap = pg.colormap.get(self.session.colormap)
        self.map.set_colormap(self.session.colormap)
        self.colour_bar.setColorMap(colormap)
        self.colour_bar.getAxis("right").setLabel(tr("p(written)", language))
        self.map.show_matrix(grid.written_probs, None)
        self.map.set_ticks([trf("layer {n}", language, n=n + 1) for n in range(grid.layers)], grid.written)
        tops = [[display_token(tokens[0]) for tokens in row] for row in grid.top_tokens]
        self.labels.set_cells(tops, grid.written_probs, colormap, (0.0, 1.0))
        self.chosen_mark.setRect(QRectF(step, layer, 1, 1))
        self.chosen_mark.show()
        self.shown_step_mark.setRect(QRectF(self.session.cursor, 0, 1, grid.layers))
        self.shown_step_mark.setVisible(0 <= self.session.cursor < grid.steps)
        self.lens = grid.at(step)
        self.fill_table(self.lens, layer, colormap)
        self.status.setText(self.summary(self.lens))

    def fill_table(self, lens: LogitLens, chosen_layer: int, colormap: pg.ColorMap) -> None:
        language = self.session.language
        k = lens.top_ids.shape[1]
        self.table.setRowCount(lens.layers)
        self.table.setColumnCount(k + 2)
        headers = [trf("#{n}", language, n=i + 1) for i in range(k)] + [
            tr("p(written)", language),
            tr("rank", language),
        ]
        self.table.setHorizontalHeaderLabels(headers)
        self.table.setVerticalHeaderLabels(
            [
                (CHOSEN_MARK if layer == chosen_layer else "") + trf("layer {n}", language, n=layer + 1)
                for layer in range(lens.layers)
            ]
        )
        written = QFont()
        written.setBold(True)
        written.setUnderline(True)
        for layer in range(lens.layers):
            for column in range(k):
                probability = float(lens.top_probs[layer, column])
                token = lens.top_tokens[layer][column]
                item = self.coloured(f"{display_token(token)}  {percent(probability)}", probability, colormap)
                if int(lens.top_ids[layer, column]) == lens.written_id:
                    item.setFont(written)
                item.setToolTip(f"{html.escape(display_token(token))}: {probability:.6f}")
                self.table.setItem(layer, column, item)
            chance = float(lens.written_probs[layer])
            self.table.setItem(layer, k, self.coloured(percent(chance), chance, colormap))
            rank = QTableWidgetItem(str(int(lens.written_ranks[layer])))
            rank.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
            rank.setForeground(QBrush(WRITTEN_COLOR))
            self.table.setItem(layer, k + 1, rank)
        # exactly as tall as its rows (up to TABLE_ROWS of them): no empty band under the last
        shown = min(lens.layers, TABLE_ROWS)
        header = self.table.horizontalHeader().sizeHint().height()
        frame = 2 * self.table.frameWidth()
        self.table.setFixedHeight(header + shown * self.table.verticalHeader().defaultSectionSize() + frame)
        self.table.scrollToItem(self.table.item(chosen_layer, 0))

    @staticmethod
    def coloured(text: str, probability: float, colormap: pg.ColorMap) -> QTableWidgetItem:
        """A cell on the heatmap's colour for ``probability``, its text readable on it."""
        item = QTableWidgetItem(text)
        item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
        background = colormap.map(max(0.0, min(1.0, probability)), mode="qcolor")
        item.setBackground(QBrush(background))
        item.setForeground(QBrush(readable_on(background)))
        return item

    def summary(self, lens: LogitLens) -> str:
        language = self.session.language
        first = lens.first_layer_with_answer()
        appears = (
            trf("It is the most likely token from layer {layer} on.", language, layer=first + 1)
            if first is not None
            else tr("It becomes the most likely token only at the output.", language)
        )
        return trf(
            "Step {step} writes {token}. {appears}",
            language,
            step=lens.step + 1,
            token=repr(display_token(lens.written)),
            appears=appears,
        )

    # -- mouse ----------------------------------------------------------------------------------
    def on_mouse_moved(self, scene_pos) -> None:
        found = self.map.cell_at(scene_pos) if self.grid is not None else None
        if found is None:
            return
        layer, step = found
        grid = self.grid
        self.hover.setText(
            trf(
                "Layer {layer}, step {step}: {written} (written) {p} (rank {rank}); most likely "
                "{top} {top_p}",
                self.session.language,
                layer=layer + 1,
                step=step + 1,
                written=repr(display_token(grid.written[step])),
                p=percent(grid.written_probs[layer, step]),
                rank=int(grid.written_ranks[layer, step]),
                top=repr(display_token(grid.top_tokens[layer][step][0])),
                top_p=percent(grid.top_probs[layer, step, 0]),
            )
        )

    def on_mouse_clicked(self, event) -> None:
        found = self.map.cell_at(event.scenePos()) if self.grid is not None else None
        if found is not None:
            self.choose(*found)

    def on_table_clicked(self, row: int, _column: int) -> None:
        if self.chosen is not None:
            self.choose(row, self.chosen[1])
