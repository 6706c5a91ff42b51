"""T5's relative position bias, as the live model has it: each head's bias against the distance
from query to key, its buckets marked, bidirectional in the encoder and causal in the decoder,
and the bias matrix the encoder adds to its scores for the shown source.

The numbers come from the model's own bias table and bucketing (``model.probes.relative_bias``);
nothing is recomputed here.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from model.probes.relative_bias import BiasCurve, RelativeBias
from visualizer.i18n import tr, trf
from visualizer.panels.base import ConceptPanel
from visualizer.state.jobs import RelativeBiasJob
from visualizer.widgets.heatmap import BACKGROUND, MatrixPlot

LABEL_COLOR = "#dddddd"
HEAD_COLOR = "#ffb300"  # the selected head
OTHER_COLOR = (150, 150, 150, 90)  # the other heads, faint
EDGE_COLOR = (120, 170, 255, 110)  # bucket edges


class RelativeBiasPanel(ConceptPanel):
    key = "relative_bias"

    def explain(self, language: str) -> str:
        return tr(
            "<b>Relative position bias (T5).</b> T5 adds no position vector to its tokens. Instead "
            "each head learns one number for every <i>bucket</i> of relative distance between "
            "query and key, and adds it to the score Q·Kᵀ before the softmax (T5 does not divide "
            "by √d_k). What a head prefers, the word just before, the next one, or anything far "
            "away, reads off its curve. The buckets are exact for near tokens and ever wider for "
            "far ones, so the model tells “2 apart” from “3 apart” but not 90 from 100.",
            language,
        )

    def __init__(self, session, parent=None) -> None:
        super().__init__(session, parent)
        self.canvas = pg.GraphicsLayoutWidget()
        self.canvas.setBackground(BACKGROUND)
        self.canvas.setMinimumHeight(360)
        self.outer.addWidget(self.canvas, 1)
        self.curve_plots = {
            side: self.canvas.addPlot(row=row, col=0) for row, side in enumerate(("encoder", "decoder"))
        }
        for plot in self.curve_plots.values():
            plot.showGrid(x=False, y=True, alpha=0.2)
            plot.getAxis("left").enableAutoSIPrefix(False)
            plot.setMouseEnabled(x=False, y=False)
        self.matrix = MatrixPlot(self.canvas.addPlot(row=0, col=1, rowspan=2), session.colormap)
        self.canvas.ci.layout.setColumnStretchFactor(0, 3)
        self.canvas.ci.layout.setColumnStretchFactor(1, 2)
        self.info = QLabel()
        self.info.setWordWrap(True)
        self.info.setTextFormat(Qt.TextFormat.RichText)
        self.outer.addWidget(self.info)
        self.bias: RelativeBias | None = None
        self.head_curves: dict[str, pg.PlotDataItem] = {}  # the selected head's curve per plot title

    def selected_head(self, heads: int) -> int:
        head = self.session.head
        return 0 if head is None else min(head, heads - 1)

    def refresh(self) -> None:
        snapshot = self.session.snapshot
        if snapshot is None:
            self.info.setText(tr("run a source first", self.session.language))
            return
        tokens = list(snapshot.encoder.tokens)
        key = ("relative_bias", tuple(tokens))
        self.session.compute(key, RelativeBiasJob(tuple(tokens)))
        self.bias = self.session.computed.get(key)
        if self.bias is None:
            return
        head = self.selected_head(self.bias.encoder.bias.shape[0])
        language = self.session.language
        head_name = trf("head {n}", language, disambiguation="ordinal: the nth head", n=head + 1)
        for side, curve, title in (
            ("encoder", self.bias.encoder, tr("encoder (bidirectional): bias against key − query", language)),
            ("decoder", self.bias.decoder, tr("decoder (causal): bias against key − query", language)),
        ):
            self.draw_curve(self.curve_plots[side], curve, head, title)
        self.matrix.show_matrix(
            self.bias.source_matrix[head], None, levels=symmetric(self.bias.source_matrix)
        )
        plot = self.matrix.plot
        title = trf("added to the encoder's scores for this source · {head}", language, head=head_name)
        plot.setTitle(title, color=LABEL_COLOR, size="10pt")
        self.matrix.set_ticks(self.bias.source_tokens, self.bias.source_tokens)
        self.info.setText(
            trf(
                "{buckets} buckets, learned per head in the first layer and added in every layer. "
                "Exact for small distances, log-spaced up to {max_distance}, one bucket beyond "
                "(blue lines: bucket edges). Orange: {head}; grey: the other heads.",
                language,
                buckets=self.bias.num_buckets,
                max_distance=self.bias.max_distance,
                head=head_name,
            )
        )

    def draw_curve(self, plot: pg.PlotItem, curve: BiasCurve, head: int, title: str) -> None:
        plot.clear()
        plot.setTitle(title, color=LABEL_COLOR, size="10pt")
        plot.setLabel("bottom", tr("key position − query position", self.session.language))
        plot.setLabel("left", tr("bias added to the score", self.session.language))
        for edge in curve.edges:
            plot.addItem(pg.InfiniteLine(edge, angle=90, pen=pg.mkPen(EDGE_COLOR, width=1)))
        for other in range(curve.bias.shape[0]):
            if other != head:
                plot.plot(
                    curve.distance, curve.bias[other], pen=pg.mkPen(OTHER_COLOR, width=1), stepMode=None
                )
        self.head_curves[title] = plot.plot(
            curve.distance, curve.bias[head], pen=pg.mkPen(HEAD_COLOR, width=2.5)
        )
        plot.addItem(
            pg.InfiniteLine(0, angle=90, pen=pg.mkPen(LABEL_COLOR, width=1, style=Qt.PenStyle.DotLine))
        )


def symmetric(values: np.ndarray) -> tuple[float, float]:
    bound = float(np.abs(values).max()) or 1.0
    return -bound, bound
