"""LayerNorm: each token's statistics before and after every Add & Norm, and why not BatchNorm.

Top: for the selected layer (encoder or decoder), the mean and std of every token's d_model
features at the input and the output of each Add & Norm, from the engine's records. The
input wanders from token to token; the output sits on a flat line near β's average and γ's
size. Bottom: the current source batched with a shorter one padded with <pad>, run through
the live model to the first Add & Norm (off the GUI thread): the per-feature statistics a
naive BatchNorm would compute, with and without the pad positions, beside LayerNorm's
per-token statistics batched and alone (identical).
"""

from __future__ import annotations

import html

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QTabWidget, QVBoxLayout, QWidget

from model.probes.norm_records import NormAffine, PaddedBatchStats, RecordedNorms, recorded_norms
from visualizer.panels.base import ConceptPanel
from visualizer.panels.layernorm_text import SUBLAYER_NAMES, TEXT, WHAT_IF_NAMES, norm_text
from visualizer.panels.registry import TITLES
from visualizer.state.jobs import Job, NormAffineJob, PaddedBatchJob
from visualizer.widgets.heatmap import BACKGROUND, display_token

INPUT_COLOR = "#ffa040"  # the sum x + Sublayer(x) that goes into the LayerNorm
OUTPUT_COLOR = "#4fc3f7"  # what comes out
REFERENCE_COLOR = "#bbbbbb"
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


