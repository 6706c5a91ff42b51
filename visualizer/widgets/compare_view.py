"""The Compare page: model A and model B stepped together, side by side, and A − B.

Each side has its timeline and its grid of the chosen kind's heads (the same widgets as the
main page, each on its own session); below, the selected head of each side enlarged and,
where the shapes agree, their difference with a diverging colour scale. A grid too small for
readable cells shows the selected layer's heads, or the selected head, instead
(``AttentionGrid.focus_when_small``). A model without attention (the RNN without it) shows its
output and the one line why, in place of its grid.
"""

from __future__ import annotations

import html

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QGridLayout, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from model.interface import Interventions
from visualizer.i18n import tr, trf
from visualizer.state.compare import Comparison, shown_matrix
from visualizer.state.events import Subscriptions
from visualizer.widgets.attention_grid import AttentionGrid
from visualizer.widgets.heatmap import BACKGROUND, MatrixPlot
from visualizer.widgets.timeline import Timeline

SIDE_STYLE = "font-weight: bold; font-size: 11pt; padding: 2px"
REASON_STYLE = "font-size: 12pt; color: #444; padding: 12px; border: 1px solid #ccc"
DIFFERENCE_COLORMAP = "CET-D1"  # diverging: blue where A < B, red where A > B
B_WHAT_IF_CHOICES = (  # the menu shows them as "B: …" (a translated template), the title bare
    ("none", "no what-if"),
    ("no_positional", "without positional encoding"),
    ("no_scaling", "without ÷√d_k"),
    ("no_causal_mask", "without the causal mask"),
    ("uniform_attention", "uniform attention (α = 1/S)"),
    ("no_attention", "no attention (context zero)"),
)


def selection(session, view) -> str:
    """The kind, layer and head drawn for ``session`` (clamped to the kind's, as ``shown_matrix``
    does); for a model without attention, that it has none."""
    language = session.language
    if view is None:
        return tr("no attention", language) if has_no_attention(session) else ""
    layer = min(session.layer, view.layers - 1)
    who = (
        tr("mean of heads", language)
        if session.head is None
        else trf("head {n}", language, n=min(session.head, view.heads - 1) + 1)
    )
    kind = session.model.family.kind(view.kind)  # a view comes from a loaded model
    return f"{tr(kind.title, language)} · {trf('layer {n}', language, n=layer + 1)} · {who}"


def has_no_attention(session) -> bool:
    """The side's model has no attention at all (its family says why: ``without_attention``)."""
    return session.model is not None and bool(session.model.family.without_attention)


def caught_up(session, step: int) -> bool:
    """The side shows step ``step`` (0-based), or its last one where it stopped before."""
    snapshot = session.snapshot
    if session.model is None or snapshot is None:
        return False
    return session.cursor >= step or (snapshot.stop_reason is not None and session.at_end)


def shown_output(session) -> str:
    """The side's output up to the step it shows."""
    snapshot = session.snapshot
    return "" if snapshot is None else snapshot.output_text(session.cursor + 1)


