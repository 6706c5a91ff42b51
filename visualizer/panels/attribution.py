"""Is attention an explanation? For the shown output token, attention beside attribution.

One row per method (``model.attribution.methods``) on one token axis: the source tokens, then
the tokens the decoder had read. Below, per method, every cross-attention head's rank
correlation with it (a layers × heads map; clicking a head selects it, and the attention rows
follow). The work runs on the worker with progress, and stops when asked (the Stop button,
another step shown, or the window closing).
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QGraphicsWidget, QLabel, QPushButton, QSpinBox

from model.attribution.results import COMPLETENESS, METHODS, REFINEMENTS, Attribution, AttributionSettings
from visualizer.i18n import tr, trf
from visualizer.numbers import number, percent, score
from visualizer.panels.base import ConceptPanel
from visualizer.panels.jobs import PanelJobs, Stopped
from visualizer.state.jobs import AttributionJob
from visualizer.widgets.cell_labels import CellLabels
from visualizer.widgets.combo import refill
from visualizer.widgets.heatmap import MatrixPlot, display_token

LABEL_COLOR = "#dddddd"
DIVERGING = "CET-D1"  # blue (against) – white – red (for): signed scores and correlations
AGREEMENT_METHODS = ("rollout", "gradient_x_input", "integrated_gradients", "occlusion")
SEPARATOR_COLOR = "#ffb300"
# an agreement map's cells are at most this many pixels a side: a model with one head (an RNN)
# gets a small square with its number in it, not one cell filling the whole row
MAX_CELL_PX = 56
AXES_PX = 56  # room a map's title and its bottom axis take


def scaled_rows(result: Attribution, step: int) -> np.ndarray:
    """[methods, S + step + 1] each method's scores at ``step`` divided by its largest |value|
    (NaN where a method gives none)."""
    width = result.n_source + step + 1
    rows = np.full((len(METHODS), width), np.nan)
    for row, method in enumerate(METHODS):
        if method not in result.scores:
            continue
        values = result.scores[method][step, :width]
        finite = np.isfinite(values)
        largest = np.abs(values[finite]).max() if finite.any() else 0.0
        rows[row] = values / largest if largest > 0 else values
    return rows


def integrated_gradients_summary(result: Attribution, step: int, language: str) -> str:
    """What integrated gradients did at ``step``: the points it used and, where that is more than
    the points asked for, why (they are doubled until completeness holds within its tolerance)."""
    if not result.ig_steps_used or result.completeness_gap is None:
        return ""
    asked, used = result.settings.ig_steps, result.ig_steps_used
    values = {
        "asked": asked,
        "points": used,
        "difference": number(result.logprob[step] - result.baseline_logprob[step]),
        "gap": percent(result.completeness_gap[step], 2),
        "tolerance": percent(COMPLETENESS, 0),
    }
    if used == asked:
        return trf(
            "Integrated gradients: {points} points; the scores add up to f(x) − f(x′) = {difference} "
            "within {gap} (the tolerance is {tolerance}).",
            language,
            **values,
        )
    if result.completeness_gap[step] <= COMPLETENESS:
        return trf(
            "Integrated gradients: {points} points, not the {asked} asked for: the points are doubled "
            "until the scores add up to f(x) − f(x′) = {difference} within {tolerance}; with {points} "
            "they are off by {gap}.",
            language,
            **values,
        )
    return trf(
        "Integrated gradients: {points} points, not the {asked} asked for: the points are doubled, "
        "at most {doublings} times, until the scores add up to f(x) − f(x′) = {difference} within "
        "{tolerance}; with {points} they are still off by {gap}.",
        language,
        doublings=REFINEMENTS,
        **values,
    )


class AttributionPanel(ConceptPanel):
    key = "attribution"

    def explain(self, language: str) -> str:
        return tr(
            "<b>Is attention an explanation?</b> Jain &amp; Wallace (2019) found attention often "
            "disagrees with gradient-based importance; Abnar &amp; Zuidema (2020) found attention "
            "<i>rolled out</i> through the layers (½A + ½I per layer, for the residual path) "
            "tracks it better. Each row scores, for the shown output token f = log p, every source "
            "token and, right of the orange line, every token the decoder had read. <b>Gradient × "
            "input</b>: f's change along each token's vector. <b>Integrated gradients</b>: the "
            "gradient averaged on the path from <tt>&lt;pad&gt;</tt> vectors to the input; the "
            "scores add up to f(input) − f(baseline). <b>Occlusion</b>: how much f drops when that "
            "source token is replaced by <tt>&lt;unk&gt;</tt> (or removed). Rows are scaled by "
            "their largest |value|: red helps, blue works against. Below: each cross-attention "
            "head's rank correlation (Spearman) with each method; click a head to choose it.",
            language,
        )

    def __init__(self, session, parent=None) -> None:
        super().__init__(session, parent)
        self.ig_label, self.occlusion_label, self.baseline_label = QLabel(), QLabel(), QLabel()
        self.ig_points = QSpinBox()
        self.ig_points.setRange(4, 1024)
        self.ig_points.setValue(32)
        self.ig_points.setKeyboardTracking(False)  # compute once the number is typed, not per digit
        self.occlusion = QComboBox()
        self.baseline = QComboBox()
        self.stop_button, self.run_button = QPushButton(), QPushButton()
        self.jobs = PanelJobs(session)
        self.progress = self.jobs.progress
        self.status, self.canvas = self.add_view(
            (
                self.ig_label,
                self.ig_points,
                self.occlusion_label,
                self.occlusion,
                self.baseline_label,
                self.baseline,
            ),
            (self.progress, self.stop_button, self.run_button),
            canvas_height=320,  # 1024×700: the maps in view below the controls
        )
        self.rows = MatrixPlot(self.canvas.addPlot(row=0, col=0, colspan=len(AGREEMENT_METHODS)), DIVERGING)
        self.separator = pg.InfiniteLine(angle=90, pen=pg.mkPen(SEPARATOR_COLOR, width=2))
        self.rows.plot.addItem(self.separator)
        self.rows_bar = self.colour_bar(row=0)
        # the maps in a row of their own, between two spacers that take what the maps, at most
        # MAX_CELL_PX a cell, leave: their size limit must not narrow the rows above
        agreement_row = self.canvas.addLayout(row=1, col=0, colspan=len(AGREEMENT_METHODS))
        agreement_row.setContentsMargins(0, 0, 0, 0)
        self.agreement_maps = {
            method: MatrixPlot(agreement_row.addPlot(row=0, col=column + 1), DIVERGING)
            for column, method in enumerate(AGREEMENT_METHODS)
        }
        for column in (0, len(AGREEMENT_METHODS) + 1):
            agreement_row.addItem(QGraphicsWidget(), row=0, col=column)
        for column in range(1, len(AGREEMENT_METHODS) + 1):
            agreement_row.layout.setColumnStretchFactor(column, 1)
        self.agreement_labels: dict[str, CellLabels] = {}
        for method, cell in self.agreement_maps.items():
            cell.plot.invertY(True)
            self.agreement_labels[method] = CellLabels()
            cell.plot.addItem(self.agreement_labels[method])
            agreement_row.layout.setAlignment(
                cell.plot, Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop
            )
        self.agreement_bar = self.colour_bar(row=1)
        self.canvas.ci.layout.setRowStretchFactor(0, 3)
        self.canvas.ci.layout.setRowStretchFactor(1, 2)
        self.hover = QLabel(" ")
        self.outer.addWidget(self.hover)
        self.canvas.scene().sigMouseMoved.connect(self.on_mouse_moved)
        self.canvas.scene().sigMouseClicked.connect(self.on_mouse_clicked)
        self.ig_points.valueChanged.connect(self.on_state_changed)
        self.occlusion.currentIndexChanged.connect(self.on_state_changed)
        self.baseline.currentIndexChanged.connect(self.on_state_changed)
        self.stop_button.clicked.connect(self.stop)
        self.run_button.clicked.connect(self.run_again)
        self.subscriptions.add(session.compute_progress, self.jobs.on_progress)
        self.result: Attribution | None = None
        self.shown_step = -1
        self.shown_rows: np.ndarray | None = None  # [methods, tokens] what the top map shows
        self.controls_built = True
        self.on_language_changed(session.language)

    # -- words ------------------------------------------------------------------------------
    def on_language_changed(self, language: str) -> None:
        if not getattr(self, "controls_built", False):  # called by the base class's __init__
            super().on_language_changed(language)
            return
        self.ig_label.setText(tr("Integrated gradients points:", language))
        self.occlusion_label.setText(tr("Occlusion:", language))
        self.baseline_label.setText(tr("Baseline:", language))
        refill(
            self.occlusion,
            [(tr("replace by <unk>", language), "unk"), (tr("remove the token", language), "remove")],
        )
        refill(
            self.baseline, [(tr("<pad> vectors", language), "pad"), (tr("zero vectors", language), "zero")]
        )
        self.stop_button.setText(tr("Stop", language))
        self.run_button.setText(tr("Compute again", language))
        self.rows_bar.getAxis("right").setLabel(tr("score ÷ its row's largest |score|", language))
        self.agreement_bar.getAxis("right").setLabel(tr("Spearman ρ", language))
        super().on_language_changed(language)

    def colour_bar(self, row: int) -> pg.ColorBarItem:
        """The −1…1 scale of a row of the canvas, right of it."""
        bar = pg.ColorBarItem(
            values=(-1, 1), colorMap=pg.colormap.get(DIVERGING), interactive=False, width=10
        )
        for side in ("right", "left"):
            bar.getAxis(side).setTextPen(LABEL_COLOR)
        self.canvas.addItem(bar, row=row, col=len(AGREEMENT_METHODS))
        return bar

    def method_name(self, method: str, layer: int, head: int) -> str:
        """A row's method as the rows, the agreement maps and the hover name it."""
        language = self.session.language
        if method == "attention_head":
            return trf("attention L{layer} H{head}", language, layer=layer + 1, head=head + 1)
        if method == "attention_layer":
            return trf("attention, mean of layer {layer}", language, layer=layer + 1)
        return {
            "rollout": tr("rollout", language),
            "gradient_x_input": tr("gradient × input", language),
            "integrated_gradients": tr("integrated gradients", language),
            "occlusion": tr("occlusion", language),
        }[method]

    # -- what to compute ----------------------------------------------------------------------
    def settings(self) -> AttributionSettings:
        alignment = self.session.model.family.alignment_kind
        layer = head = 0
        if alignment is not None:
            layer = min(self.session.layer, alignment.layers - 1)
            head = min(self.session.head or 0, alignment.heads - 1)
        return AttributionSettings(
            layer=layer,
            head=head,
            ig_steps=self.ig_points.value(),
            occlusion=self.occlusion.currentData() or "unk",
            baseline=self.baseline.currentData() or "pad",
        )

    def wanted_key(self) -> tuple | None:
        snapshot, step = self.session.snapshot, self.session.cursor
        if snapshot is None or step < 0:
            return None
        ids = tuple(s.token_id for s in snapshot.steps[: step + 1])
        return ("attribution", snapshot.source, ids, step, self.settings(), snapshot.interventions)

    def refresh(self) -> None:
        language = self.session.language
        key = self.wanted_key()
        snapshot = self.session.snapshot
        self.show_what_if(
            tr(
                "WHAT-IF active: the attributions explain the model as shown, with its what-ifs",
                language,
            )
            if snapshot is not None and snapshot.interventions.active
            else None
        )
        if key is None:
            self.status.setText(
                tr(
                    "Run a source and take at least one step: the page explains the shown output token.",
                    language,
                )
            )
            self.progress.hide()
            return
        value = self.jobs.answer(key)
        if value is None:
            computing = self.jobs.ask(
                key, lambda stop: AttributionJob(key[1], key[2], key[3], key[4], key[5], stop)
            )
            self.stop_button.setEnabled(computing)
            self.run_button.setEnabled(False)
            if computing:
                self.status.setText(
                    trf("computing the attributions of step {step} …", language, step=key[3] + 1)
                )
            return
        self.jobs.arrived(key, value)
        self.stop_button.setEnabled(False)
        self.run_button.setEnabled(True)
        if isinstance(value, Stopped):
            self.status.setText(
                trf(
                    "Stopped. Press “Compute again” to compute step {step}.",
                    language,
                    step=key[3] + 1,
                )
            )
            return
        self.result = value
        self.draw(value, key[3])

    @property
    def job_key(self) -> tuple | None:
        return self.jobs.key

    @property
    def stops(self) -> dict:
        return self.jobs.stops

    def on_model_changed(self, model) -> None:
        if hasattr(self, "jobs"):
            self.jobs.forget()
        super().on_model_changed(model)

    def stop(self) -> None:
        self.jobs.stop()

    def run_again(self) -> None:
        self.jobs.again()
        self.on_state_changed()

    # -- drawing ------------------------------------------------------------------------------
    def draw(self, result: Attribution, step: int) -> None:
        self.shown_step = step
        rows = scaled_rows(result, step)
        self.shown_rows = rows
        layer, head = result.settings.layer or 0, result.settings.head
        self.rows.show_matrix(rows, None, levels=(-1.0, 1.0))
        tokens = [*result.source_tokens, *result.read_tokens[: step + 1]]
        names = [self.method_name(m, layer, head) for m in METHODS]
        names = [
            n if m not in result.unavailable else f"{n} (—)" for n, m in zip(names, METHODS, strict=True)
        ]
        self.rows.set_ticks(names, tokens)
        self.separator.setValue(result.n_source)
        self.rows.plot.setTitle(
            tr("source tokens | tokens the decoder read", self.session.language),
            color=LABEL_COLOR,
            size="10pt",
        )
        for method, cell in self.agreement_maps.items():
            cell.plot.setTitle(
                trf(
                    "agreement with {method}",
                    self.session.language,
                    method=self.method_name(method, layer, head),
                ),
                color=LABEL_COLOR,
                size="9pt",
            )
            values = result.agreement.get(method)
            if values is None:
                cell.show_matrix(np.zeros((0, 0)), None)
                self.agreement_labels[method].clear()
                continue
            cell.show_matrix(values[step], None, levels=(-1.0, 1.0))
            layers, heads = values.shape[1:]
            cell.set_ticks([f"L{i + 1}" for i in range(layers)], [f"H{i + 1}" for i in range(heads)])
            self.agreement_labels[method].set_cells(
                [[number(rho, 2, signed=True) for rho in row] for row in values[step]],
                values[step],
                pg.colormap.get(DIVERGING),
                (-1.0, 1.0),
            )
            cell.viewbox.setMaximumSize(heads * MAX_CELL_PX, layers * MAX_CELL_PX)
            cell.plot.getAxis("bottom").setMaximumWidth(heads * MAX_CELL_PX)
            cell.plot.getAxis("left").setMaximumHeight(layers * MAX_CELL_PX)
            cell.plot.setMaximumHeight(AXES_PX + layers * MAX_CELL_PX)  # the axis stays by the map
        self.status.setText(self.summary(result, step))

    def summary(self, result: Attribution, step: int) -> str:
        language = self.session.language
        ig = integrated_gradients_summary(result, step, language)
        occlusion = tr(
            "Occlusion replaced each source token by <unk>."
            if result.occlusion_mode == "unk"
            else "Occlusion removed each source token (the tokenizer has no <unk>, or you chose it).",
            language,
        )
        text = trf(
            "Step {step} writes {token} (log p = {logprob}). Attention head: cross-attention "
            "L{layer} H{head}. {ig} {occlusion}",
            language,
            step=step + 1,
            token=repr(display_token(result.output_tokens[step])),
            logprob=number(result.logprob[step], 4),
            layer=(result.layer or 0) + 1,
            head=result.settings.head + 1,
            ig=ig,
            occlusion=occlusion,
        )
        if result.unavailable:
            text += " " + tr(
                "This model has no attention: only the gradient and occlusion rows have values.",
                language,
            )
        return text

    # -- mouse ----------------------------------------------------------------------------------
    def on_mouse_moved(self, scene_pos) -> None:
        language = self.session.language
        result, rows = self.result, self.shown_rows
        if result is None or rows is None:
            return
        found = self.rows.cell_at(scene_pos)
        if found is not None:
            row, column = found
            method = METHODS[row]
            raw = result.scores.get(method)
            value = raw[self.shown_step, column] if raw is not None else np.nan
            source = column < result.n_source
            index = column if source else column - result.n_source
            token = result.source_tokens[index] if source else result.read_tokens[index]
            language = language
            if source:
                where = tr("source", language, disambiguation="attribution: a token of the source")
            else:
                where = tr("read", language)
            self.hover.setText(
                trf(
                    "{method} · {token} ({where} {index}): {value}",
                    language,
                    method=self.method_name(method, result.layer or 0, result.settings.head),
                    token=repr(display_token(token)),
                    where=where,
                    index=index + 1,
                    value=score(value, 4, signed=True),
                )
            )
            return
        for method, cell in self.agreement_maps.items():
            found = cell.cell_at(scene_pos)
            if found is not None and method in result.agreement:
                layer, head = found
                value = result.agreement[method][self.shown_step, layer, head]
                self.hover.setText(
                    trf(
                        "L{layer} H{head} · Spearman ρ with {method}: {value}",
                        language,
                        layer=layer + 1,
                        head=head + 1,
                        method=self.method_name(method, layer, head),
                        value=number(value, 3, signed=True),
                    )
                )
                return

    def on_mouse_clicked(self, event) -> None:
        if self.result is None:
            return
        for cell in self.agreement_maps.values():
            found = cell.cell_at(event.scenePos())
            if found is not None:
                self.session.select_head(*found)
                return

    def detach(self) -> None:
        self.jobs.close()
        super().detach()
