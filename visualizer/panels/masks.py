"""Attention stage by stage, as the loaded model computes it, and what the masks do.

For the selected kind, layer and head: how the kind makes its scores, in its family's own
stages (``visualizer.panels.score_stages``: QKᵀ and ÷√d_k for the Transformer; W s, U h,
tanh(W s + U h) and vᵀ· for additive attention; s · h for dot-product attention ...), then
the mask, the masked scores (−∞ drawn in its own colour) and the softmax, side by side. The
score stages share one colour scale (with its bar), so that ÷√d_k visibly shrinks the
scores, and hovering a cell follows its numbers through the pipeline (score → scaled →
masked → weight); all from a teacher-forced run of the live model (off the GUI thread). The
decoder reads either what it generated up to the shown step or a target the user types; a
padded batch of two sources shows the key-padding masks; a what-if removes the causal mask.
"""

from __future__ import annotations

import copy
from dataclasses import replace

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QCheckBox, QComboBox, QLabel, QLineEdit, QSizePolicy

from model.tasks.synthetic import solve, split_source
from visualizer.i18n import Translator, tr, trf
from visualizer.numbers import number
from visualizer.panels.base import ConceptPanel
from visualizer.panels.score_stages import (
    MASK,
    MASKED,
    SCORE_STAGES,
    SOFTMAX,
    Stage,
    axis_labels,
    explanation,
    page_stages,
    part_text,
    pipeline_text,
    query_words,
    scale_words,
    score_bound,
    stage_matrix,
    stage_title,
    symmetric_bound,
)
from visualizer.state.jobs import TeacherForcedJob
from visualizer.state.token_labels import start_token
from visualizer.widgets.heatmap import MatrixPlot, display_token

NEG_INF_COLOR = "#000000"  # −∞: black, at neither end of the blue-white-red scale
GENERATED_MODE = "decoder reads {start} + what it generated"  # the model's own start token


