"""Beam search drawn as a tree, and the cross-attention of any hypothesis in it.

The engine records the whole search (``snapshot.beam``): every candidate it kept, finished or
pruned, with its cumulative log-probability. Columns are output steps; each box is one
token. The tree grows as the user steps: nodes past the shown step are hidden (or, on
request, drawn faintly). Clicking a box runs the decoder teacher-forced over that
hypothesis's tokens on the worker and shows the cross-attention it paid to the source.
"""

from __future__ import annotations

import html

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from model.generation.records import BeamResult
from visualizer.i18n import tr, trf
from visualizer.panels.base import ConceptPanel
from visualizer.panels.beam_tree import (
    BeamTreeView,
    best_path,
    hypothesis_text,
    signed,
    status_name,
    strategy_name,
)
from visualizer.state.jobs import HypothesisAttentionJob
from visualizer.state.session import Session
from visualizer.state.token_labels import start_token
from visualizer.widgets.heatmap import BACKGROUND, MatrixPlot


# -- the panel --------------------------------------------------------------------------------
class BeamPanel(ConceptPanel):
    key = "beam"

    def explain(self, language: str) -> str:
        return tr(
            "<b>Beam search</b> keeps the <i>k</i> most probable partial outputs (hypotheses), not "
            "just the single most likely token. Each step extends every hypothesis by every token, "
            "ranks all the extensions by summed log-probability, keeps the best <i>k</i> and "
            "prunes the rest. A hypothesis that writes &lt;eos&gt; is finished; the search stops "
            "when no open one can still beat the best finished one. (The paper used a beam of 4 "
            "and a length penalty; this model ranks by the plain sum.)<br>Columns are output "
            "steps; each box is a token and the cumulative log-probability of its hypothesis; gold "
            "is the output. Click a box to see that hypothesis's cross-attention.",
            language,
        )

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(session, parent)
        self.selected: int | None = None  # a clicked node; None = follow the output at the shown step
        self.built_for: tuple | None = None  # (beam, language) the tree was laid out for
        self.shown: np.ndarray | None = None  # the heatmap's matrix

        self.notice = QLabel()
        self.notice.setWordWrap(True)
        self.notice.setStyleSheet("font-size: 11pt; padding: 8px;")
        self.switch_button = QPushButton()
        # it hides itself once beam search is on: had it the focus, Qt would hand it to the
        # Source box, and → and End would edit text instead of stepping
        self.switch_button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.switch_button.clicked.connect(self.switch_to_beam)
        self.outer.addWidget(self.notice)
        button_row = QHBoxLayout()
        button_row.setContentsMargins(8, 0, 0, 0)
        button_row.addWidget(self.switch_button)
        button_row.addStretch(1)
        self.outer.addLayout(button_row)

        self.content = QWidget()
        content = QVBoxLayout(self.content)
        content.setContentsMargins(0, 0, 0, 0)
        controls = QHBoxLayout()
        self.legend = QLabel()
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        self.legend.setWordWrap(True)  # wraps on a narrow window instead of being cut
        controls.addWidget(self.legend, 1)
        self.future_box = QCheckBox()
        self.future_box.toggled.connect(self.on_state_changed)
        controls.addWidget(self.future_box)
        controls.addSpacing(12)
        self.layer_caption, self.head_caption = QLabel(), QLabel()
        self.layer_combo, self.head_combo = QComboBox(), QComboBox()
        for caption, combo in ((self.layer_caption, self.layer_combo), (self.head_caption, self.head_combo)):
            controls.addWidget(caption)
            controls.addWidget(combo)
            combo.activated.connect(self.on_head_chosen)
        content.addLayout(controls)

        self.tree = BeamTreeView()
        self.tree.node_clicked.connect(self.select_node)
        self.heat = pg.GraphicsLayoutWidget()
        self.heat.setBackground(BACKGROUND)
        self.heat_title = self.heat.ci.addLabel("", row=0, col=0, colspan=2, color="#eeeeee", size="10pt")
        plot = self.heat.ci.addPlot(row=1, col=0)
        self.matrix = MatrixPlot(plot, session.colormap)
        self.colormap = session.colormap
        for side in ("left", "bottom"):
            plot.getAxis(side).setTextPen("#dddddd")
            plot.getAxis(side).setStyle(tickFont=QFont("DejaVu Sans", 10), hideOverlappingLabels=False)
        self.colorbar = pg.ColorBarItem(
            values=(0, 1), colorMap=pg.colormap.get(session.colormap), interactive=False, width=14
        )
        self.colorbar.setImageItem(self.matrix.image)
        self.heat.ci.addItem(self.colorbar, row=1, col=1)
        self.heat.ci.layout.setColumnMinimumWidth(1, 60)
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(self.tree)
        splitter.addWidget(self.heat)
        splitter.setChildrenCollapsible(False)
        self.tree.setMinimumHeight(200)
        self.heat.setMinimumHeight(160)
        splitter.setSizes([540, 460])  # kept in proportion when the splitter is first laid out
        content.addWidget(splitter, 1)
        self.outer.addWidget(self.content, 1)
        self.outer.addStretch(0)  # keeps the notice at the top while the tree is hidden
        session.settings_changed.connect(self.on_state_changed)
        session.model_changed.connect(self.on_model_changed)

    def detach(self) -> None:
        self.session.settings_changed.disconnect(self.on_state_changed)
        self.session.model_changed.disconnect(self.on_model_changed)
        super().detach()

    # -- user actions ---------------------------------------------------------------------
    def switch_to_beam(self) -> None:
        self.session.set_settings(self.session.with_settings(strategy="beam"))

    def select_node(self, node_id: int) -> None:
        """Show the attention of hypothesis ``node_id`` of the shown tree."""
        self.selected = node_id
        self.on_state_changed()

    def on_head_chosen(self) -> None:
        self.session.select_head(self.layer_combo.currentIndex(), self.head_combo.currentData())

    def on_model_changed(self, _model) -> None:
        self.built_for = None
        self.selected = None

    # -- drawing --------------------------------------------------------------------------
    def refresh(self) -> None:
        session, language = self.session, self.session.language
        snapshot = session.snapshot
        self.retranslate()
        beam_on = session.settings.strategy == "beam"
        beam = snapshot.beam if snapshot is not None and beam_on else None
        self.switch_button.setVisible(not beam_on)
        self.notice.setVisible(beam is None)
        self.content.setVisible(beam is not None)
        if beam is None and self.built_for is not None:
            self.tree.clear()
            self.built_for = None
        if not beam_on:
            self.notice.setText(
                trf(
                    "The decoding strategy is <b>{strategy}</b>: it follows one hypothesis, so there is no "
                    "tree to draw. Beam search keeps several hypotheses at once.",
                    language,
                    strategy=strategy_name(session.settings.strategy, language),
                )
            )
            return
        if beam is None:
            self.notice.setText(
                tr(
                    "Take a step (→): beam search runs at the first step, and its tree grows here as you "
                    "step.",
                    language,
                )
            )
            return
        if self.built_for is None or self.built_for[0] is not beam or self.built_for[1] != language:
            if self.built_for is None or self.built_for[0] is not beam:
                self.selected = None
            self.tree.build(beam, snapshot.tokenizer, language)
            self.built_for = (beam, language)
        node_id = self.shown_node(beam, session.cursor)
        self.tree.show_until(session.cursor, self.future_box.isChecked(), node_id)
        self.show_attention(beam, node_id)

    def retranslate(self) -> None:
        language = self.session.language
        self.switch_button.setText(tr("Switch to beam search", language))
        self.legend.setText(
            tr(
                "<span style='color:#7fa7d9'>■</span> in the beam &nbsp; "
                "<span style='color:#5bd17a'>■</span> finished (&lt;eos&gt;) &nbsp; "
                "<span style='color:#8a8a8a'>■</span> pruned &nbsp; "
                "<span style='color:#ffb300'>━</span> best hypothesis &nbsp; "
                "<span style='color:#4fc3f7'>▢</span> shown below &nbsp;·&nbsp; "
                "click a box to see its attention",
                language,
            )
        )
        self.future_box.setText(tr("Show later steps (faint)", language))
        self.layer_caption.setText(tr("Layer", language))
        self.head_caption.setText(tr("Head", language))
        self.matrix.plot.setLabel("left", tr("token written", language))
        self.matrix.plot.setLabel("bottom", tr("source", language))
        if self.colormap != self.session.colormap:
            self.colormap = self.session.colormap
            self.matrix.set_colormap(self.colormap)
            self.colorbar.setColorMap(pg.colormap.get(self.colormap))
        model = self.session.model
        if model is None:
            return
        kind = model.family.alignment_kind
        if kind is None:
            return
        layers, heads = kind.layers, kind.heads
        if self.layer_combo.count() != layers:
            self.layer_combo.clear()
            self.layer_combo.addItems([str(i + 1) for i in range(layers)])
        self.head_combo.clear()  # refilled: the "mean" entry follows the language
        self.head_combo.addItem(tr("mean", language), None)
        for head in range(heads):
            self.head_combo.addItem(str(head + 1), head)
        self.layer_combo.setCurrentIndex(min(self.session.layer, layers - 1))
        self.head_combo.setCurrentIndex(0 if self.session.head is None else self.session.head + 1)

    def shown_node(self, beam: BeamResult, cursor: int) -> int:
        """The clicked node, or else the output's hypothesis at the shown step."""
        if self.selected is not None and self.selected < len(beam.nodes):
            return self.selected
        on_path = [beam.nodes[i] for i in best_path(beam)]
        return max((n for n in on_path if n.step <= cursor), key=lambda n: n.step).id

    def show_attention(self, beam: BeamResult, node_id: int) -> None:
        """Ask for (or draw) the cross-attention of the hypothesis ending at ``node_id``."""
        session, language, snapshot = self.session, self.session.language, self.session.snapshot
        tokenizer = snapshot.tokenizer
        path = beam.path(node_id)
        self.shown = None
        if not path:
            self.clear_heatmap(
                trf(
                    "The start ({start}): no token written yet. Click a later box.",
                    language,
                    start=html.escape(start_token(tokenizer)),
                )
            )
            return
        if session.model.family.alignment_kind is None:  # the tree only: nothing aligns to the source
            self.clear_heatmap("this model has no attention over the source to show")
            return
        # a prefix of the best hypothesis reads the same rows as the whole of it (causal mask)
        asked = beam.path(beam.best_node) if node_id in best_path(beam) else path
        key = ("beam-attention", snapshot.source, snapshot.interventions, tuple(asked))
        cross = session.computed.get(key)
        hypothesis = hypothesis_text(beam, node_id, tokenizer)
        if cross is None:
            job = HypothesisAttentionJob(snapshot.source, tuple(asked), snapshot.interventions)
            session.compute(key, job)
            self.clear_heatmap(
                trf("computing the attention of “{text}”…", language, text=html.escape(hypothesis))
            )
            return
        layer = min(session.layer, cross.shape[0] - 1)
        head = None if session.head is None else min(session.head, cross.shape[1] - 1)
        weights = cross[layer].mean(0) if head is None else cross[layer, head]
        self.shown = weights[: len(path)]
        self.matrix.show_matrix(self.shown, None)
        rows = [tokenizer.token_text(token) for token in path]
        self.matrix.set_ticks(rows, snapshot.encoder.tokens)
        node = beam.nodes[node_id]
        if session.head is None:
            head = tr("mean of heads", language)
        else:
            head = trf("head {n}", language, n=session.head + 1)
        self.heat_title.setText(
            trf(
                "“{text}” · log p = {score} · {status} · layer {layer} · {head}",
                language,
                text=html.escape(hypothesis),
                score=signed(node.logprob),
                status=status_name(node.status, language),
                layer=layer + 1,
                head=head,
            )
        )

    def clear_heatmap(self, title: str) -> None:
        self.matrix.image.clear()
        self.matrix.shape = None
        self.matrix.row_outline.hide()
        self.heat_title.setText(title)
