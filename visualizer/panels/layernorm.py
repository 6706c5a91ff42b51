"""LayerNorm: each token's statistics before and after every Add & Norm, and why not BatchNorm.

Top: for the selected layer (encoder or decoder), the mean and std of every token's d_model
features at the input and the output of each Add & Norm, from the engine's records. The
input wanders from token to token; the output sits on a flat line near β's average and γ's
size. The second tab (``layernorm_batch``): the current source batched with a shorter one
padded with <pad>, run through the live model to the first Add & Norm (off the GUI thread):
the per-feature statistics a naive BatchNorm would compute, with and without the pad
positions, beside LayerNorm's per-token statistics batched and alone (identical).
"""

from __future__ import annotations

import html

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QTabWidget, QVBoxLayout, QWidget

from model.probes.norm_records import NormAffine, RecordedNorms, recorded_norms
from visualizer.i18n import tr, trf
from visualizer.panels.base import ConceptPanel
from visualizer.panels.layernorm_batch import (
    AXIS_TEXT,
    OUTPUT_COLOR,
    PaddedBatchPage,
    honest_range,
    new_plot,
    stat_curve,
    token_ticks,
)
from visualizer.state.jobs import Job, NormAffineJob, PaddedBatchJob
from visualizer.widgets.heatmap import BACKGROUND, fit_label_height

INPUT_COLOR = "#ffa040"  # the sum x + Sublayer(x) that goes into the LayerNorm
REFERENCE_COLOR = "#bbbbbb"


def norm_text(language: str, norm: str, placement: str) -> dict[str, str]:
    """The page's words that depend on the model's norms, ``norm`` (layernorm or rmsnorm) placed
    ``placement`` (post or pre): a pre-norm model's sublayers read the residual stream itself,
    and LayerNorm's name becomes RMSNorm's where the model has it."""
    pre = placement == "pre"
    words = {
        "input": tr("● input x (the residual stream)" if pre else "● input x + Sublayer(x)", language),
        "output": tr("■ output LayerNorm(…)", language),
        "page_layer": tr(
            "Before and after each norm" if pre else "Before and after each Add & Norm", language
        ),
        "page_batch": tr("LayerNorm vs BatchNorm on a padded batch", language),
        "ln_mean": tr("LayerNorm mean, per token of row {row}", language),
        "ln_std": tr("LayerNorm std, per token of row {row}", language),
        "batch": tr(
            "<b>A padded batch</b> at the first Add &amp; Norm (encoder layer 1): row 1 “{a}” "
            "({na} tokens), row 2 “{b}” ({nb} tokens + {pads} &lt;pad&gt;). "
            "<span style='color:{red}'><b>BatchNorm</b></span>, per feature over both rows and all "
            "positions: counting the pads moves a feature's mean by up to <b>{dmean:.3g}</b> and its std "
            "by up to <b>{dstd:.3g}</b>. <span style='color:{blue}'><b>LayerNorm</b></span>, per token "
            "over its {d} features: the real tokens' mean and std differ by at most <b>{dln:.1e}</b> "
            "batched vs alone — padding changes nothing.",
            language,
        ),
        "model_norms": model_norms(language, norm, pre),
    }
    if norm == "rmsnorm":
        words = {name: text.replace("LayerNorm", "RMSNorm") for name, text in words.items()}
    return words


def model_norms(language: str, norm: str, pre: bool) -> str:
    """What this model's norms are, under the legend."""
    if norm == "rmsnorm" and pre:
        return tr(
            "This model: RMSNorm in front of each sublayer (pre-norm): x + Sublayer(RMSNorm(x)). "
            "RMSNorm divides each token by the root mean square of its features and multiplies by "
            "γ: no mean is subtracted and there is no β, so the output's mean is not pinned to 0 "
            "(no dashed references here).",
            language,
        )
    if norm == "rmsnorm":
        return tr(
            "This model: RMSNorm after each sublayer: RMSNorm(x + Sublayer(x)); no mean is "
            "subtracted and there is no β.",
            language,
        )
    if pre:
        return tr(
            "This model: LayerNorm in front of each sublayer (pre-LN): x + Sublayer(LayerNorm(x)). "
            "The residual stream x itself is not normalised inside the stack: its statistics "
            "(orange) may grow from layer to layer.",
            language,
        )
    return tr(
        "This model: LayerNorm after each sublayer (post-LN, as in the paper): LayerNorm(x + Sublayer(x)).",
        language,
    )


