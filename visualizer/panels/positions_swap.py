"""The positional-encoding panel's what-if (swap two source characters, with and without the
encoding, and see the encoder's attention only permuted without it) and its plot helpers.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, QSignalBlocker, Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QGraphicsRectItem,
)

from model.probes.positions import (
    SwapComparison,
    default_swap,
    permuted_deviation,
)
from visualizer.i18n import tr, trf
from visualizer.state.jobs import SwapJob
from visualizer.widgets.heatmap import BACKGROUND, MatrixPlot, display_token

LABEL_COLOR = "#dddddd"


# -- drawing helpers -----------------------------------------------------------------------
def style_axes(plot: pg.PlotItem, size: int = 9) -> None:
    font = QFont("DejaVu Sans", size)
    for side in ("left", "bottom"):
        axis = plot.getAxis(side)
        axis.setTextPen(LABEL_COLOR)
        axis.setStyle(tickFont=font)


def heat_plot(plot: pg.PlotItem) -> pg.ImageItem:
    """A fixed (no pan/zoom) plot for a matrix with row 0 at the top; returns its image."""
    image = pg.ImageItem(axisOrder="row-major")
    plot.addItem(image)
    plot.setMouseEnabled(x=False, y=False)
    plot.setMenuEnabled(False)
    plot.hideButtons()
    plot.invertY(True)
    plot.getViewBox().setDefaultPadding(0)
    style_axes(plot)
    return image


def outline(plot: pg.PlotItem, color: str, width: float = 2, dashed: bool = False) -> QGraphicsRectItem:
    rect = QGraphicsRectItem()
    pen = pg.mkPen(color, width=width, cosmetic=True)
    if dashed:
        pen.setStyle(Qt.PenStyle.DashLine)
    rect.setPen(pen)
    rect.setZValue(10)
    rect.hide()
    plot.addItem(rect)
    return rect


def place(rect: QGraphicsRectItem, x: float, y: float, width: float, height: float) -> None:
    rect.setRect(QRectF(x, y, width, height))
    rect.show()


def position_ticks(count: int) -> list[list[tuple[float, str]]]:
    step = 16 if count > 32 else 8
    return [[(p + 0.5, str(p)) for p in range(0, count, step)]]


class SwapWhatIf:
    """Mixed into ``PositionsPanel``: the swap what-if's canvas, computation and drawing."""

    def build_swap_canvas(self) -> pg.GraphicsLayoutWidget:
        """Four attention matrices: with PE (source, swapped), without PE (source, swapped)."""
        canvas = pg.GraphicsLayoutWidget()
        canvas.setBackground(BACKGROUND)
        layout = canvas.ci
        self.swap_heading = layout.addLabel("", row=0, col=0, colspan=4, color=LABEL_COLOR, size="10pt")
        self.swap_titles = [
            layout.addLabel("", row=1, col=col, colspan=2, color=LABEL_COLOR, size="10pt") for col in (0, 2)
        ]
        self.swap_matrices: list[MatrixPlot] = []
        self.swap_marks: list[list[QGraphicsRectItem]] = []
        for col in range(4):
            plot = layout.addPlot(row=2, col=col)
            matrix = MatrixPlot(plot, self.session.colormap)
            style_axes(plot, 8)
            for side in ("left", "bottom"):
                plot.getAxis(side).setStyle(hideOverlappingLabels=False)
            self.swap_matrices.append(matrix)
            self.swap_marks.append([outline(plot, "#ffffff", width=1, dashed=True) for _ in range(4)])
        self.swap_colorbar = pg.ColorBarItem(values=(0, 1), interactive=False, width=12)
        self.swap_colorbar.setImageItem([m.image for m in self.swap_matrices])
        layout.addItem(self.swap_colorbar, row=2, col=4)
        canvas.hide()
        self.swap_canvas = canvas
        return canvas

    # -- events ----------------------------------------------------------------------------

    def draw_what_if(self) -> None:
        language = self.session.language
        active = self.what_if_button.isChecked()
        for widget in (self.swap_a, self.swap_b):
            widget.setEnabled(active)
        self.canvas.setVisible(not active)
        self.swap_canvas.setVisible(active)
        self.show_what_if(
            tr(
                "What-if active: the source is encoded again WITHOUT positional encoding, beside the "
                "model as trained (the generation above is unchanged).",
                language,
            )
            if active
            else None
        )
        snapshot = self.session.snapshot
        self.comparison = None
        self.swap_deviation, self.all_heads_deviation = {}, {}
        if not active or snapshot is None:
            return
        source = snapshot.source
        self.fit_swap_controls(source)
        a, b = self.swap_a.value(), self.swap_b.value()
        ids = snapshot.encoder.src_ids  # compare token ids: two unknown characters are both <unk>
        if a == b or source[a] == source[b] or ids[a] == ids[b]:
            self.swap_heading.setText(
                tr("the two swapped characters are the same: choose two that differ", language)
            )
            for matrix in self.swap_matrices:
                matrix.image.clear()
            self.drawn.pop("comparison", None)
            return
        base = replace(self.session.interventions, no_positional=False)
        key = ("positions", "swap", source, a, b, base)
        self.comparison = self.request(key, SwapJob(source, a, b, base))
        if self.comparison is None:
            self.swap_heading.setText(tr("running the encoder on both sources…", language))
            return
        self.measure(self.comparison)
        inputs = (id(self.comparison), self.session.layer, self.session.head, language)
        if self.changed("comparison", *inputs):
            self.draw_comparison(self.comparison, source, a, b)

    def fit_swap_controls(self, source: str) -> None:
        """Fit the swap controls to a new source (with a default pair), and name the characters."""
        if source != self.swap_source:
            self.swap_source = source
            for spin, value in zip((self.swap_a, self.swap_b), default_swap(source), strict=True):
                with QSignalBlocker(spin):
                    spin.setRange(0, max(len(source) - 1, 0))
                    spin.setValue(value)
        for spin in (self.swap_a, self.swap_b):
            spin.setSuffix(f"  {display_token(source[spin.value()])}")

    def selected_head(self, weights: np.ndarray) -> np.ndarray:
        """[S, S] the session's layer and head (or the mean of heads) of [L, H, S, S]."""
        layer = min(self.session.layer, weights.shape[0] - 1)
        return weights[layer].mean(0) if self.session.head is None else weights[layer, self.session.head]

    def measure(self, comparison: SwapComparison) -> None:
        """max |A′ − P A Pᵀ| for the selected head and over all heads, with and without PE."""
        perm = comparison.permutation
        for name, (original, swapped) in (
            ("with_pe", comparison.with_pe),
            ("without_pe", comparison.without_pe),
        ):
            shown = permuted_deviation(self.selected_head(original), self.selected_head(swapped), perm)
            self.swap_deviation[name] = shown
            self.all_heads_deviation[name] = permuted_deviation(original, swapped, perm)

    def draw_comparison(self, comparison: SwapComparison, source: str, a: int, b: int) -> None:
        layer = min(self.session.layer, comparison.with_pe[0].shape[0] - 1)
        language = self.session.language
        who = (
            tr("mean of heads", language)
            if self.session.head is None
            else trf("head {h}", language, h=self.session.head + 1)
        )
        self.swap_heading.setText(
            trf("encoder self-attention · layer {layer} · {who}", language, layer=layer + 1, who=who)
        )
        runs = (("with_pe", comparison.with_pe), ("without_pe", comparison.without_pe))
        for index, (name, (original, swapped)) in enumerate(runs):
            verdict = tr("order matters" if name == "with_pe" else "order-blind: only permuted", language)
            color = "#ff8a80" if name == "with_pe" else "#b9f6ca"
            if name == "with_pe":
                title = trf(
                    "With PE (as trained): max |A′ − P A Pᵀ| = {dev:.3g}",
                    language,
                    dev=self.swap_deviation[name],
                )
            else:
                title = trf(
                    "Without PE: max |A′ − P A Pᵀ| = {dev:.2g}", language, dev=self.swap_deviation[name]
                )
            self.swap_titles[index].setText(f"{title} <span style='color:{color}'>({verdict})</span>")
            panes = (
                (self.selected_head(original), comparison.tokens, trf("“{text}”", language, text=source)),
                (
                    self.selected_head(swapped),
                    comparison.swapped_tokens,
                    trf("swapped {a}↔{b}", language, a=a, b=b),
                ),
            )
            for offset, (matrix, labels, caption) in enumerate(panes):
                column = 2 * index + offset
                plot = self.swap_matrices[column]
                plot.show_matrix(matrix, None)
                plot.set_ticks(labels, labels)
                plot.plot.setTitle(caption, color=LABEL_COLOR, size="9pt")
                self.mark_swapped(self.swap_marks[column], len(labels), a, b)

    def mark_swapped(self, marks: list[QGraphicsRectItem], length: int, a: int, b: int) -> None:
        """Dashed outlines on the rows and columns of the two swapped positions."""
        place(marks[0], 0, a, length, 1)
        place(marks[1], 0, b, length, 1)
        place(marks[2], a, 0, 1, length)
        place(marks[3], b, 0, 1, length)

    # -- the text under the picture --------------------------------------------------------

    def swap_text(self) -> str:
        source = self.swap_source
        if self.comparison is None or source is None:
            return ""
        a, b = self.swap_a.value(), self.swap_b.value()
        on, off = self.all_heads_deviation["with_pe"], self.all_heads_deviation["without_pe"]
        ca, cb = display_token(source[a]), display_token(source[b])
        text = trf(
            "P swaps source positions {a} and {b} (‘{ca}’ ↔ ‘{cb}’). Without positional encoding a "
            "token's vector is its embedding alone, and attention, Add &amp; Norm and the "
            "feed-forward network treat every position alike, so the encoder cannot see order: the "
            "swapped source's attention is the original's with rows and columns {a} and {b} "
            "exchanged (dashed), A′ = P A Pᵀ. Over all layers and heads the max deviation is "
            "{on:.3g} with PE and {off:.2g} without.",
            self.session.language,
            a=a,
            b=b,
            ca=ca,
            cb=cb,
            on=on,
            off=off,
        )
        if self.table is not None and self.table.kind == "none":
            text += " " + tr(
                "This model adds <b>no</b> positional encoding: the table is all zeros, and its "
                "encoder cannot tell one order of the source from another.",
                self.session.language,
            )
        return text
