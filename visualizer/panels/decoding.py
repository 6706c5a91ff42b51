"""Decoding: the shown step's next-token distribution, and what the decoding settings make of it.

Two bars per candidate token: the model's own probability (``StepRecord.probs``, as recorded)
and the distribution after temperature / top-k / top-p, recomputed live from the step's
logits with the session's settings (``next_token_distribution``: cheap, pure torch), so a
change of settings shows at once, before the regenerated steps arrive. Tokens the settings
cut off are greyed; the chosen token is outlined and labelled. Clicking a bar forces that
token at this step (``Session.force_token``: a branch).
"""

from __future__ import annotations

import html
import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QLabel, QPushButton

from model.generation.decoding_settings import DecodingSettings
from model.generation.records import StepRecord
from model.tasks.calibration import data_next_token, total_variation
from visualizer.i18n import tr, trf
from visualizer.panels.base import ConceptPanel
from visualizer.panels.decoding_bars import (
    TOP,
    Bars,
    bar_data,
    bar_extent,
    entropy,
    log_floor,
    probability_ticks,
)
from visualizer.state.events import Subscriptions
from visualizer.state.jobs import FilteredDistributionJob
from visualizer.state.session import Session
from visualizer.widgets.heatmap import BACKGROUND, HIGHLIGHT_COLOR, display_token, fit_label_height

MODEL_COLOR = "#6f8fd8"
FILTERED_COLOR = "#ffb300"
CUT_COLOR = "#4a4a4a"
CUT_SHADE = (255, 255, 255, 22)
FORCED_COLOR = "#4fc3f7"  # as the timeline marks forced steps
DATA_COLOR = "#7ee07e"  # the data's own probability: a line across the candidate's pair of bars
DATA_THICKNESS = 0.012  # of the axis's height
AUTO_LOG_ABOVE = 0.99  # a top probability above this hides the runners-up on a linear axis
BAR_WIDTH = 0.4  # each of the two series; a candidate's pair spans 0.8


def chosen_how(step: StepRecord, settings: DecodingSettings, language: str) -> str:
    """How the shown step's token was chosen, for the heading: forced, or its probability.
    A sampled token was drawn from the distribution after the settings (temperature, top-k,
    top-p), as the step recorded it, so both are given: under T = 3 a token the model gives
    p = 0.000 can be drawn with p = 0.012. Greedy and beam use the model's own."""
    if step.forced:
        return tr(" (forced by you)", language)
    model_p = float(step.probs[step.token_id])
    if settings.strategy in ("greedy", "beam"):
        return trf(", p = {p:.3f}", language, p=model_p)
    return trf(
        ", model p = {p:.3f}, drawn with p = {drawn:.3f} after the settings",
        language,
        p=model_p,
        drawn=float(step.filtered_probs[step.token_id]),
    )


def describe_settings(settings: DecodingSettings, language: str) -> str:
    values = {
        "t": settings.temperature,
        "k": settings.top_k,
        "p": settings.top_p,
        "seed": settings.seed,
        "width": settings.beam_width,
    }
    if settings.strategy == "greedy":
        return tr(
            "Greedy: always the most likely token; temperature, top-k and top-p are not used.", language
        )
    if settings.strategy == "beam":
        return trf(
            "Beam search, width {width}: the token comes from the best hypothesis (see the Beam "
            "panel), so it need not be this step's most likely one; the model's probabilities are used "
            "as they are.",
            language,
            **values,
        )
    if settings.strategy == "sample":
        return trf(
            "Sampling at temperature {t:g} from the whole vocabulary (seed {seed}).", language, **values
        )
    if settings.strategy == "topk":
        return trf(
            "Top-k sampling: temperature {t:g}, keep the {k} most likely tokens, renormalise and "
            "draw (seed {seed}).",
            language,
            **values,
        )
    return trf(
        "Top-p (nucleus) sampling: temperature {t:g}, keep the smallest set of most likely "
        "tokens whose probability reaches {p:g}, renormalise and draw (seed {seed}).",
        language,
        **values,
    )