class LayerNormPanel(PaddedBatchPage, ConceptPanel):
    key = "layernorm"

    def explain(self, language: str) -> str:
        return tr(
            "<b>Layer normalisation.</b> After every sublayer the Transformer adds the sublayer's "
            "output to its input (the residual connection) and normalises the sum: <i>LayerNorm(x "
            "+ Sublayer(x))</i>, the paper's “Add &amp; Norm”. LayerNorm looks at <b>one token at "
            "a time</b>: it subtracts the mean of that token's d_model features, divides by their "
            "standard deviation, then applies a learned scale γ and shift β. Whatever goes in, "
            "every token comes out with about the same mean (β's average) and spread (about γ's "
            "size), which keeps deep stacks trainable. The first tab shows each token's mean and "
            "std before and after every Add &amp; Norm of the selected layer. The second asks: why "
            "not BatchNorm? It averages each feature over the whole batch, so the &lt;pad&gt; "
            "filling a shorter sentence leaks into everyone's statistics; LayerNorm's do not "
            "change.",
            language,
        )

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
        self.pages.addTab(self.build_batch_page(), "")

        # page 1 holds, per sublayer, a mean plot over a std plot, built for the sublayers shown
        self.mean_plots: list[pg.PlotItem] = []
        self.std_plots: list[pg.PlotItem] = []
        self.curves: list[dict[str, pg.PlotDataItem]] = []  # per sublayer, by NORM_STATS name
        self.references: list[tuple[pg.InfiniteLine, pg.InfiniteLine]] = []  # β average, γ size
        self.shown: RecordedNorms | None = None

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

    def norm_words(self) -> dict[str, str]:
        """The page's words that depend on the loaded model's kind of norm and its placement."""
        language = self.session.language
        snapshot = self.session.snapshot
        if snapshot is None:
            return norm_text(language, "layernorm", "post")
        capabilities = snapshot.info.capabilities
        return norm_text(language, capabilities.norm, capabilities.norm_placement)

    def sync_controls(self, encoder: bool, layers: int, layer: int) -> None:
        words = self.norm_words()
        for widget in (self.stack, self.layer_box):
            widget.blockSignals(True)
        language = self.session.language
        self.stack_label.setText(tr("Layers of:", language))
        self.stack.setItemText(0, tr("encoder", language))
        self.stack.setItemText(1, tr("decoder", language))
        self.stack.setCurrentIndex(0 if encoder else 1)
        labels = [trf("layer {n}", language, n=i + 1) for i in range(layers)]
        if [self.layer_box.itemText(i) for i in range(self.layer_box.count())] != labels:
            self.layer_box.clear()
            self.layer_box.addItems(labels)
        self.layer_box.setCurrentIndex(layer)
        for widget in (self.stack, self.layer_box):
            widget.blockSignals(False)
        reference = tr("- - β average (mean) · γ size (std)", language)
        reference = (
            "" if self.rms() else f"&nbsp; <span style='color:#888888'>{html.escape(reference)}</span>"
        )
        self.legend.setText(
            f"<span style='color:{INPUT_COLOR}'>{words['input']}</span> &nbsp; "
            f"<span style='color:{OUTPUT_COLOR}'>{words['output']}</span> {reference}"
        )
        self.model_norms.setText(words["model_norms"])

    def rms(self) -> bool:
        """RMSNorm: no β and no mean subtracted, so no reference lines for where the output sits."""
        snapshot = self.session.snapshot
        return snapshot is not None and snapshot.info.capabilities.norm == "rmsnorm"

    # -- drawing --------------------------------------------------------------------------
    def refresh(self) -> None:
        session, snapshot = self.session, self.session.snapshot
        words = self.norm_words()
        self.pages.setTabText(0, words["page_layer"].replace("&", "&&"))  # "&" alone marks a shortcut
        self.pages.setTabText(1, words["page_batch"])
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
        language = self.session.language
        names = (
            ("no_positional", tr("no positional encoding", language)),
            ("no_scaling", tr("no ÷√d_k", language, disambiguation="the name of a what-if")),
            ("no_causal_mask", tr("no causal mask", language)),
            ("zeroed_heads", tr("zeroed heads", language)),
        )
        active = [label for name, label in names if getattr(snapshot.interventions, name)]
        return trf(
            "What-if active: these statistics come from the model with {what}.",
            language,
            what=", ".join(active),
        )

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
        language = self.session.language
        count = len(norms.sublayers)
        if len(self.curves) != count:
            self.build_sublayer_plots(count)
        self.shown = norms
        n = len(norms.labels)
        if norms.encoder:
            self.header.setText(
                trf("Encoder layer {layer}: one point per source token.", language, layer=norms.layer + 1)
            )
        elif n:
            self.header.setText(
                trf(
                    "Decoder layer {layer}: one point per decoder step (labelled by the token it read).",
                    language,
                    layer=norms.layer + 1,
                )
            )
        else:
            self.header.setText(
                tr("Step forward to see the decoder's statistics, one step at a time.", language)
            )
        pre = self.session.snapshot.info.capabilities.norm_placement == "pre"
        x = np.arange(n)
        for i, sublayer in enumerate(norms.sublayers):
            name = tr(sublayer, language)  # a name from model.probes.norm_stats's sublayers
            if pre:
                title = trf("Norm {i} · before {name}", language, i=i + 1, name=name)
            else:
                title = trf("Add & Norm {i} · {name}", language, i=i + 1, name=name)
            self.mean_plots[i].setTitle(html.escape(title), color=AXIS_TEXT, size="10pt")
            self.mean_plots[i].setLabel(
                "left", tr("mean", language, disambiguation="a statistic: the mean of the features")
            )
            self.std_plots[i].setLabel("left", tr("std", language))
            for name, curve in self.curves[i].items():
                curve.setData(x, norms.stat(i, name))
            for plot, stat in ((self.mean_plots[i], "mean"), (self.std_plots[i], "std")):
                series = [norms.stat(i, f"{side}_{stat}") for side in ("in", "out")]
                plot.setYRange(*honest_range(stat, *series), padding=0)
            ticks = token_ticks(norms.labels)
            for plot in (self.mean_plots[i], self.std_plots[i]):
                plot.getAxis("bottom").setTicks(ticks)
                fit_label_height(plot.getAxis("bottom"), [label for _x, label in ticks[0]])
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