class CompareView(QWidget):
    def __init__(self, comparison: Comparison, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.comparison = comparison
        a, b = comparison.a, comparison.b
        outer = QVBoxLayout(self)
        outer.setContentsMargins(4, 4, 4, 4)
        sides = QGridLayout()
        self.titles = (QLabel(), QLabel())
        self.timelines = (Timeline(a), Timeline(b))
        self.grids = (AttentionGrid(a), AttentionGrid(b))
        self.reasons = (QLabel(), QLabel())  # a model without attention: its output and why
        for column, (title, timeline, grid, reason) in enumerate(
            zip(self.titles, self.timelines, self.grids, self.reasons, strict=True)
        ):
            grid.focus_when_small = True  # two grids side by side cannot scroll
            reason.setTextFormat(Qt.TextFormat.RichText)
            reason.setWordWrap(True)
            reason.setAlignment(Qt.AlignmentFlag.AlignCenter)
            reason.setStyleSheet(REASON_STYLE)
            reason.hide()
            sides.addWidget(reason, 2, column)
            title.setStyleSheet(SIDE_STYLE)
            title.setWordWrap(True)  # a long model name wraps rather than widen the window
            title.setTextFormat(Qt.TextFormat.RichText)
            sides.addWidget(title, 0, column)
            sides.addWidget(timeline, 1, column)
            sides.addWidget(grid, 2, column)
        sides.setRowStretch(2, 3)
        sides.setColumnStretch(0, 1)  # the two sides equally wide, whatever each shows
        sides.setColumnStretch(1, 1)
        outer.addLayout(sides, 3)
        controls = QHBoxLayout()
        self.b_what_if = QComboBox()
        for name, text in B_WHAT_IF_CHOICES:
            self.b_what_if.addItem(trf("B: {what_if}", a.language, what_if=tr(text, a.language)), name)
        self.b_what_if.currentIndexChanged.connect(self.on_b_what_if)
        controls.addWidget(self.b_what_if)
        self.status = QLabel()
        self.status.setWordWrap(True)
        controls.addWidget(self.status, 1)
        outer.addLayout(controls)
        self.plots = pg.GraphicsLayoutWidget()
        self.plots.setBackground(BACKGROUND)
        self.cells = tuple(
            MatrixPlot(self.plots.addPlot(row=0, col=column), colormap)
            for column, colormap in enumerate((a.colormap, b.colormap, DIFFERENCE_COLORMAP))
        )
        self.difference_bar = pg.ColorBarItem(
            values=(-1, 1), colorMap=pg.colormap.get(DIFFERENCE_COLORMAP), interactive=False, width=12
        )
        self.plots.addItem(self.difference_bar, row=0, col=3)
        self.plots.setMinimumHeight(170)  # at 1024×700 the grids give way, not the enlarged heads
        for grid in self.grids:
            grid.setMinimumHeight(110)
        outer.addWidget(self.plots, 2)
        self.shown_difference: np.ndarray | None = None  # what the third plot draws, for tests
        self.subscriptions = Subscriptions(
            (comparison.changed, self.refresh),
            (b.model_changed, self.on_b_model),
            (a.language_changed, self.on_language_changed),
        )
        self.refresh()

    def on_language_changed(self, language: str) -> None:
        for index, (_name, text) in enumerate(B_WHAT_IF_CHOICES):
            self.b_what_if.setItemText(index, trf("B: {what_if}", language, what_if=tr(text, language)))
        self.refresh()  # the titles, the status and a side's reason, in the new language

    def detach(self) -> None:
        self.subscriptions.close()
        for widget in (*self.timelines, *self.grids):
            widget.detach()

    def on_b_model(self, _model) -> None:
        supported = self.comparison.b.model.family.capabilities.what_ifs
        for index, (name, _text) in enumerate(B_WHAT_IF_CHOICES):
            item = self.b_what_if.model().item(index)
            item.setEnabled(name == "none" or name in supported)
        if self.b_what_if.currentData() not in ("none", *supported):  # the new B cannot apply it
            self.b_what_if.setCurrentIndex(0)
        self.refresh()

    def choose_b_what_if(self, name: str) -> None:
        index = self.b_what_if.findData(name)
        if index < 0:
            raise ValueError(f"unknown what-if {name!r} for side B")
        self.b_what_if.setCurrentIndex(index)

    def on_b_what_if(self, index: int) -> None:
        name = self.b_what_if.itemData(index)
        what_if = Interventions() if name == "none" else Interventions(**{name: True})
        self.comparison.set_b_what_if(what_if)

    def refresh(self, *_args) -> None:
        comparison = self.comparison
        for side, (title, session) in enumerate(zip(self.titles, (comparison.a, comparison.b), strict=True)):
            letter = "AB"[side]
            model = session.model
            language = session.language
            name = (
                tr("no model yet", language)
                if model is None
                else f"{model.name} · {model.family.display_name}"
            )
            what_if = ""
            if side == 1 and comparison.b_what_if.active:
                english = dict(B_WHAT_IF_CHOICES)[self.b_what_if.currentData()]
                what_if = f" · {tr('what-if', language)}: {tr(english, language)}"
            title.setText(f"{letter}: {html.escape(name)}{what_if}")
        self.show_outputs()
        views = (comparison.a.attention(), comparison.b.attention())
        titles = (
            f"A · {selection(comparison.a, views[0])}",
            f"B · {selection(comparison.b, views[1])}",
            "A − B",
        )
        for cell, session in zip(self.cells[:2], (comparison.a, comparison.b), strict=True):
            if cell.colormap != session.colormap:
                cell.set_colormap(session.colormap)
        for cell, title in zip(self.cells, titles, strict=True):
            cell.plot.setTitle(title, color="#dddddd", size="10pt")
        for cell, view, session in zip(self.cells[:2], views, (comparison.a, comparison.b), strict=True):
            if view is None or not view.query_labels:
                cell.image.clear()
                cell.shape = None
                continue
            cell.show_matrix(shown_matrix(view, session), view.current_row)
            cell.set_ticks(view.query_labels, view.key_labels)
        difference = comparison.difference()
        cell = self.cells[2]
        if difference is None or difference.matrix.size == 0:
            self.shown_difference = None
            cell.image.clear()
            cell.shape = None
            self.status.setText(
                comparison.problem and f"B: {comparison.problem}" or self.why_no_difference(views)
            )
            return
        bound = difference.bound or 1.0
        self.shown_difference = difference.matrix
        cell.show_matrix(difference.matrix, views[0].current_row, levels=(-bound, bound))
        cell.set_ticks(views[0].query_labels, views[0].key_labels)
        self.difference_bar.setLevels((-bound, bound))
        language = comparison.a.language
        status = trf(
            "A − B of the selected head: largest difference {bound:.3f}", language, bound=difference.bound
        )
        if comparison.problem:  # B still shows its last run: say why it does not follow
            status = trf("B: {problem} (B shows its last run)", language, problem=comparison.problem)
        self.status.setText(status)

    def show_outputs(self) -> None:
        """A side whose model has no attention: its output and why, in place of its grid."""
        for session, grid, reason in zip(
            (self.comparison.a, self.comparison.b), self.grids, self.reasons, strict=True
        ):
            none = has_no_attention(session)
            grid.setVisible(not none)
            reason.setVisible(none)
            if none:
                language, model = session.language, session.model
                why = tr(model.family.without_attention, language)
                output = html.escape(shown_output(session), quote=False)
                reason.setText(f"{tr('Output:', language)} <b>{output}</b><br><br>{html.escape(why)}")

    def why_no_difference(self, views) -> str:
        comparison = self.comparison
        language = comparison.a.language
        sides = (comparison.a, comparison.b)
        if not all(caught_up(side, comparison.a.cursor) for side in sides):
            return tr("waiting for both models", language)
        without = [letter for letter, side in zip("AB", sides, strict=True) if has_no_attention(side)]
        if without:
            return trf(
                "Both models have run to step {step}. {side} has no attention: there is no A − B to show.",
                language,
                step=comparison.a.cursor + 1,
                side=" & ".join(without),
            )
        if views[0] is None or views[1] is None:
            return tr("waiting for both models", language)
        if views[0].kind != views[1].kind:
            kind = comparison.a.model.family.kind(views[0].kind)
            return trf("B has no {kind}: no difference to show", language, kind=tr(kind.title, language))
        return tr("the two sides' shapes differ (other tokens or lengths): no difference to show", language)