class DecodingPanel(ConceptPanel):
    key = "decoding"

    def explain(self, language: str) -> str:
        return tr(
            "<b>From a distribution to a token.</b> Each decoder step ends in a softmax over the "
            "whole vocabulary: a probability for every possible next character. Something must "
            "still pick one. <i>Greedy</i> decoding takes the most likely; <i>sampling</i> draws "
            "at random after dividing the logits by the <i>temperature</i> T (T &lt; 1 sharpens, T "
            "&gt; 1 flattens); <i>top-k</i> keeps only the k most likely tokens and <i>top-p</i> "
            "(nucleus) the smallest set whose probability reaches p, then renormalises. The "
            "<i>entropy</i> says how unsure the model is. Below, for the shown step: <span "
            "style='color:#6f8fd8'>blue</span>, the model's probabilities (top 30, then the rest "
            "together); <span style='color:#ffb300'>amber</span>, the distribution after the "
            "settings, recomputed as you change them; grey, the tokens they cut off.",
            language,
        )

    def __init__(self, session: Session, parent=None) -> None:
        super().__init__(session, parent)
        self.bars: Bars | None = None
        self.hovered_step: tuple[str, int] | None = None  # (source, cursor) the hover line describes
        self.log_floor: int | None = None  # the log axis's lowest power of ten; None: linear
        top_row = QHBoxLayout()
        self.heading = QLabel()
        self.heading.setTextFormat(Qt.TextFormat.RichText)
        self.heading.setWordWrap(True)
        self.heading.setStyleSheet("font-size: 12pt; padding: 2px 4px;")
        top_row.addWidget(self.heading, 1)
        self.legend = QLabel()  # a QLabel, not pyqtgraph's legend: clicking that hides a series
        self.legend.setTextFormat(Qt.TextFormat.RichText)
        top_row.addWidget(self.legend, 0, Qt.AlignmentFlag.AlignBottom)
        self.outer.addLayout(top_row)
        self.plot_widget = pg.PlotWidget(background=BACKGROUND)
        self.plot_widget.setMinimumHeight(240)
        self.outer.addWidget(self.plot_widget, 1)
        self.build_plot(self.plot_widget.getPlotItem())
        self.info = QLabel()
        self.info.setTextFormat(Qt.TextFormat.RichText)
        self.info.setWordWrap(True)
        self.info.setStyleSheet("padding: 2px 4px;")
        self.outer.addWidget(self.info)
        row = QHBoxLayout()
        self.hint = QLabel()
        self.hint.setWordWrap(True)
        self.hint.setStyleSheet("color: #888; padding: 2px 4px;")
        row.addWidget(self.hint, 1)
        self.log_scale = QCheckBox()
        self.log_scale.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.log_scale.clicked.connect(self.on_log_scale_clicked)  # clicked: the user's, not setChecked
        self.log_chosen: bool | None = None  # the user's choice; None: log when the top p > 0.99
        row.addWidget(self.log_scale)
        self.undo_button = QPushButton()
        self.undo_button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.undo_button.clicked.connect(self.undo_forcing)
        row.addWidget(self.undo_button)
        self.outer.addLayout(row)
        self.hover = QLabel(" ")
        self.hover.setStyleSheet("font-family: monospace; padding: 2px 4px;")
        self.outer.addWidget(self.hover)
        self.plot.scene().sigMouseClicked.connect(self.on_click)
        self.plot.scene().sigMouseMoved.connect(self.on_mouse_moved)
        self.extra_subscriptions = Subscriptions((session.settings_changed, self.on_state_changed))

    def build_plot(self, plot: pg.PlotItem) -> None:
        self.plot = plot
        plot.setMouseEnabled(x=False, y=False)
        plot.setMenuEnabled(False)
        plot.hideButtons()
        plot.showGrid(y=True, alpha=0.15)
        for side, size in (("left", 10), ("bottom", 9)):  # 9 pt: "<eos>" fits its slot at 1280 px
            axis = plot.getAxis(side)
            axis.setTextPen("#dddddd")
            axis.setStyle(tickFont=QFont("DejaVu Sans", size), hideOverlappingLabels=False)
        self.shade = pg.BarGraphItem(x=[0], height=[0], width=0.9, brush=pg.mkBrush(*CUT_SHADE), pen=None)
        self.model_bars = pg.BarGraphItem(x=[0], height=[0], width=BAR_WIDTH, brush=MODEL_COLOR)
        self.filtered_bars = pg.BarGraphItem(x=[0], height=[0], width=BAR_WIDTH, brush=FILTERED_COLOR)
        self.data_marks = pg.BarGraphItem(x=[0], height=[0], width=0.9, brush=DATA_COLOR, pen=None)
        for item in (self.shade, self.model_bars, self.filtered_bars, self.data_marks):
            plot.addItem(item)
        self.marker = pg.TextItem("", anchor=(0.5, 1.0))
        self.marker.setFont(QFont("DejaVu Sans", 10, QFont.Weight.Bold))
        plot.addItem(self.marker)

    def detach(self) -> None:
        self.extra_subscriptions.close()
        super().detach()

    def legend_text(self, with_data: bool = False) -> str:
        language = self.session.language
        entries = (
            (MODEL_COLOR, "■", tr("model p", language)),
            *(((DATA_COLOR, "—", tr("data p", language)),) if with_data else ()),
            (FILTERED_COLOR, "■", tr("after the settings", language)),
            (CUT_COLOR, "■", tr("cut off", language)),
            (HIGHLIGHT_COLOR, "□", tr("chosen", language)),
            (FORCED_COLOR, "□", tr("forced", language)),
        )
        return " &nbsp; ".join(
            f"<span style='color:{color}; font-size:14pt'>{mark}</span> {name}"
            for color, mark, name in entries
        )

    # -- drawing --------------------------------------------------------------------------
    def refresh(self) -> None:
        session = self.session
        language = session.language
        self.hint.setText(
            tr(
                "Click a candidate's bar to force it at this step: a branch, later steps are dropped "
                "and Step continues from your choice.",
                language,
            )
        )
        self.undo_button.setText(tr("Undo forcing", language))
        self.log_scale.setText(tr("log scale", language))
        self.log_scale.setToolTip(
            tr("Probabilities on a logarithmic axis, down to 10⁻⁸: shows the unlikely tokens too", language)
        )
        self.undo_button.setToolTip(
            tr("Regenerate up to this step with the model's own choices (drops every forced token)", language)
        )
        self.legend.setText(self.legend_text())
        snapshot = session.snapshot
        forced_before = snapshot is not None and any(s.forced for s in snapshot.steps[: session.cursor + 1])
        self.undo_button.setEnabled(forced_before)
        if snapshot is None or not 0 <= session.cursor < len(snapshot.steps):
            self.bars = None
            self.show_nothing(
                tr(
                    "Open a model to see its next-token distribution."
                    if snapshot is None
                    else "No token has been chosen yet: press Step (→) to run the first decoder step.",
                    language,
                )
            )
            return
        step = snapshot.steps[session.cursor]
        if (snapshot.source, session.cursor) != self.hovered_step:  # a readout belongs to its step
            self.hover.setText(" ")
            self.hovered_step = None
        tokenizer = snapshot.tokenizer
        truth = data_next_token(snapshot.source, snapshot.output_text(session.cursor), tokenizer)
        # the settings applied live to the shown step's logits (a cheap torch call, done now)
        filtered = session.run_job(FilteredDistributionJob(step.logits, session.settings))
        self.bars = bars = bar_data(step, filtered, tokenizer, data=truth)
        self.legend.setText(self.legend_text(with_data=truth is not None))
        self.draw_bars(bars, step.forced)
        token = html.escape(display_token(tokenizer.token_text(step.token_id)))
        how = chosen_how(step, snapshot.settings, language)
        heading = trf(
            "Step {step}: the decoder read <b>{input}</b> and chose <b>{token}</b>{how}",
            language,
            step=session.cursor + 1,
            input=html.escape(display_token(tokenizer.token_text(step.input_id))),
            token=token,
            how=how,
        )
        if bars.chosen >= TOP:
            rank = int((step.probs > step.probs[step.token_id]).sum()) + 1
            heading += trf(
                ". It ranks {rank} of {vocab} and is drawn as its own bar, left of the rest.",
                language,
                rank=rank,
                vocab=len(step.probs),
            )
        self.heading.setText(heading)
        nats, fnats = entropy(bars.model_full), entropy(bars.filtered_full)
        info = trf(
            "Entropy of the model's distribution: <b>{nats:.3f} nats = {bits:.3f} bits</b> (as "
            "uncertain as a fair choice among {perplexity:.1f} tokens). After the settings: "
            "<b>{fnats:.3f} nats = {fbits:.3f} bits</b> ({fperplexity:.1f}); {kept} of {vocab} "
            "tokens can be drawn.",
            language,
            nats=nats,
            bits=nats / math.log(2),
            perplexity=math.exp(nats),
            fnats=fnats,
            fbits=fnats / math.log(2),
            fperplexity=math.exp(fnats),
            kept=1 if session.settings.strategy == "greedy" else int((bars.filtered_full > 0).sum()),
            vocab=len(bars.filtered_full),
        )
        if bars.data_full is not None:
            tv = total_variation(bars.model_full, bars.data_full)
            info += "<br>" + trf(
                "<span style='color:{color}'>—</span> The data's own probabilities for this task and "
                "what has been generated so far: the model's distance from them (total variation, 0 = "
                "the same, 1 = disjoint) is <b>{tv:.3f}</b>.",
                language,
                color=DATA_COLOR,
                tv=tv,
            )
        settings = describe_settings(session.settings, language)
        if snapshot.settings != session.settings:
            settings += tr(
                " <i>The steps are being regenerated with these settings; the token shown was chosen "
                "with the previous ones.</i>",
                language,
            )
        self.info.setText(f"{info}<br>{settings}")

    def show_nothing(self, message: str) -> None:
        self.heading.setText(message)
        self.info.setText(describe_settings(self.session.settings, self.session.language))
        for item in (self.shade, self.model_bars, self.filtered_bars, self.data_marks, self.marker):
            item.hide()
        self.plot.getAxis("bottom").setTicks([[]])
        self.hover.setText(" ")

    def draw_bars(self, bars: Bars, forced: bool) -> None:
        n = len(bars.token_ids)
        x = np.arange(n, dtype=float)
        kept = bars.kept
        log = self.log_chosen if self.log_chosen is not None else bool(bars.model.max() > AUTO_LOG_ABOVE)
        if self.log_scale.isChecked() != log:
            self.log_scale.blockSignals(True)
            self.log_scale.setChecked(log)
            self.log_scale.blockSignals(False)
        self.log_floor = log_floor(bars.model, bars.filtered) if log else None
        model_y0, model_h = bar_extent(bars.model, self.log_floor)
        filtered_y0, filtered_h = bar_extent(bars.filtered, self.log_floor)
        bottom = 0.0 if self.log_floor is None else float(self.log_floor)
        top = max(float((model_y0 + model_h).max()), float((filtered_y0 + filtered_h).max()))
        ceiling = top + (top - bottom) * 0.15 + 1e-6  # room for the marker's label above the bars
        if (~kept).any():
            self.shade.setOpts(
                x=x[~kept], y0=bottom, height=np.full(int((~kept).sum()), ceiling - bottom), width=0.9
            )
        self.shade.setVisible(bool((~kept).any()))
        model_brushes = [pg.mkBrush(MODEL_COLOR if k else CUT_COLOR) for k in kept]
        mark = FORCED_COLOR if forced else HIGHLIGHT_COLOR
        pens = [pg.mkPen(None)] * n
        pens[bars.chosen] = pg.mkPen(mark, width=3)
        self.model_bars.setOpts(
            x=x - BAR_WIDTH / 2,
            y0=model_y0,
            height=model_h,
            width=BAR_WIDTH,
            brushes=model_brushes,
            pens=pens,
        )
        self.filtered_bars.setOpts(
            x=x + BAR_WIDTH / 2, y0=filtered_y0, height=filtered_h, width=BAR_WIDTH, pens=pens
        )
        self.model_bars.show()
        self.filtered_bars.show()
        tops = np.maximum(model_y0 + model_h, filtered_y0 + filtered_h)
        self.draw_data_marks(bars, x, bottom, ceiling)
        self.place_marker(
            bars.chosen, tops, tr("forced" if forced else "chosen", self.session.language), mark
        )
        labels = list(bars.labels)
        if bars.token_ids[-1] is None:
            labels[-1] = tr("rest", self.session.language)
        self.plot.getAxis("bottom").setTicks([list(enumerate(labels))])
        fit_label_height(self.plot.getAxis("bottom"), labels)  # ␣ whole, not ".."
        self.plot.getAxis("left").setTicks(probability_ticks(self.log_floor, ceiling))
        self.plot.setXRange(-0.6, n - 0.4, padding=0)
        self.plot.setYRange(bottom, ceiling, padding=0)

    def draw_data_marks(self, bars: Bars, x: np.ndarray, bottom: float, ceiling: float) -> None:
        """A line across each candidate's pair of bars at the data's probability (where it is > 0)."""
        if bars.data is None or not (bars.data > 0).any():
            self.data_marks.hide()
            return
        present = bars.data > 0
        level = bars.data[present] if self.log_floor is None else np.log10(bars.data[present])
        thickness = DATA_THICKNESS * (ceiling - bottom)
        self.data_marks.setOpts(
            x=x[present], y0=level - thickness / 2, height=np.full(len(level), thickness), width=0.9
        )
        self.data_marks.show()

    def place_marker(self, index: int, tops: np.ndarray, word: str, color: str) -> None:
        """▼ and a word over the chosen bar, leaning inwards (never cut off), above the bars it spans."""
        n = len(tops)
        if index < n / 2:
            self.marker.setText(f"▼ {word}", color=QColor(color))
            self.marker.setAnchor((0.0, 1.0))
            self.marker.setPos(index - 0.45, float(tops[index : index + 4].max()))
        else:
            self.marker.setText(f"{word} ▼", color=QColor(color))
            self.marker.setAnchor((1.0, 1.0))
            self.marker.setPos(index + 0.45, float(tops[max(index - 3, 0) : index + 1].max()))
        self.marker.show()

    def on_log_scale_clicked(self, checked: bool) -> None:
        self.log_chosen = checked
        self.on_state_changed()

    # -- forcing --------------------------------------------------------------------------
    def force_candidate(self, rank: int) -> None:
        """Force the token of bar ``rank`` (0 = the most likely) at the shown step: a branch."""
        if self.bars is None or not 0 <= rank < len(self.bars.token_ids):
            return
        token_id = self.bars.token_ids[rank]
        if token_id is not None:  # the rest is many tokens, not one to force
            self.session.force_token(token_id)

    def undo_forcing(self) -> None:
        """Regenerate up to the shown step with the model's own choices."""
        self.session.restart(steps=self.session.cursor + 1)

    def bar_at(self, scene_pos) -> int | None:
        if self.bars is None or not self.plot.vb.sceneBoundingRect().contains(scene_pos):
            return None
        x = self.plot.vb.mapSceneToView(scene_pos).x()
        index = round(x)
        if abs(x - index) > 0.45 or not 0 <= index < len(self.bars.token_ids):
            return None
        return index

    def on_click(self, event) -> None:
        if event.button() != Qt.MouseButton.LeftButton:
            return
        index = self.bar_at(event.scenePos())
        if index is not None:
            event.accept()
            self.force_candidate(index)

    def on_mouse_moved(self, scene_pos) -> None:
        language = self.session.language
        index = self.bar_at(scene_pos)
        bars = self.bars
        if index is None or bars is None:
            self.hover.setText(" ")
            return
        model, filtered = bars.model[index], bars.filtered[index]
        if bars.token_ids[index] is None:
            n = len(bars.model_full) - (len(bars.token_ids) - 1)
            self.hover.setText(
                trf(
                    "rest: {n} less likely tokens together, model p = {p:.4f}, after the settings {f:.4f}",
                    language,
                    n=n,
                    p=model,
                    f=filtered,
                )
            )
            self.hovered_step = (self.session.source, self.session.cursor)
            return
        rank = int((bars.model_full > model).sum()) + 1
        cut = "" if filtered > 0 else tr(" (cut off)", language)
        if bars.data is not None:
            cut += trf(", data p = {d:.4f}", language, d=bars.data[index])
        text = trf(
            "{token}: rank {rank}, model p = {p:.4f}, after the settings {f:.4f}{cut} — click to force",
            language,
            token=bars.labels[index],
            rank=rank,
            p=model,
            f=filtered,
            cut=cut,
        )
        self.hover.setText(text)
        self.hovered_step = (self.session.source, self.session.cursor)
