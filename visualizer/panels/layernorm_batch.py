"""The LayerNorm page's second tab, mixed into ``LayerNormPanel``: the source batched with a
shorter one padded with <pad>, run through the live model to the first Add & Norm (off the GUI
thread); the per-feature statistics a naive BatchNorm would compute, with and without the pad
positions, beside LayerNorm's per-token statistics batched and alone (identical). Also the
plot helpers both tabs draw with.
"""

from __future__ import annotations

import html

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from model.probes.norm_records import PaddedBatchStats
from visualizer.i18n import tr
from visualizer.widgets.heatmap import BACKGROUND, display_token, fit_label_height

OUTPUT_COLOR = "#4fc3f7"  # what comes out of a norm
WITH_PADS_COLOR = "#ff5252"  # BatchNorm counting the pads
REAL_ONLY_COLOR = "#66bb6a"  # BatchNorm over the real tokens only
PAD_SHADE = QColor(120, 120, 120, 70)
AXIS_TEXT = "#dddddd"


def new_plot(layout: pg.GraphicsLayout, row: int, col: int) -> pg.PlotItem:
    plot = layout.addPlot(row=row, col=col)
    plot.setMenuEnabled(False)
    plot.hideButtons()
    plot.setMouseEnabled(x=False, y=False)
    plot.showGrid(x=False, y=True, alpha=0.2)
    font = QFont("DejaVu Sans", 9)
    for side in ("left", "bottom"):
        axis = plot.getAxis(side)
        axis.setTextPen(AXIS_TEXT)
        axis.setStyle(tickFont=font)
        axis.enableAutoSIPrefix(False)  # "mean (x0.001)" reads as a different quantity
    return plot


def honest_range(stat: str, *series: np.ndarray) -> tuple[float, float]:
    """A y range that does not blow tiny differences up: a mean axis spans at least ±1 around 0,
    a std axis at least 0..1.5 (a normalised vector has mean 0 and std 1), wider only when the
    values need it."""
    arrays = [np.asarray(s, dtype=np.float64).ravel() for s in series if s is not None and len(s)]
    values = np.concatenate(arrays) if arrays else np.zeros(1)
    values = values[np.isfinite(values)]
    largest = float(np.abs(values).max()) if values.size else 0.0
    if stat == "mean":
        bound = max(1.0, largest) * 1.1
        return -bound, bound
    return 0.0, max(1.5, largest) * 1.1


def stat_curve(plot: pg.PlotItem, color: str, symbol: str | None, line: bool = True) -> pg.PlotDataItem:
    pen = pg.mkPen(color, width=2) if line else None
    if symbol is None:
        return plot.plot([], [], pen=pen)
    return plot.plot([], [], pen=pen, symbol=symbol, symbolSize=6, symbolBrush=color, symbolPen=None)


def token_ticks(labels: list[str]) -> list[list[tuple[int, str]]]:
    return [[(i, display_token(label)) for i, label in enumerate(labels)]]