def second_source(source: str) -> tuple[str, str]:
    """A shorter source of the same task for the padded batch, and its answer if it has one."""
    try:
        task, text = split_source(source)
    except ValueError:
        if not isinstance(source, str):  # an audio file: the batch's job says it needs text
            return source, ""
        return source[: max(1, len(source) // 2)], ""
    shorter = f"{task}: {text[: max(1, len(text) // 2)]}"
    try:
        return shorter, solve(shorter)
    except ValueError:
        return shorter, ""


def generated_target(snapshot, cursor: int) -> tuple[int, ...]:
    """The tokens generated up to the shown step, as a teacher-forced target (at most max_len - 1).

    Their ids, not their text: a subword tokenizer may split the decoded text differently from
    how the model wrote it, and the decoder must read exactly what it generated."""
    ids = list(snapshot.output_ids[: cursor + 1])
    if ids and ids[-1] == snapshot.tokenizer.eos_id:  # the batch adds <eos> as the last target
        ids.pop()
    return tuple(ids[: snapshot.info.max_target_len - 1])  # the decoder reads <bos> too


def request_capture(session, sources, targets, interventions) -> list | None:
    """The teacher-forced capture of ``sources``/``targets``, or None after asking for it.

    One key for everyone: the masks and the ÷√d_k panel share the run they both need.
    """
    sources, targets = tuple(sources), tuple(targets)
    key = ("capture", sources, targets, interventions)
    session.compute(key, TeacherForcedJob(sources, targets, interventions))
    return session.computed.get(key)


def grid_columns(stages: tuple[Stage, ...]) -> tuple[dict[str, int], int, int]:
    """Each stage's column in the grid, and the columns of the two colour bars: the scores'
    after the masked scores, the weights' after the softmax."""
    columns, column = {}, 0
    score_bar = weight_bar = 0
    for stage in stages:
        columns[stage.name] = column
        column += 1
        if stage.name == MASKED:
            score_bar, column = column, column + 1
        elif stage.name == SOFTMAX:
            weight_bar, column = column, column + 1
    return columns, score_bar, weight_bar


class MasksPanel(ConceptPanel):
    key = "masks"

    def explain(self, language: str) -> str:
        """How the selected kind makes its scores, in its family's words, then the masks."""
        model = self.session.model
        info = model.family if model is not None else None
        if info is None or not info.has_kind(self.session.kind):
            return explanation(None, True, language)
        causal = any(kind.causal for kind in info.kinds)
        return explanation(info.kind(self.session.kind).score, causal, language)

    def __init__(self, session, parent=None) -> None:
        super().__init__(session, parent)
        self.kind = QComboBox()  # the same choice as the tabs on the 'Attention heads' page
        self.kind.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.kind.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)  # never cut
        self.kind.currentIndexChanged.connect(self.on_kind_chosen)
        self.mode = QComboBox()
        self.mode.addItem("", "generated")  # named by name_generated_mode
        self.mode.addItem("decoder reads a target you type (teacher forcing)", "target")
        self.target = QLineEdit()
        self.target.setMinimumWidth(140)
        self.target.setPlaceholderText("target, e.g. noitnetta")
        self.target.setEnabled(False)
        self.no_causal = QCheckBox("what if: remove the causal mask")
        self.batch = QCheckBox("padded batch of two sources")
        # the status is not wrapped: it is one line, and the hover line sits between it and the plots
        self.status, self.plots = self.add_view(
            (self.kind, self.mode, self.target, self.no_causal, self.batch), canvas_height=260, wrap=False
        )
        self.translator = Translator()
        self.translator.add(self.name_generated_mode, GENERATED_MODE)
        self.translator.add(
            lambda text: self.mode.setItemText(1, text), "decoder reads a target you type (teacher forcing)"
        )
        self.translator.add(self.no_causal.setText, "what if: remove the causal mask")
        self.translator.add(self.batch.setText, "padded batch of two sources")
        self.translator.add(self.target.setPlaceholderText, "target, e.g. noitnetta")
        self.translator.apply(session.language)
        self.mode.currentIndexChanged.connect(self.on_controls)
        self.target.editingFinished.connect(self.on_controls)
        self.no_causal.toggled.connect(self.on_controls)
        self.batch.toggled.connect(self.on_controls)
        self.hover = QLabel(" ")  # the hovered cell through the pipeline; goes with its state
        self.hover.setStyleSheet("font-family: monospace; padding: 2px 4px;")
        self.outer.insertWidget(self.outer.indexOf(self.plots), self.hover)
        self.plots.scene().sigMouseMoved.connect(self.on_mouse_moved)
        self.cells: dict[tuple[int, str], MatrixPlot] = {}
        self.score_bars: list[pg.ColorBarItem] = []
        self.loss_label = QLabel()
        self.loss_label.setWordWrap(True)
        self.outer.addWidget(self.loss_label)
        self.items = None  # the TeacherForcedItem list shown
        self.grid: tuple[int, tuple[Stage, ...]] | None = None  # (rows, stages) the plots are built for

    def on_language_changed(self, language: str) -> None:
        if hasattr(self, "translator"):
            self.translator.apply(language)
            self.fill_kinds(force=True)
        super().on_language_changed(language)

    def name_generated_mode(self, template: str) -> None:
        """The first mode's name, with the loaded model's own start token (Marian's is <pad>)."""
        model = self.session.model
        self.mode.setItemText(0, template.format(start=start_token(model.tokenizer) if model else "…"))

    def fill_kinds(self, force: bool = False) -> None:
        """The kinds of the loaded model in the combo box, titled in the session's language."""
        model = self.session.model
        kinds = model.family.kinds if model is not None else ()
        shown = tuple(self.kind.itemData(i) for i in range(self.kind.count()))
        if shown == tuple(k.name for k in kinds) and not force:
            return
        self.kind.blockSignals(True)
        self.kind.clear()
        for kind in kinds:
            self.kind.addItem(tr(kind.title, self.session.language), kind.name)
        self.kind.blockSignals(False)

    def on_kind_chosen(self, index: int) -> None:
        self.session.set_kind(self.kind.itemData(index))

    def on_controls(self, *_args) -> None:
        self.target.setEnabled(self.mode.currentData() == "target")
        self.on_state_changed()

    # -- what to compute ------------------------------------------------------------------
    def refresh(self) -> None:
        language = self.session.language
        explained = self.explain(language)  # it follows the model and the kind shown
        self.set_explanation(explained)
        self.name_generated_mode(tr(GENERATED_MODE, language))  # another model, another start
        self.fill_kinds()
        self.kind.blockSignals(True)
        self.kind.setCurrentIndex(self.kind.findData(self.session.kind))
        self.kind.blockSignals(False)
        snapshot = self.session.snapshot
        if snapshot is None:
            self.status.setText(tr("run a source first", language))
            return
        if self.mode.currentData() == "target":
            target = self.target.text()[: snapshot.info.max_target_len - 1]
        else:  # <bos> + the tokens generated up to the shown step, as if training on them
            target = generated_target(snapshot, self.session.cursor)
        sources, targets = [snapshot.source], [target]
        if self.batch.isChecked():
            other, other_target = second_source(snapshot.source)
            sources.append(other)
            targets.append(other_target)
        # only for a model that can run without its causal mask (never a what-if it ignores)
        can_remove = snapshot.info.capabilities.supports("no_causal_mask")
        self.no_causal.setEnabled(can_remove)
        no_causal = self.no_causal.isChecked() and can_remove
        banner = (
            "WHAT-IF: the causal mask is removed; every position sees the whole target, "
            "which the model never did in training"
        )
        self.show_what_if(tr(banner, language) if no_causal else None)
        interventions = replace(snapshot.interventions, no_causal_mask=no_causal)
        items = request_capture(self.session, sources, targets, interventions)
        if items is None:
            self.status.setText(tr("running the model …", language))
            return
        self.items = items
        self.draw()

    # -- drawing --------------------------------------------------------------------------
    def stages(self) -> tuple[Stage, ...]:
        """The selected kind's stages: its family's score function, then mask, masked, softmax."""
        return page_stages(self.session.model.family.kind(self.session.kind).score)

    def layer_and_head(self, matrices) -> tuple[int, int | None]:
        """The selected layer and head (None: the mean of the heads), within this kind's."""
        session = self.session
        layer = min(session.layer, matrices.weights.shape[0] - 1)
        head = None if session.head is None else min(session.head, matrices.weights.shape[1] - 1)
        return layer, head

    def shown_query(self, row: int) -> int:
        """The query a one-query stage shows (tanh(W s + U h)): the shown step's, or the item's
        last real query row where it has fewer."""
        item = self.items[row]
        kind = self.session.model.family.kind(self.session.kind)
        padding = item.target_padding if kind.queries == "target" else item.source_padding
        return max(0, min(self.session.cursor, int((~padding).sum()) - 1))

    def draw(self) -> None:
        session = self.session
        language = session.language
        stages = self.stages()
        if self.grid != (len(self.items), stages):
            self.build(len(self.items), stages)
        self.hover.setText(" ")  # it described the cells as they were
        one_query = any(stage.one_query for stage in stages)
        for row, item in enumerate(self.items):
            matrices = item.attention[session.kind]
            layer, head = self.layer_and_head(matrices)
            query = self.shown_query(row)
            bound = score_bound(matrices, layer, head)
            self.score_bars[row].setLevels((-bound, bound))
            self.score_bars[row].axis.setLabel(tr("score", language))
            # a batch's rows are told apart by their source, named once, on the row's first plot:
            # on every plot the names would widen seven plots past the window
            source = f"{item.source!r}: " if len(self.items) > 1 else ""
            token = query_words(matrices, query, language)
            for stage in stages:
                cell = self.cells[(row, stage.name)]
                matrix = stage_matrix(matrices, stage, layer, head, query)
                rows, columns = stage.display_axes
                # with a one-query stage, the query it shows is outlined wherever queries are rows
                outline = query if one_query and rows == "query" else None
                if stage.name in SCORE_STAGES:  # −∞ becomes NaN, drawn in the background colour
                    drawn = np.where(np.isneginf(matrix), np.nan, matrix)
                    cell.show_matrix(drawn, outline, levels=(-bound, bound))
                elif stage.part:  # its own symmetric scale: these are not scores
                    part_bound = symmetric_bound(matrix)
                    cell.show_matrix(matrix, outline, levels=(-part_bound, part_bound))
                else:
                    cell.show_matrix(matrix, outline)
                cell.shown = matrix
                row_labels = axis_labels(matrices, rows, matrix.shape[0])
                cell.set_ticks(row_labels, axis_labels(matrices, columns, matrix.shape[1]))
                title = stage_title(stage, language, token)
                prefix = source if stage == stages[0] else ""
                cell.plot.setTitle(f"{prefix}{title}", color="#dddddd", size="9pt")
        self.status.setText(self.describe())
        self.loss_label.setText(self.losses())

    def build(self, rows: int, stages: tuple[Stage, ...]) -> None:
        """A row of plots per batch item: the stages, with the scores' and the weights' colour bars."""
        self.plots.clear()
        self.cells.clear()
        self.score_bars = []
        columns, score_bar_column, weight_bar_column = grid_columns(stages)
        for row in range(rows):
            left_rows = None  # what the rows of the plot to the left are
            for stage in stages:
                plot = self.plots.addPlot(row=row, col=columns[stage.name])
                colormap = {SOFTMAX: "viridis", MASK: "CET-L1"}.get(stage.name, "CET-D1")
                cell = MatrixPlot(plot, colormap)
                if stage.name == MASK:  # white = allowed, dark = blocked
                    # a copy: pyqtgraph hands out one shared map, which reverse() changes in place
                    reversed_grey = copy.deepcopy(pg.colormap.get("CET-L1"))
                    reversed_grey.reverse()
                    cell.image.setColorMap(reversed_grey)
                if stage.name == MASKED:
                    cell.viewbox.setBackgroundColor(QColor(NEG_INF_COLOR))
                for side in ("left", "bottom"):
                    plot.getAxis(side).setTextPen("#dddddd")
                # rows named once, at the left, while the plots to the right have the same rows:
                # seven plots' worth of repeated labels do not fit a 1024-pixel window
                if stage.display_axes[0] == left_rows:
                    plot.hideAxis("left")
                left_rows = stage.display_axes[0]
                self.cells[(row, stage.name)] = cell
            score_bar = pg.ColorBarItem(values=(-1, 1), colorMap="CET-D1", interactive=False, width=10)
            scores = [self.cells[(row, stage.name)].image for stage in stages if stage.name in SCORE_STAGES]
            score_bar.setImageItem(scores)
            self.plots.addItem(score_bar, row=row, col=score_bar_column)
            self.score_bars.append(score_bar)
            weight_bar = pg.ColorBarItem(values=(0, 1), colorMap="viridis", interactive=False, width=10)
            weight_bar.setImageItem(self.cells[(row, SOFTMAX)].image)
            self.plots.addItem(weight_bar, row=row, col=weight_bar_column)
        layout = self.plots.ci.layout
        for column in range(max(layout.columnCount(), weight_bar_column + 1)):
            # the plots share the width; the bars (and columns a bigger grid left) take none
            layout.setColumnStretchFactor(column, 1 if column in columns.values() else 0)
        self.grid = (rows, stages)

    # -- hover ------------------------------------------------------------------------------
    def on_mouse_moved(self, scene_pos) -> None:
        if self.items is None or self.grid is None:
            return
        stages = {stage.name: stage for stage in self.grid[1]}
        for (row, name), cell in self.cells.items():
            hit = cell.cell_at(scene_pos)
            if hit is not None and row < len(self.items):
                self.hover.setText(self.cell_text(row, stages[name], *hit))
                return

    def cell_text(self, row: int, stage: Stage, cell_row: int, cell_column: int) -> str:
        """A part's cell by itself; a (query, key) cell through every stage."""
        if not stage.part:
            return self.pipeline_text(row, cell_row, cell_column)
        matrices = self.items[row].attention[self.session.kind]
        shown = self.cells[(row, stage.name)].shown
        query = self.shown_query(row)
        return part_text(matrices, stage, shown, cell_row, cell_column, query, self.session.language)

    def pipeline_text(self, row: int, query: int, key: int) -> str:
        """One cell of the shown head through every stage: score → scaled → masked → weight."""
        matrices = self.items[row].attention[self.session.kind]
        layer, head = self.layer_and_head(matrices)
        return pipeline_text(matrices, self.grid[1], layer, head, query, key, self.session.language)

    def describe(self) -> str:
        session = self.session
        language = session.language
        kind = session.model.family.kind(session.kind)
        if session.head is None:
            who = tr("the mean of the heads", language)
        else:
            who = trf("head {n}", language, disambiguation="ordinal: the nth head", n=session.head + 1)
        item = self.items[0].attention[session.kind]
        return trf(
            "{kind}, layer {layer}, {who}; {scale}; the mask blocks {blocked} of "
            "{size} entries (click a head on the 'Attention heads' page to select it)",
            language,
            kind=tr(kind.title, language),
            layer=min(session.layer, item.weights.shape[0] - 1) + 1,
            who=who,
            scale=scale_words(kind.score, item.scale, language),
            blocked=int(item.mask.sum()),
            size=item.mask.size,
        )

    def losses(self) -> str:
        tokenizer = self.session.snapshot.tokenizer
        item = self.items[0]
        # reading what it generated, the last position's <eos> target is ours, not the model's
        last = self.session.cursor if self.mode.currentData() == "generated" else len(item.loss) - 1
        parts = []
        for position, (target, predicted, loss) in enumerate(
            zip(item.target_ids, item.predictions, item.loss, strict=True)
        ):
            if np.isnan(loss) or position > last:
                continue
            mark = "✓" if target == predicted else "✗"
            predicted_token = display_token(tokenizer.token_text(int(predicted)))
            parts.append(f"{position}: {predicted_token!r}{mark} {number(float(loss))}")
        shown = item.loss[: last + 1]
        if not np.isfinite(shown).any():
            return ""
        mean = float(np.nanmean(shown))
        title = tr(
            "prediction and cross-entropy (nats) at each decoder position, mean", self.session.language
        )
        return f"{title} {number(mean)}: " + " · ".join(parts)
