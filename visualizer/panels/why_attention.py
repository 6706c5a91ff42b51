"""Why attention: the fixed-vector RNN against the RNN with attention and the Transformer.

Three things, each from the real models: the shipped accuracy-by-length curves (measured by
``attnviz eval --by-length``, read from ``assets/curves/``) with the current source's length
marked; the what-ifs that replace an RNN's attention weights (uniform, one position, none),
which regenerate the session live; and buttons that open the shipped models or step one
beside the other on the Compare page (the RNN's alignment beside the Transformer's
cross-attention for the same source).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QPushButton, QSpinBox

from model.interface import Interventions
from model.shipped import (
    CURVES_FOLDER,
    DEFAULT_CHECKPOINT_NAME,
    RNN_CHECKPOINT_NAMES,
    assets_path,
    curve_paths,
    default_checkpoint_path,
    rnn_checkpoint_path,
)
from model.tasks.length_curve import LengthCurve
from model.tasks.synthetic import split_source
from visualizer.i18n import tr, trf
from visualizer.panels.base import ConceptPanel
from visualizer.widgets.heatmap import BACKGROUND, display_token

# the shipped checkpoints' file names → their keys (see model_name)
SHIPPED_KEYS = {DEFAULT_CHECKPOINT_NAME: "transformer", **{v: k for k, v in RNN_CHECKPOINT_NAMES.items()}}
COLORS = {"none": "#ff7043", "additive": "#4fc3f7", "scaled_dot": "#ba68c8", "transformer": "#9ccc65"}
OTHER_COLORS = ("#ffd54f", "#f06292", "#4db6ac", "#a1887f")
WHAT_IF_CHOICES = ("as_trained", "uniform_attention", "attend_only", "no_attention")


@dataclass(frozen=True)
class ShownCurve:
    """One curve as drawn: its legend name, colour and points (Qt-free, for tests)."""

    label: str
    color: str
    lengths: np.ndarray
    accuracy: np.ndarray  # percent
    low: np.ndarray
    high: np.ndarray


def read_curves(paths: list[Path]) -> tuple[list[LengthCurve], list[str]]:
    """The curves in ``paths`` and, for each file that is not one, a line saying why."""
    curves, problems = [], []
    for path in paths:
        try:
            curves.append(LengthCurve.from_dict(json.loads(path.read_text(encoding="utf-8"))))
        except (OSError, ValueError, UnicodeDecodeError) as error:
            problems.append(f"{path.name}: {error}")
    return curves, problems


def model_name(key: str, language: str) -> str:
    """What the buttons and legends call a shipped model."""
    if key == "none":
        return tr("RNN, no attention", language)
    if key == "additive":
        return tr("RNN, additive attention", language)
    if key == "scaled_dot":
        return tr("RNN, scaled dot-product", language)
    return tr("Transformer", language)


def what_if_name(choice: str, language: str) -> str:
    """One of WHAT_IF_CHOICES, as the menu and the banner name it."""
    if choice == "as_trained":
        return tr("as trained", language)
    if choice == "uniform_attention":
        return tr("uniform: α = 1/S", language)
    if choice == "attend_only":
        return tr("all on one source position", language)
    return tr("none: the context is zero", language)


def shown_curves(curves: list[LengthCurve], language: str) -> list[ShownCurve]:
    """What each curve is drawn as: the shipped models by their names and colours, in the
    story's order (no attention, attention, the Transformer), any other curve after them."""
    order = list(COLORS)  # the story's order

    def place(curve: LengthCurve) -> int:
        key = SHIPPED_KEYS.get(curve.name)
        return order.index(key) if key in order else len(order)

    shown = []
    others = iter(OTHER_COLORS * 4)
    for curve in sorted(curves, key=place):
        key = SHIPPED_KEYS.get(curve.name)
        rows = curve.rows
        intervals = np.array([row.interval for row in rows]).reshape(-1, 2) * 100
        shown.append(
            ShownCurve(
                label=model_name(key, language) if key else curve.name,
                color=COLORS[key] if key else next(others),
                lengths=np.array([row.length for row in rows], dtype=float),
                accuracy=np.array([row.accuracy * 100 for row in rows]),
                low=intervals[:, 0],
                high=intervals[:, 1],
            )
        )
    return shown


