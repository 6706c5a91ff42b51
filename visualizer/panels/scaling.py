"""Why attention divides by √d_k: the same head with and without the scaling.

Both runs are the live model, teacher-forced on what it generated up to the shown step; the
second removes the ÷√d_k everywhere (a what-if). The entropy of every head shows the softmax
saturating without it: attention collapses onto one key.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QLabel

from visualizer.i18n import tr
from visualizer.panels.base import ConceptPanel
from visualizer.panels.masks import generated_target, request_capture
from visualizer.panels.registry import TITLES
from visualizer.widgets.heatmap import BACKGROUND, MatrixPlot

SCALED_COLOR = "#4fc3f7"
UNSCALED_COLOR = "#ff7043"


def layer_head_title(layer: int, head: int | None, language: str) -> str:
    """ "layer 2, head 3" / "第 2 层，第 3 个头" (head None: the mean of the heads)."""
    if language == "zh":
        return f"第 {layer + 1} 层，" + ("各头平均" if head is None else f"第 {head + 1} 个头")
    return f"layer {layer + 1}, " + ("mean of heads" if head is None else f"head {head + 1}")


class ScalingPanel(ConceptPanel):
    key = "scaling"
    titles = TITLES["scaling"]
    explanations = {
        "en": (
            "<b>Why divide by √d_k?</b> A dot product of two d_k-dimensional vectors with unit-variance "
            "components has variance d_k, so for large d_k the scores grow large, the softmax saturates "
            "on one key and its gradients vanish. Dividing by √d_k keeps the scores near unit variance. "
            "Left: the selected head as trained; right: the same weights with the scaling removed "
            "everywhere (a what-if). Below: the attention entropy of every head in both runs; lower "
            "entropy means sharper, more saturated attention."
        ),
        "zh": (
            "<b>为什么要除以 √d_k？</b>两个 d_k 维、各分量方差为 1 的向量的点积方差为 d_k，"
            "d_k 大时分数随之变大，softmax 会集中到一个键上而梯度消失。除以 √d_k 使分数的方差保持在 1 左右。"
            "左：训练时的所选注意力头；右：同一组权重但处处去掉缩放（假设实验）。"
            "下方：两次运行中每个头的注意力熵；熵越低，注意力越尖锐、越饱和。"
        ),
    }

    def __init__(self, session, parent=None) -> None:
        super().__init__(session, parent)
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.outer.addWidget(self.status)
        self.plots = pg.GraphicsLayoutWidget()
        self.plots.setBackground(BACKGROUND)
        self.plots.setMinimumHeight(330)
        self.outer.addWidget(self.plots, 1)
        self.scaled = MatrixPlot(self.plots.addPlot(row=0, col=0), session.colormap)
        self.unscaled = MatrixPlot(self.plots.addPlot(row=0, col=1), session.colormap)
        self.entropy_plot = self.plots.addPlot(row=1, col=0, colspan=2)
        self.entropy_plot.setLabel("left", "entropy (nats)")
        self.entropy_bars: list[pg.BarGraphItem] = []
        self.entropies: tuple[np.ndarray, np.ndarray] | None = None  # [L, H] with, without
        self.plots.ci.layout.setRowStretchFactor(0, 3)
        self.plots.ci.layout.setRowStretchFactor(1, 2)

    def refresh(self) -> None:
        snapshot = self.session.snapshot
        if snapshot is None:
            self.status.setText(tr("run a source first", self.session.language))
            return
        target = generated_target(snapshot, self.session.cursor)
        self.show_what_if(tr("WHAT-IF on the right: no ÷√d_k in any attention layer", self.session.language))
        runs = [  # with the scaling (the same run the masks panel shows) and without it
            request_capture(
                self.session, [snapshot.source], [target], replace(snapshot.interventions, no_scaling=scaling)
            )
            for scaling in (False, True)
        ]
        if None in runs:
            self.status.setText(tr("running the model twice …", self.session.language))
            return
        self.draw(runs[0][0], runs[1][0])

    def draw(self, scaled, unscaled) -> None:
        session = self.session
        kind = session.kind
        with_scale, without = scaled.attention[kind], unscaled.attention[kind]
        layer = min(session.layer, with_scale.weights.shape[0] - 1)
        for cell, matrices, label in (
            (self.scaled, with_scale, "÷√d_k"),
            (self.unscaled, without, tr("no ÷√d_k", session.language)),
        ):
            weights = matrices.weights[layer]
            matrix = weights.mean(0) if session.head is None else weights[session.head]
            cell.show_matrix(np.where(matrices.mask, np.nan, matrix), None)
            cell.shown = matrix
            cell.set_ticks(matrices.query_tokens, matrices.key_tokens)
            cell.plot.setTitle(
                f"{layer_head_title(layer, session.head, session.language)}: {label}",
                color="#dddddd",
                size="10pt",
            )
            for side in ("left", "bottom"):
                cell.plot.getAxis(side).setTextPen("#dddddd")
        self.entropies = (with_scale.entropy(), without.entropy())
        self.draw_entropy(*self.entropies)
        raw = with_scale.scores[layer][~np.broadcast_to(with_scale.mask, with_scale.scores[layer].shape)]
        self.entropy_plot.setLabel("left", tr("entropy (nats)", session.language))
        # the key in the title: a legend inside the plot covered the last heads' bars
        self.entropy_plot.setTitle(
            f"<span style='color:{SCALED_COLOR}'>■</span> ÷√d_k &nbsp; "
            f"<span style='color:{UNSCALED_COLOR}'>■</span> {tr('no ÷√d_k', session.language)}",
            color="#dddddd",
            size="9pt",
        )
        if session.language == "zh":
            self.status.setText(
                f"第 {layer + 1} 层原始分数 QKᵀ 的标准差为 {raw.std():.2f}；"
                f"除以 √d_k = {1 / with_scale.scale:.2f} 后为 {raw.std() * with_scale.scale:.2f}。"
                f"各头平均熵：有缩放 {self.entropies[0].mean():.3f} 奈特，"
                f"无缩放 {self.entropies[1].mean():.3f} 奈特。"
            )
            return
        self.status.setText(
            f"layer {layer + 1} raw scores QKᵀ: std {raw.std():.2f}; divided by √d_k = "
            f"{1 / with_scale.scale:.2f}: std {raw.std() * with_scale.scale:.2f}. Mean entropy over heads "
            f"{self.entropies[0].mean():.3f} nats with the scaling, {self.entropies[1].mean():.3f} without."
        )

    def draw_entropy(self, with_scale: np.ndarray, without: np.ndarray) -> None:
        for bars in self.entropy_bars:
            self.entropy_plot.removeItem(bars)
        layers, heads = with_scale.shape
        x = np.arange(layers * heads)
        self.entropy_bars = [
            pg.BarGraphItem(
                x=x - 0.2, height=with_scale.ravel(), width=0.4, brush=SCALED_COLOR, name="÷√d_k"
            ),
            pg.BarGraphItem(
                x=x + 0.2, height=without.ravel(), width=0.4, brush=UNSCALED_COLOR, name="no ÷√d_k"
            ),
        ]
        for bars in self.entropy_bars:
            self.entropy_plot.addItem(bars)
        ticks = [(i, f"L{i // heads + 1}H{i % heads + 1}") for i in x]
        self.entropy_plot.getAxis("bottom").setTicks([ticks])