class PaddedBatchPage:
    """The padded batch's tab; the panel has ``session`` and ``norm_words``."""

    def build_batch_page(self) -> QWidget:
        """The tab: what the batch shows, above its plots (drawn by ``show_batch``)."""
        batch_page = QWidget()
        page = QVBoxLayout(batch_page)
        page.setContentsMargins(4, 4, 4, 4)
        self.batch_label = QLabel()
        self.batch_label.setWordWrap(True)
        self.batch_label.setTextFormat(Qt.TextFormat.RichText)
        page.addWidget(self.batch_label)
        self.batch_view = pg.GraphicsLayoutWidget()
        self.batch_view.setBackground(BACKGROUND)
        self.batch_view.setMinimumHeight(320)
        page.addWidget(self.batch_view, 1)
        self.build_batch_plots()
        self.batch_shown: PaddedBatchStats | None = None
        return batch_page

    def build_batch_plots(self) -> None:
        layout = self.batch_view.ci
        self.bn_mean_plot, self.bn_std_plot = new_plot(layout, 0, 0), new_plot(layout, 1, 0)
        self.ln_mean_plot, self.ln_std_plot = new_plot(layout, 0, 1), new_plot(layout, 1, 1)
        self.bn_std_plot.setXLink(self.bn_mean_plot)
        self.ln_std_plot.setXLink(self.ln_mean_plot)
        for plot in (self.bn_mean_plot, self.ln_mean_plot):
            plot.getAxis("bottom").setStyle(showValues=False)
        self.bn_curves: dict[str, pg.PlotDataItem] = {}
        for plot, stat in ((self.bn_mean_plot, "mean"), (self.bn_std_plot, "std")):
            real = stat_curve(plot, REAL_ONLY_COLOR, None)
            with_pads = stat_curve(plot, WITH_PADS_COLOR, None)
            gap = pg.FillBetweenItem(real, with_pads, brush=QColor(255, 82, 82, 60))
            plot.addItem(gap)
            self.bn_curves[f"{stat}_real"], self.bn_curves[f"{stat}_with_pads"] = real, with_pads
        self.ln_curves: dict[str, pg.PlotDataItem] = {}
        self.pad_regions: list[pg.LinearRegionItem] = []
        for plot, stat in ((self.ln_mean_plot, "mean"), (self.ln_std_plot, "std")):
            region = pg.LinearRegionItem(movable=False, brush=PAD_SHADE, pen=pg.mkPen(None))
            region.hide()
            plot.addItem(region)
            self.pad_regions.append(region)
            self.ln_curves[f"{stat}_alone"] = stat_curve(plot, OUTPUT_COLOR, None)
            self.ln_curves[f"{stat}_batched"] = stat_curve(plot, WITH_PADS_COLOR, "o", line=False)

    def show_batch(self, stats: PaddedBatchStats | None) -> None:
        words = self.norm_words()
        self.set_batch_titles(stats.padded_row + 1 if stats is not None else 2)
        if stats is None:
            self.batch_label.setText(tr("Running the padded batch through the model…", self.session.language))
            if self.batch_shown is not None:  # a new source: do not show the old one's batch
                self.batch_shown = None
                for curve in (*self.bn_curves.values(), *self.ln_curves.values()):
                    curve.setData([], [])
            return
        row = stats.padded_row
        n_real = len(stats.alone_mean[row])
        dmean, dstd = stats.batch_norm_shift
        self.batch_label.setText(
            words["batch"].format(
                a=html.escape(stats.texts[0]),
                b=html.escape(stats.texts[1]),
                na=len(stats.alone_mean[0]),
                nb=len(stats.alone_mean[1]),
                pads=stats.pad_count,
                dmean=dmean,
                dstd=dstd,
                d=stats.residual.shape[-1],
                dln=stats.layer_norm_difference,
                red=WITH_PADS_COLOR,
                blue=OUTPUT_COLOR,
            )
        )
        if stats is self.batch_shown:
            return
        self.batch_shown = stats
        features = np.arange(stats.residual.shape[-1])
        self.bn_curves["mean_real"].setData(features, stats.batch_mean_real)
        self.bn_curves["mean_with_pads"].setData(features, stats.batch_mean_with_pads)
        self.bn_curves["std_real"].setData(features, stats.batch_std_real)
        self.bn_curves["std_with_pads"].setData(features, stats.batch_std_with_pads)
        positions = np.arange(len(stats.tokens[row]))
        self.ln_curves["mean_batched"].setData(positions, stats.layer_mean[row])
        self.ln_curves["std_batched"].setData(positions, stats.layer_std[row])
        self.ln_curves["mean_alone"].setData(positions[:n_real], stats.alone_mean[row])
        self.ln_curves["std_alone"].setData(positions[:n_real], stats.alone_std[row])
        # the grey region is the padding (the title says so); its ticks stay short, never overlapping
        pads = stats.pad_mask[row]
        labels = ["·" if pad else token for token, pad in zip(stats.tokens[row], pads, strict=True)]
        ticks = token_ticks(labels)
        for plot in (self.ln_mean_plot, self.ln_std_plot):
            plot.getAxis("bottom").setTicks(ticks)
            fit_label_height(plot.getAxis("bottom"), [label for _x, label in ticks[0]])
        self.ln_mean_plot.setXRange(-0.5, len(positions) - 0.5, padding=0.02)
        for plot, stat, curves in (
            (self.bn_mean_plot, "mean", ("mean_real", "mean_with_pads")),
            (self.bn_std_plot, "std", ("std_real", "std_with_pads")),
        ):
            plot.setYRange(*honest_range(stat, *(self.bn_curves[c].yData for c in curves)), padding=0)
        for plot, stat in ((self.ln_mean_plot, "mean"), (self.ln_std_plot, "std")):
            series = (stats.layer_mean if stat == "mean" else stats.layer_std)[row]
            plot.setYRange(*honest_range(stat, series), padding=0)
        for region in self.pad_regions:
            region.setRegion((n_real - 0.5, len(positions) - 0.5))
            region.setVisible(stats.pad_count > 0)

    def set_batch_titles(self, row: int) -> None:
        words = self.norm_words()

        def title(plot: pg.PlotItem, words: str, legend: list[tuple[str, str]]) -> None:
            keys = " ".join(f"<span style='color:{color}'>{html.escape(t)}</span>" for t, color in legend)
            plot.setTitle(f"{html.escape(words)} &nbsp; {keys}", color=AXIS_TEXT, size="9pt")

        language = self.session.language
        bn_legend = [
            (tr("— real tokens only", language), REAL_ONLY_COLOR),
            (tr("— pads included", language), WITH_PADS_COLOR),
        ]
        ln_legend = [
            (tr("— alone", language), OUTPUT_COLOR),
            (tr("● batched with padding", language), WITH_PADS_COLOR),
            (tr("▒ <pad>", language), "#aaaaaa"),
        ]
        title(self.bn_mean_plot, tr("BatchNorm mean, per feature", language), bn_legend)
        title(self.bn_std_plot, tr("BatchNorm std, per feature", language), [])
        title(self.ln_mean_plot, words["ln_mean"].format(row=row), ln_legend)
        title(self.ln_std_plot, words["ln_std"].format(row=row), [])
        self.bn_std_plot.setLabel("bottom", tr("feature", language))
