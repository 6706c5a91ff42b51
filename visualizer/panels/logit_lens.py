"""The decoder's logit lens at the shown step: layers × the most likely tokens after each layer.

The numbers come from ``model.attribution.logit_lens`` on the worker; the last row is the
model's own next-token distribution.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QLabel, QTableWidget, QTableWidgetItem

from model.attribution.results import LogitLens
from visualizer.panels.attribution_text import LOGIT_LENS
from visualizer.panels.base import ConceptPanel
from visualizer.panels.registry import TITLES
from visualizer.state.jobs import LogitLensJob
from visualizer.widgets.heatmap import display_token

TOP_K = 8
WRITTEN_COLOR = QColor("#ffb300")


def cell_colour(probability: float) -> QColor:
    """Darker blue for likelier tokens: the table reads like a heatmap."""
    strength = max(0.0, min(1.0, probability))
    return QColor(int(30 + 20 * strength), int(40 + 90 * strength), int(60 + 170 * strength))


class LogitLensPanel(ConceptPanel):
    key = "logit_lens"
    titles = TITLES["logit_lens"]
    texts = LOGIT_LENS
    explanations = {language: words["explanation"] for language, words in LOGIT_LENS.items()}

    def __init__(self, session, parent=None) -> None:
        super().__init__(session, parent)
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.outer.addWidget(self.status)
        self.table = QTableWidget()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.table.setMinimumHeight(260)
        self.table.setStyleSheet(
            "QTableWidget { background: #1e1e1e; color: #eeeeee; gridline-color: #444; }"
        )
        self.outer.addWidget(self.table, 1)
        self.lens: LogitLens | None = None

    def refresh(self) -> None:
        snapshot, step = self.session.snapshot, self.session.cursor
        if snapshot is None or step < 0:
            self.status.setText(self.text("no_step"))
            self.table.setRowCount(0)
            return
        self.show_what_if(self.text("what_if") if snapshot.interventions.active else None)
        ids = tuple(s.token_id for s in snapshot.steps[: step + 1])
        key = ("logit_lens", snapshot.source, ids, step)
        self.session.compute(key, LogitLensJob(snapshot.source, ids, step, TOP_K))
        lens = self.session.computed.get(key)
        if lens is None:
            return
        self.lens = lens
        self.draw(lens)

    def draw(self, lens: LogitLens) -> None:
        k = lens.top_ids.shape[1]
        self.table.setRowCount(lens.layers)
        self.table.setColumnCount(k + 2)
        headers = [self.text("top", n=i + 1) for i in range(k)] + [
            self.text("written_p"),
            self.text("written_rank"),
        ]
        self.table.setHorizontalHeaderLabels(headers)
        self.table.setVerticalHeaderLabels([self.text("layer", n=layer + 1) for layer in range(lens.layers)])
        bold = QFont()
        bold.setBold(True)
        for layer in range(lens.layers):
            for column in range(k):
                probability = float(lens.top_probs[layer, column])
                token = display_token(lens.top_tokens[layer][column])
                item = QTableWidgetItem(f"{token}  {probability:.1%}")
                item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                item.setBackground(QBrush(cell_colour(probability)))
                if int(lens.top_ids[layer, column]) == lens.written_id:
                    item.setForeground(QBrush(WRITTEN_COLOR))
                    item.setFont(bold)
                item.setToolTip(f"{html.escape(repr(lens.top_tokens[layer][column]))}: {probability:.6f}")
                self.table.setItem(layer, column, item)
            for column, value in (
                (k, f"{float(lens.written_probs[layer]):.1%}"),
                (k + 1, str(int(lens.written_ranks[layer]))),
            ):
                item = QTableWidgetItem(value)
                item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                item.setForeground(QBrush(WRITTEN_COLOR))
                self.table.setItem(layer, column, item)
        first = lens.first_layer_with_answer()
        appears = self.text("appears", layer=first + 1) if first is not None else self.text("never")
        self.status.setText(
            self.text("summary", step=lens.step + 1, token=repr(display_token(lens.written)), appears=appears)
        )