class LayerNormPanel(ConceptPanel):
    key = "layernorm"
    titles = TITLES["layernorm"]
    explanations = {
        "en": (
            "<b>Layer normalisation.</b> After every sublayer the Transformer adds the sublayer's output "
            "to its input (the residual connection) and normalises the sum: <i>LayerNorm(x + "
            "Sublayer(x))</i>, the paper's “Add &amp; Norm”. LayerNorm looks at <b>one token at a "
            "time</b>: it subtracts the mean of that token's d_model features, divides by their standard "
            "deviation, then applies a learned scale γ and shift β. Whatever goes in, every token comes "
            "out with about the same mean (β's average) and spread (about γ's size), which keeps deep "
            "stacks trainable. The first tab shows each token's mean and std before and after every "
            "Add &amp; Norm of the selected layer. The second asks: why not BatchNorm? It averages each "
            "feature over the whole batch, so the &lt;pad&gt; filling a shorter sentence leaks into "
            "everyone's statistics; LayerNorm's do not change."
        ),
        "zh": (
            "<b>层归一化（LayerNorm）。</b>Transformer 在每个子层之后，把子层的输出加回它的输入（残差连接），"
            "再对和做归一化：<i>LayerNorm(x + Sublayer(x))</i>，即论文中的“Add &amp; Norm”。LayerNorm "
            "<b>每次只看一个词元</b>：减去该词元 d_model 个特征的均值，除以它们的标准差，"
            "再乘以可学习的缩放 γ、加上平移 β。因此无论输入如何，每个词元输出的均值都约为 β 的平均值，"
            "离散程度约为 γ 的大小，这让很深的网络也能稳定训练。第一个标签页显示所选层每个 Add &amp; Norm "
            "前后各词元的均值与标准差。第二个标签页回答：为什么不用 BatchNorm？"
            "它对每个特征在整个批次上求平均，较短句子补上的 &lt;pad&gt; 会混进所有词元的统计量；"
            "LayerNorm 的统计量则不受影响。"
        ),
    }

    def __init__(self, session, parent=None) -> None:
        super().__init__(session, parent)
        self.pages = QTabWidget()
        self.outer.addWidget(self.pages, 1)

        # page 1: the selected layer's Add & Norms, from the engine's records
        layer_page = QWidget()
        page = QVBoxLayout(layer_page)
        page.setContentsMargins(4, 4, 4, 4)
        controls = QHBoxLayout()
        self.stack_label = QLabel()
        self.stack = QComboBox()
        self.stack.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.stack.addItems(["encoder", "decoder"])  # texts follow the language
        self.layer_box = QComboBox()
        self.layer_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.header = QLabel()
        for widget in (self.stack_label, self.stack, self.layer_box):
            controls.addWidget(widget)
        controls.addSpacing(12)
        controls.addWidget(self.header, 1)
        page.addLayout(controls)
        self.legend = QLabel()
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        page.addWidget(self.legend)
        self.model_norms = QLabel()  # what this model's norms are and where they sit
        self.model_norms.setWordWrap(True)
        page.addWidget(self.model_norms)
        self.layer_view = pg.GraphicsLayoutWidget()
        self.layer_view.setBackground(BACKGROUND)
        self.layer_view.setMinimumHeight(280)
        page.addWidget(self.layer_view, 1)
        self.pages.addTab(layer_page, "")
        self.stack.currentIndexChanged.connect(self.on_stack_chosen)
        self.layer_box.currentIndexChanged.connect(self.on_layer_chosen)

        # page 2: a padded batch through the live model, BatchNorm's statistics beside LayerNorm's
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
        self.pages.addTab(batch_page, "")

        # page 1 holds, per sublayer, a mean plot over a std plot, built for the sublayers shown
        self.mean_plots: list[pg.PlotItem] = []
        self.std_plots: list[pg.PlotItem] = []
        self.curves: list[dict[str, pg.PlotDataItem]] = []  # per sublayer, by NORM_STATS name
        self.references: list[tuple[pg.InfiniteLine, pg.InfiniteLine]] = []  # β average, γ size
        self.shown: RecordedNorms | None = None
        self.build_batch_plots()
        self.batch_shown: PaddedBatchStats | None = None

    # -- user input -----------------------------------------------------------------------
    def on_stack_chosen(self, index: int) -> None:
        """The encoder's stack shows its first kind over source positions, the decoder's its
        first causal kind (the Transformer's enc_self and dec_self)."""
        session = self.session
        if session.model is None:
            return
        family = session.model.family
        encoder = index == 0
        if encoder != (not family.kind(session.kind).per_step):
            kind = family.resolve_kind("encoder" if encoder else "decoder")
            if kind is not None:
                session.set_kind(kind)

    def on_layer_chosen(self, index: int) -> None:
        if index >= 0 and index != self.session.layer:
            self.session.select_head(index, self.session.head)

    def text(self) -> dict[str, str]:
        """The panel's words for the loaded model's kind of norm and its placement."""
        language = self.session.language
        snapshot = self.session.snapshot
        if snapshot is None:
            return TEXT[language]
        capabilities = snapshot.info.capabilities
        return norm_text(language, capabilities.norm, capabilities.norm_placement)

    def sync_controls(self, encoder: bool, layers: int, layer: int) -> None:
        text = self.text()
        for widget in (self.stack, self.layer_box):
            widget.blockSignals(True)
        self.stack_label.setText(text["stack"])
        self.stack.setItemText(0, text["encoder"])
        self.stack.setItemText(1, text["decoder"])
        self.stack.setCurrentIndex(0 if encoder else 1)
        labels = [text["layer"].format(n=i + 1) for i in range(layers)]
        if [self.layer_box.itemText(i) for i in range(self.layer_box.count())] != labels:
            self.layer_box.clear()
            self.layer_box.addItems(labels)
        self.layer_box.setCurrentIndex(layer)
        for widget in (self.stack, self.layer_box):
            widget.blockSignals(False)
        reference = (
            ""
            if self.rms()
            else f"&nbsp; <span style='color:#888888'>{html.escape(text['reference'])}</span>"
        )
        self.legend.setText(
            f"<span style='color:{INPUT_COLOR}'>{text['input']}</span> &nbsp; "
            f"<span style='color:{OUTPUT_COLOR}'>{text['output']}</span> {reference}"
        )
        self.model_norms.setText(text["model_norms"])

    def rms(self) -> bool:
        """RMSNorm: no β and no mean subtracted, so no reference lines for where the output sits."""
        snapshot = self.session.snapshot
        return snapshot is not None and snapshot.info.capabilities.norm == "rmsnorm"

    # -- drawing --------------------------------------------------------------------------
    def refresh(self) -> None:
        session, snapshot = self.session, self.session.snapshot
        text = self.text()
        self.pages.setTabText(0, text["page_layer"].replace("&", "&&"))  # "&" alone marks a shortcut
        self.pages.setTabText(1, text["page_batch"])
        self.show_what_if(self.what_if_text())
        if snapshot is None:
            return
        affine = self.ask(("layernorm", "affine"), NormAffineJob())
        encoder = not snapshot.info.kind(session.kind).per_step
        norms = recorded_norms(snapshot, encoder, session.layer, session.cursor)
        info = snapshot.info
        self.sync_controls(encoder, info.layers_of("source" if encoder else "target"), norms.layer)
        self.show_recorded(norms, affine)
        key = ("layernorm", "padded-batch", snapshot.source, snapshot.interventions)
        self.show_batch(self.ask(key, PaddedBatchJob(snapshot.source, snapshot.interventions)))

    def ask(self, key: tuple, job: Job):
        """The answer to ``key`` if it has come; otherwise ask for it, once per loaded model."""
        session = self.session
        session.compute(key, job)  # asked once; a model load clears the answers, then it asks again
        return session.computed.get(key)

    def what_if_text(self) -> str | None:
        snapshot = self.session.snapshot
        if snapshot is None or not snapshot.interventions.active:
            return None
        names = WHAT_IF_NAMES[self.session.language]
        active = [label for name, label in names.items() if getattr(snapshot.interventions, name)]
        return TEXT[self.session.language]["what_if"].format(what=", ".join(active))

    def build_sublayer_plots(self, count: int) -> None:
        self.layer_view.clear()
        self.mean_plots, self.std_plots, self.curves, self.references = [], [], [], []
        layout = self.layer_view.ci
        for i in range(count):
            mean_plot, std_plot = new_plot(layout, 0, i), new_plot(layout, 1, i)
            std_plot.setXLink(mean_plot)
            mean_plot.getAxis("bottom").setStyle(showValues=False)
            curves = {}
            for plot, stat in ((mean_plot, "mean"), (std_plot, "std")):
                curves[f"in_{stat}"] = stat_curve(plot, INPUT_COLOR, "o")
                curves[f"out_{stat}"] = stat_curve(plot, OUTPUT_COLOR, "s")
            lines = []
            for plot in (mean_plot, std_plot):
                line = pg.InfiniteLine(angle=0, movable=False, pen=pg.mkPen(REFERENCE_COLOR, dash=[4, 4]))
                line.hide()
                plot.addItem(line, ignoreBounds=False)
                lines.append(line)
            self.mean_plots.append(mean_plot)
            self.std_plots.append(std_plot)
            self.curves.append(curves)
            self.references.append((lines[0], lines[1]))

    def show_recorded(self, norms: RecordedNorms, affine: NormAffine | None) -> None:
        text = self.text()
        names = SUBLAYER_NAMES[self.session.language]
        count = len(norms.sublayers)
        if len(self.curves) != count:
            self.build_sublayer_plots(count)
        self.shown = norms
        n = len(norms.labels)
        if norms.encoder:
            self.header.setText(text["header_enc"].format(layer=norms.layer + 1))
        elif n:
            self.header.setText(text["header_dec"].format(layer=norms.layer + 1))
        else:
            self.header.setText(text["no_steps"])
        pre = self.session.snapshot.info.capabilities.norm_placement == "pre"
        x = np.arange(n)
        for i, sublayer in enumerate(norms.sublayers):
            title = text["norm_pre" if pre else "add_norm"].format(i=i + 1, name=names[sublayer])
            self.mean_plots[i].setTitle(html.escape(title), color=AXIS_TEXT, size="10pt")
            self.mean_plots[i].setLabel("left", text["mean"])
            self.std_plots[i].setLabel("left", text["std"])
            for name, curve in self.curves[i].items():
                curve.setData(x, norms.stat(i, name))
            for plot, stat in ((self.mean_plots[i], "mean"), (self.std_plots[i], "std")):
                series = [norms.stat(i, f"{side}_{stat}") for side in ("in", "out")]
                plot.setYRange(*honest_range(stat, *series), padding=0)
            ticks = token_ticks(norms.labels)
            self.mean_plots[i].getAxis("bottom").setTicks(ticks)
            self.std_plots[i].getAxis("bottom").setTicks(ticks)
            self.mean_plots[i].setXRange(-0.5, max(n, 1) - 0.5, padding=0.02)
            self.show_reference(i, norms, affine)

    def show_reference(self, sublayer: int, norms: RecordedNorms, affine: NormAffine | None) -> None:
        lines = self.references[sublayer]
        if affine is None or self.rms():
            for line in lines:
                line.hide()
            return
        beta = affine.encoder_beta_mean if norms.encoder else affine.decoder_beta_mean
        gamma = affine.encoder_gamma_rms if norms.encoder else affine.decoder_gamma_rms
        lines[0].setValue(float(beta[norms.layer, sublayer]))
        lines[1].setValue(float(gamma[norms.layer, sublayer]))
        for line in lines:
            line.show()

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
        text = self.text()
        self.set_batch_titles(stats.padded_row + 1 if stats is not None else 2)
        if stats is None:
            self.batch_label.setText(text["computing"])
            if self.batch_shown is not None:  # a new source: do not show the old one's batch
                self.batch_shown = None
                for curve in (*self.bn_curves.values(), *self.ln_curves.values()):
                    curve.setData([], [])
            return
        row = stats.padded_row
        n_real = len(stats.alone_mean[row])
        dmean, dstd = stats.batch_norm_shift
        self.batch_label.setText(
            text["batch"].format(
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
        text = self.text()

        def title(plot: pg.PlotItem, words: str, legend: list[tuple[str, str]]) -> None:
            keys = " ".join(f"<span style='color:{color}'>{html.escape(t)}</span>" for t, color in legend)
            plot.setTitle(f"{html.escape(words)} &nbsp; {keys}", color=AXIS_TEXT, size="9pt")

        bn_legend = [(text["real_only"], REAL_ONLY_COLOR), (text["with_pads"], WITH_PADS_COLOR)]
        ln_legend = [
            (text["alone"], OUTPUT_COLOR),
            (text["batched"], WITH_PADS_COLOR),
            (text["pad_region"], "#aaaaaa"),
        ]
        title(self.bn_mean_plot, text["bn_mean"], bn_legend)
        title(self.bn_std_plot, text["bn_std"], [])
        title(self.ln_mean_plot, text["ln_mean"].format(row=row), ln_legend)
        title(self.ln_std_plot, text["ln_std"].format(row=row), [])
        self.bn_std_plot.setLabel("bottom", text["feature"])
