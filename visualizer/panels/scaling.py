"""Why attention divides by √d_k: the same head with and without the scaling.

Both runs are the live model, teacher-forced on what it generated up to the shown step; the
second removes the ÷√d_k everywhere (a what-if). The entropy of every head shows the softmax
saturating without it: attention collapses onto one key.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pyqtgraph as pg

from visualizer.i18n import tr, trf
from visualizer.panels.base import ConceptPanel
from visualizer.panels.masks import generated_target, request_capture
from visualizer.widgets.heatmap import MatrixPlot

SCALED_COLOR = "#4fc3f7"
UNSCALED_COLOR = "#ff7043"


def layer_head_title(layer: int, head: int | None, language: str) -> str:
    """ "layer 2, head 3" (head None: the mean of the heads)."""
    if head is None:
        name = tr("mean of heads", language)
    else:
        name = trf("head {n}", language, disambiguation="ordinal: the nth head", n=head + 1)
    return trf("layer {layer}, {head}", language, layer=layer + 1, head=name)


class ScalingPanel(ConceptPanel):
    key = "scaling"

    def explain(self, language: str) -> str:
        return tr(
            "<b>Why divide by √d_k?</b> A dot product of two d_k-dimensional vectors with "
            "unit-variance components has variance d_k, so for large d_k the scores grow large, "
            "the softmax saturates on one key and its gradients vanish. Dividing by √d_k keeps the "
            "scores near unit variance. Left: the selected head as trained; right: the same "
            "weights with the scaling removed everywhere (a what-if). Below: the attention entropy "
            "of every head in both runs; lower entropy means sharper, more saturated attention.",
            language,
        )

    def __init__(self, session, parent=None) -> None:
        super().__init__(session, parent)
        self.status, self.plots = self.add_view(canvas_height=330)
        self.scaled = MatrixPlot(self.plots.addPlot(row=0, col=0), session.colormap)
        self.unscaled = MatrixPlot(self.plots.addPlot(row=0, col=1), session.colormap)
        self.entropy_plot = self.plots.addPlot(row=1, col=0, colspan=2)
        self.entropy_plot.setLabel("left", "entropy (nats)")
        self.entropy_bars: list[pg.BarGraphItem] = []
        self.entropies: tuple[np.ndarray, np.ndarray] | None = None  # [L, H] with, without
        self.plots.ci.layout.setRowStretchFactor(0, 3)
        self.plots.ci.layout.setRowStretchFactor(1, 2)

    def refresh(self) -> None:
        language = self.session.language
        snapshot = self.session.snapshot
        if snapshot is None:
            self.status.setText(tr("run a source first", language))
            return
        target = generated_target(snapshot, self.session.cursor)
        self.show_what_if(tr("WHAT-IF on the right: no ÷√d_k in any attention layer", language))
        runs = [  # with the scaling (the same run the masks panel shows) and without it
            request_capture(
                self.session, [snapshot.source], [target], replace(snapshot.interventions, no_scaling=scaling)
            )
            for scaling in (False, True)
        ]
        if None in runs:
            self.status.setText(tr("running the model twice …", language))
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
        self.status.setText(
            trf(
                "layer {layer} raw scores QKᵀ: std {std:.2f}; divided by √d_k = {sqrt_dk:.2f}: std "
                "{scaled:.2f}. Mean entropy over heads {with_scaling:.3f} nats with the scaling, "
                "{without_scaling:.3f} without.",
                session.language,
                layer=layer + 1,
                std=raw.std(),
                sqrt_dk=1 / with_scale.scale,
                scaled=raw.std() * with_scale.scale,
                with_scaling=self.entropies[0].mean(),
                without_scaling=self.entropies[1].mean(),
            )
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