def input_length(source: str) -> int | None:
    """The length of a task source's input (``reverse: abc`` → 3); None for other text."""
    try:
        return len(split_source(source)[1])
    except ValueError:
        return None


def chosen_interventions(choice: str, position: int) -> Interventions:
    """The what-if a choice of the combo box names (``position`` 0-based)."""
    if choice == "uniform_attention":
        return Interventions(uniform_attention=True)
    if choice == "attend_only":
        return Interventions(attend_only=position)
    if choice == "no_attention":
        return Interventions(no_attention=True)
    return Interventions()


def choice_of(interventions: Interventions) -> str:
    if interventions.no_attention:
        return "no_attention"
    if interventions.uniform_attention:
        return "uniform_attention"
    if interventions.attend_only is not None:
        return "attend_only"
    return "as_trained"


class WhyAttentionPanel(ConceptPanel):
    key = "why_attention"

    def explain(self, language: str) -> str:
        return tr(
            "<b>Why attention?</b> An RNN encoder-decoder without attention (Cho et al. 2014) "
            "folds the whole source into <b>one fixed vector</b>, the encoder's final state, and "
            "the decoder must write every output token from it: the longer the source, the more it "
            "forgets. Attention (Bahdanau et al. 2014) lets every decoder step build <b>a fresh "
            "weighted sum</b> of all encoder states, c<sub>i</sub> = Σ<sub>j</sub> α<sub>ij</sub> "
            "h<sub>j</sub>, with α<sub>i</sub> = softmax<sub>j</sub>(e<sub>ij</sub>). Only the "
            "score e<sub>ij</sub> differs: <b>additive</b> vᵀ tanh(W s<sub>i−1</sub> + U "
            "h<sub>j</sub>) (Bahdanau), <b>dot-product</b> s<sub>i−1</sub> · h<sub>j</sub> (Luong "
            "et al. 2015), <b>scaled dot-product</b> s · h / √d, which the Transformer computes "
            "between learned projections, Q Kᵀ / √d<sub>k</sub>, in every head. The curves below "
            "are the shipped models on <tt>reverse:</tt>, measured for every input length (as "
            "Bahdanau et al.'s Figure 2 measured BLEU against sentence length).",
            language,
        )

    def __init__(self, session, parent=None) -> None:
        self.curves, self.problems = read_curves(curve_paths())
        self.shown: list[ShownCurve] = []
        super().__init__(session, parent)
        self.canvas = pg.GraphicsLayoutWidget()
        self.canvas.setBackground(BACKGROUND)
        self.canvas.setMinimumHeight(260)
        self.plot = self.canvas.addPlot(row=0, col=0)
        self.plot.setYRange(-2, 102, padding=0)  # room for the labels at 0 and 100
        self.plot.setXRange(0.5, 48.5, padding=0)
        self.plot.showGrid(x=True, y=True, alpha=0.15)
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.hideButtons()
        self.marker = pg.InfiniteLine(angle=90, pen=pg.mkPen("#eeeeee", width=1, style=Qt.PenStyle.DashLine))
        self.marker_label = pg.TextItem(color="#eeeeee", anchor=(0, 0))
        self.plot.addItem(self.marker, ignoreBounds=True)
        self.plot.addItem(self.marker_label, ignoreBounds=True)
        self.outer.addWidget(self.canvas, 1)
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.setTextFormat(Qt.TextFormat.RichText)
        self.outer.addWidget(self.status)

        what_if_row = QHBoxLayout()
        self.what_if_label = QLabel()
        self.what_if_choice = QComboBox()
        for choice in WHAT_IF_CHOICES:
            self.what_if_choice.addItem(choice, choice)
        self.what_if_choice.activated.connect(self.on_what_if_chosen)
        self.position_label = QLabel()
        self.position = QSpinBox()
        self.position.setMinimum(1)
        self.position.setKeyboardTracking(False)  # one regeneration per value, not per digit typed
        self.position.valueChanged.connect(self.on_what_if_chosen)
        for widget in (self.what_if_label, self.what_if_choice, self.position_label, self.position):
            what_if_row.addWidget(widget)
        what_if_row.addStretch(1)
        self.outer.addLayout(what_if_row)
        self.what_if_note = QLabel()
        self.what_if_note.setWordWrap(True)
        self.outer.addWidget(self.what_if_note)

        models_row = QHBoxLayout()
        self.open_label = QLabel()
        models_row.addWidget(self.open_label)
        self.open_buttons: dict[str, QPushButton] = {}
        for key in ("none", "additive", "scaled_dot", "transformer"):
            button = QPushButton()
            button.clicked.connect(lambda _checked=False, key=key: self.open_shipped(key))
            self.open_buttons[key] = button
            models_row.addWidget(button)
        models_row.addStretch(1)
        self.compare_button = QPushButton()
        self.compare_button.clicked.connect(self.compare_shipped)
        models_row.addWidget(self.compare_button)
        self.outer.addLayout(models_row)
        self.on_language_changed(session.language)

    # -- what the buttons open --------------------------------------------------------------
    @staticmethod
    def shipped_path(key: str) -> Path:
        return default_checkpoint_path() if key == "transformer" else rnn_checkpoint_path(key)

    def compare_partner(self) -> str:
        """The model to step beside the loaded one: the Transformer beside an RNN, else the
        RNN with attention."""
        model = self.session.model
        return "transformer" if model is not None and model.family.family == "rnn" else "additive"

    def open_shipped(self, key: str) -> None:
        self.session.open_checkpoint(self.shipped_path(key))

    def compare_shipped(self) -> None:
        self.session.request_compare(self.shipped_path(self.compare_partner()))

    def on_what_if_chosen(self, *_args) -> None:
        choice = self.what_if_choice.currentData()
        wanted = chosen_interventions(choice, self.position.value() - 1)
        if wanted != self.session.interventions:
            self.session.set_interventions(wanted)

    # -- drawing ----------------------------------------------------------------------------
    def refresh(self) -> None:
        self.draw_curves()
        self.show_what_if_controls()
        self.show_model_buttons()

    def draw_curves(self) -> None:
        language = self.session.language
        self.plot.clear()
        self.plot.addItem(self.marker, ignoreBounds=True)
        self.plot.addItem(self.marker_label, ignoreBounds=True)
        self.shown = shown_curves(self.curves, language)
        for curve in self.shown:
            color = pg.mkColor(curve.color)
            low = pg.PlotDataItem(curve.lengths, curve.low, pen=None)
            high = pg.PlotDataItem(curve.lengths, curve.high, pen=None)
            self.plot.addItem(pg.FillBetweenItem(low, high, brush=translucent(curve.color, 50)))
            self.plot.plot(
                curve.lengths,
                curve.accuracy,
                pen=pg.mkPen(color, width=2),
                symbol="o",
                symbolSize=4,
                symbolBrush=color,
                symbolPen=None,
            )
        # the key in the title: a legend inside the plot would cover the curves' ends
        key = " &nbsp; ".join(f"<span style='color:{c.color}'>━</span> {c.label}" for c in self.shown)
        title = tr("exact match on reverse: by input length (95 % intervals shaded)", language)
        self.plot.setTitle(f"{title}<br>{key}", color="#dddddd", size="9pt")
        self.plot.setLabel("bottom", tr("input length (characters)", language))
        self.plot.setLabel("left", tr("exact match (%)", language))
        lines = []
        if not self.curves:
            lines.append(
                trf(
                    "No accuracy-by-length curves were found in {folder}. Measure one with <tt>attnviz "
                    "eval --checkpoint PATH --by-length --json {folder}/NAME.json</tt>.",
                    language,
                    folder=assets_path(CURVES_FOLDER),
                )
            )
        lines += self.problems
        length = input_length(self.session.source) if self.session.source else None
        if length is not None and 1 <= length <= 48:
            self.marker.setValue(length)
            self.marker_label.setText(trf("this source: {n}", language, n=length))
            self.marker_label.setPos(length + 0.3, 12)
            self.marker.show()
            self.marker_label.show()
            values = [
                f"{c.label} {c.accuracy[i]:.0f} %"
                for c in self.shown
                for i in np.flatnonzero(c.lengths == length)
            ]
            if values:
                lines.append(
                    trf("At input length {n}: {values}.", language, n=length, values=", ".join(values))
                )
        else:
            self.marker.hide()
            self.marker_label.hide()
            if length is not None:
                lines.append(
                    trf(
                        "The curves measure reverse: and sort: inputs of 1–48 characters; this source is {n} "
                        "characters long.",
                        language,
                        n=length,
                    )
                )
        self.status.setText("<br>".join(lines))

    def show_what_if_controls(self) -> None:
        language = self.session.language
        model = self.session.model
        capabilities = model.family.capabilities if model is not None else None
        supported = capabilities is not None and capabilities.supports("uniform_attention")
        interventions = self.session.interventions
        self.what_if_label.setText(tr("What-if on the attention weights:", language))
        self.position_label.setText(tr("position", language))
        for index, choice in enumerate(WHAT_IF_CHOICES):
            self.what_if_choice.setItemText(index, what_if_name(choice, language))
        choice = choice_of(interventions)
        self.what_if_choice.blockSignals(True)
        self.what_if_choice.setCurrentIndex(WHAT_IF_CHOICES.index(choice))
        self.what_if_choice.blockSignals(False)
        snapshot = self.session.snapshot
        source_tokens = len(snapshot.encoder.tokens) if snapshot is not None else 1
        self.position.blockSignals(True)
        self.position.setMaximum(max(1, source_tokens))
        if interventions.attend_only is not None:
            self.position.setValue(min(source_tokens, interventions.attend_only + 1))
        self.position.blockSignals(False)
        self.what_if_choice.setEnabled(supported)
        self.position.setEnabled(supported and choice == "attend_only")
        if snapshot is not None and choice == "attend_only":
            token = snapshot.encoder.tokens[self.position.value() - 1]
            self.position.setToolTip(repr(display_token(token)))
        if not supported:
            name = model.family.display_name if model is not None else "—"
            self.what_if_note.setText(
                trf(
                    "The what-ifs replace the attention weights of an RNN with attention; {model} has none "
                    "to replace. Open one with the buttons below.",
                    language,
                    model=name,
                )
            )
            self.what_if_note.show()
        else:
            self.what_if_note.hide()
        if supported and choice != "as_trained":
            what = what_if_name(choice, language)
            if choice == "attend_only":
                what = f"{what} {self.position.value()}"
            self.show_what_if(
                trf(
                    "WHAT-IF: the decoder uses {what} at every step (the model's own weights are replaced)",
                    language,
                    what=what,
                )
            )
        else:
            self.show_what_if(None)

    def show_model_buttons(self) -> None:
        language = self.session.language
        self.open_label.setText(tr("Open:", language))
        loaded = self.session.model.path if self.session.model is not None else None
        for key, button in self.open_buttons.items():
            path = self.shipped_path(key)
            button.setText(model_name(key, language))
            button.setEnabled(path.is_file() and (loaded is None or Path(loaded).resolve() != path.resolve()))
            missing = trf("{name} is not in this installation", language, name=path.name)
            button.setToolTip(str(path) if path.is_file() else missing)
        partner = self.compare_partner()
        path = self.shipped_path(partner)
        self.compare_button.setText(
            tr(
                "Compare with the Transformer"
                if partner == "transformer"
                else "Compare with the RNN with attention",
                language,
            )
        )
        self.compare_button.setEnabled(path.is_file())
        self.compare_button.setToolTip(
            tr(
                "Step both models on the same source, side by side: the RNN's alignment beside the "
                "Transformer's cross-attention (the Compare page).",
                language,
            )
            if path.is_file()
            else trf("{name} is not in this installation", language, name=path.name)
        )


def translucent(color: str, alpha: int):
    """``color`` as a QColor with this alpha (0-255)."""
    shaded = pg.mkColor(color)
    shaded.setAlpha(alpha)
    return shaded
