"""Scaled dot-product attention, stage by stage, and what the masks do.

For the selected kind, layer and head: QKᵀ, ÷√d_k, the mask, the masked scores (−∞ drawn
in its own colour) and the softmax, side by side; the three score stages share one colour
scale (with its bar), so that ÷√d_k visibly shrinks the scores, and hovering a cell follows
its numbers through the pipeline (score → scaled → masked → weight); all from a
teacher-forced run of the live model (off the GUI thread). The decoder reads either what
it generated up to the shown step or a target the user types; a padded batch of two
sources shows the key-padding masks; a what-if removes the causal mask.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QCheckBox, QComboBox, QLabel, QLineEdit, QSizePolicy

from model.generation.forced_records import AttentionMatrices
from model.tasks.synthetic import solve, split_source
from visualizer.i18n import Translator, tr, trf
from visualizer.panels.base import ConceptPanel
from visualizer.state.jobs import TeacherForcedJob
from visualizer.state.token_labels import start_token
from visualizer.widgets.heatmap import MatrixPlot, display_token

NEG_INF_COLOR = "#000000"  # −∞: black, at neither end of the blue-white-red scale
STAGES = ("raw", "scaled", "mask", "masked", "softmax")
SCORE_STAGES = ("raw", "scaled", "masked")  # one shared colour scale: ÷√d_k must look smaller
# the grid's columns: the stages, a colour bar after the score stages and after the softmax
COLUMNS = {"raw": 0, "scaled": 1, "mask": 2, "masked": 3, "softmax": 5}
SCORE_BAR_COLUMN, WEIGHT_BAR_COLUMN = 4, 6
GENERATED_MODE = "decoder reads {start} + what it generated"  # the model's own start token


def second_source(source: str) -> tuple[str, str]:
    """A shorter source of the same task for the padded batch, and its answer if it has one."""
    try:
        task, text = split_source(source)
    except ValueError:
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


def stage_matrix(matrices: AttentionMatrices, stage: str, layer: int, head: int | None) -> np.ndarray:
    """[Q, K] for one stage; head None = the mean over heads."""
    if stage == "mask":
        return matrices.mask.astype(np.float32)
    source = {
        "raw": matrices.scores,
        "scaled": matrices.scaled_scores,
        "masked": matrices.masked_scores,
        "softmax": matrices.weights,
    }[stage][layer]
    return source.mean(0) if head is None else source[head]


def stage_titles(language: str) -> tuple[str, ...]:
    """The stages' titles, in STAGES order; two lines each: one long title would widen its
    column and squeeze the others."""
    return (
        tr("QKᵀ<br>(raw scores)", language),
        tr("÷ √d_k<br>(scaled)", language),
        tr("mask<br>(dark = blocked)", language),
        tr("masked scores<br>(−∞ in black)", language),
        tr("softmax<br>(weights)", language),
    )


def score_bound(matrices: AttentionMatrices, layer: int, head: int | None) -> float:
    """The shared symmetric colour bound of the score stages: the largest |raw score|."""
    raw = stage_matrix(matrices, "raw", layer, head)
    finite = np.abs(raw[np.isfinite(raw)])
    return float(finite.max()) if finite.size and finite.max() > 0 else 1.0


class MasksPanel(ConceptPanel):
    key = "masks"

    def explain(self, language: str) -> str:
        return tr(
            "<b>Scaled dot-product attention</b>: Attention(Q, K, V) = softmax(QKᵀ / √d_k) V. Each "
            "query row is compared with every key (QKᵀ), divided by √d_k, then a <b>mask</b> sets "
            "blocked entries to −∞ so that softmax gives them exactly zero weight. The decoder's "
            "<b>causal mask</b> hides the future; <b>padding masks</b> hide the &lt;pad&gt; tokens "
            "that make sequences of different lengths fit one batch. Below: the selected layer and "
            "head, stage by stage, from the live model run teacher-forced, as in training.",
            language,
        )

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
    def draw(self) -> None:
        session = self.session
        if getattr(self, "_rows", None) != len(self.items):
            self.build(len(self.items))
            self._rows = len(self.items)
        titles = stage_titles(session.language)
        self.hover.setText(" ")  # it described the cells as they were
        for row, item in enumerate(self.items):
            matrices = item.attention[session.kind]
            layer = min(session.layer, matrices.weights.shape[0] - 1)
            head = None if session.head is None else min(session.head, matrices.weights.shape[1] - 1)
            bound = score_bound(matrices, layer, head)
            self.score_bars[row].setLevels((-bound, bound))
            self.score_bars[row].axis.setLabel(tr("score", session.language))
            for column, stage in enumerate(STAGES):
                cell = self.cells[(row, stage)]
                matrix = stage_matrix(matrices, stage, layer, head)
                if stage in SCORE_STAGES:
                    # −∞ becomes NaN, drawn in the background colour
                    cell.show_matrix(
                        np.where(np.isneginf(matrix), np.nan, matrix), None, levels=(-bound, bound)
                    )
                else:
                    cell.show_matrix(matrix, None)
                cell.shown = matrix
                cell.set_ticks(matrices.query_tokens, matrices.key_tokens)
                prefix = f"{item.source!r}: " if len(self.items) > 1 else ""
                cell.plot.setTitle(f"{prefix}{titles[column]}", color="#dddddd", size="9pt")
        self.status.setText(self.describe())
        self.loss_label.setText(self.losses())

    def build(self, rows: int) -> None:
        self.plots.clear()
        self.cells.clear()
        self.score_bars = []
        for row in range(rows):
            for stage in STAGES:
                plot = self.plots.addPlot(row=row, col=COLUMNS[stage])
                colormap = "CET-D1" if stage in ("raw", "scaled", "masked") else "viridis"
                if stage == "mask":
                    colormap = "CET-L1"
                cell = MatrixPlot(plot, colormap)
                if stage == "mask":  # white = allowed, dark = blocked
                    reversed_grey = pg.colormap.get("CET-L1")
                    reversed_grey.reverse()
                    cell.image.setColorMap(reversed_grey)
                if stage == "masked":
                    cell.viewbox.setBackgroundColor(QColor(NEG_INF_COLOR))
                for side in ("left", "bottom"):
                    plot.getAxis(side).setTextPen("#dddddd")
                self.cells[(row, stage)] = cell
            score_bar = pg.ColorBarItem(
                values=(-1, 1),
                colorMap="CET-D1",
                interactive=False,
                width=10,
            )
            score_bar.setImageItem([self.cells[(row, stage)].image for stage in SCORE_STAGES])
            self.plots.addItem(score_bar, row=row, col=SCORE_BAR_COLUMN)
            self.score_bars.append(score_bar)
            weight_bar = pg.ColorBarItem(values=(0, 1), colorMap="viridis", interactive=False, width=10)
            weight_bar.setImageItem(self.cells[(row, "softmax")].image)
            self.plots.addItem(weight_bar, row=row, col=WEIGHT_BAR_COLUMN)
            for stage in STAGES:
                self.plots.ci.layout.setColumnStretchFactor(COLUMNS[stage], 1)

    # -- hover ------------------------------------------------------------------------------
    def on_mouse_moved(self, scene_pos) -> None:
        for (row, _stage), cell in self.cells.items():
            hit = cell.cell_at(scene_pos)
            if hit is not None and self.items is not None and row < len(self.items):
                self.hover.setText(self.pipeline_text(row, *hit))
                return

    def pipeline_text(self, row: int, query: int, key: int) -> str:
        """One cell of the shown head through every stage: score → scaled → masked → weight."""
        session = self.session
        matrices = self.items[row].attention[session.kind]
        layer = min(session.layer, matrices.weights.shape[0] - 1)
        head = None if session.head is None else min(session.head, matrices.weights.shape[1] - 1)
        values = {stage: stage_matrix(matrices, stage, layer, head)[query, key] for stage in STAGES}
        blocked = bool(values["mask"])
        masked = "−∞" if np.isneginf(values["masked"]) else f"{values['masked']:.3f}"
        query_token = display_token(matrices.query_tokens[query])
        key_token = display_token(matrices.key_tokens[key])
        return trf(
            "query {query} {query_token!r} · key {key} {key_token!r}: "
            "QKᵀ {raw:.3f} → ÷√d_k {scaled:.3f} → mask: {mask} → {masked} → softmax {weight:.4f}",
            session.language,
            query=query,
            query_token=query_token,
            key=key,
            key_token=key_token,
            raw=values["raw"],
            scaled=values["scaled"],
            mask=tr("blocked" if blocked else "open", session.language),
            masked=masked,
            weight=values["softmax"],
        )

    def describe(self) -> str:
        session = self.session
        language = session.language
        title = session.model.family.kind(session.kind).title
        if session.head is None:
            who = tr("the mean of the heads", language)
        else:
            who = trf("head {n}", language, disambiguation="ordinal: the nth head", n=session.head + 1)
        item = self.items[0].attention[session.kind]
        return trf(
            "{kind}, layer {layer}, {who}; scale 1/√d_k = {scale:.4f}; the mask blocks {blocked} of "
            "{size} entries (click a head on the 'Attention heads' page to select it)",
            language,
            kind=tr(title, language),
            layer=min(session.layer, item.weights.shape[0] - 1) + 1,
            who=who,
            scale=item.scale,
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
            parts.append(f"{position}: {predicted_token!r}{mark} {loss:.3f}")
        shown = item.loss[: last + 1]
        if not np.isfinite(shown).any():
            return ""
        mean = float(np.nanmean(shown))
        title = tr(
            "prediction and cross-entropy (nats) at each decoder position, mean", self.session.language
        )
        return f"{title} {mean:.3f}: " + " · ".join(parts)
