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
from visualizer.i18n import tr, trf
from visualizer.panels.base import ConceptPanel
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

    def explain(self, language: str) -> str:
        return tr(
            "<b>Logit lens.</b> The decoder builds its answer layer by layer. Reading each decoder "
            "layer's output at the shown step through the model's own final norm and output layer "
            "gives the next-token distribution the model would have if it stopped there "
            "(nostalgebraist 2020). Each row is a layer, the most likely tokens first; the token "
            "the model wrote is in orange, and the last columns give its probability and rank. The "
            "last layer is the model's own distribution.",
            language,
        )

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
            self.status.setText(
                tr(
                    "Run a source and take at least one step: the lens reads the shown step.",
                    self.session.language,
                )
            )
            self.table.setRowCount(0)
            return
        self.show_what_if(
            tr(
                "The lens reads the model as trained: the what-ifs shown elsewhere are not applied here.",
                self.session.language,
            )
            if snapshot.interventions.active
            else None
        )
        ids = tuple(s.token_id for s in snapshot.steps[: step + 1])
        key = ("logit_lens", snapshot.source, ids, step)
        self.session.compute(key, LogitLensJob(snapshot.source, ids, step, TOP_K))
        lens = self.session.computed.get(key)
        if lens is None:
            return
        self.lens = lens
        self.draw(lens)

    def draw(self, lens: LogitLens) -> None:
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
            [trf("layer {n}", language, n=layer + 1) for layer in range(lens.layers)]
        )
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
                item.setToolTip(f"{html.escape(repr(token))}: {probability:.6f}")
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
        appears = (
            trf("It is the most likely token from layer {layer} on.", language, layer=first + 1)
            if first is not None
            else tr("It becomes the most likely token only at the output.", language)
        )
        self.status.setText(
            trf(
                "Step {step} writes {token}. {appears}",
                language,
                step=lens.step + 1,
                token=repr(display_token(lens.written)),
                appears=appears,
            )
        )
