"""The source line, the decoding settings and the stepping buttons."""

from __future__ import annotations

import datetime
import random

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMenu,
    QPushButton,
    QSlider,
    QSpinBox,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from model.generation.decoding_settings import STRATEGIES
from model.tasks.examples import CHOSEN, fresh_example, fresh_forms
from model.tasks.synthetic import TASK_NAMES, format_date
from visualizer.i18n import Translator, trf
from visualizer.state.findings import describe
from visualizer.state.session import Session
from visualizer.widgets.language_picker import LanguagePicker

STRATEGY_LABELS = {
    "greedy": "greedy",
    "sample": "sampling (temperature)",
    "topk": "top-k sampling",
    "topp": "top-p (nucleus) sampling",
    "beam": "beam search",
}


FORM_LABELS = {  # how a date form or a text style is named in the Examples menu
    "words": "words with spaces and capitals",
    "ascii": "any printable ASCII",
    "chinese": "Chinese characters",
    "mixed": "ASCII and Chinese mixed",
}


TEXT_PLACEHOLDER = 'task: input, e.g. "reverse: attention" or "date: 29 November 2026"'


class SourceBar(QWidget):
    """Type a source (Enter runs it) or draw one from the tasks' examples menu."""

    def __init__(self, session: Session, translator: Translator, parent=None) -> None:
        super().__init__(parent)
        self.session = session
        self.translator = translator
        self.rng = random.Random()
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(2)
        layout = QHBoxLayout()
        column.addLayout(layout)
        # where the typed source lies outside what the model was trained on (never blocks running it)
        self.outside = QLabel()
        self.outside.setObjectName("outside-training")
        self.outside.setWordWrap(True)
        self.outside.setStyleSheet("color: #ffb300; padding-left: 4px;")
        self.outside.hide()
        column.addWidget(self.outside)
        label = QLabel("Source:")
        translator.add(label.setText, "Source:")
        layout.addWidget(label)
        self.edit = QLineEdit(session.source if isinstance(session.source, str) else "")
        self.edit.setPlaceholderText(TEXT_PLACEHOLDER)
        self.edit.setClearButtonEnabled(True)
        font = self.edit.font()
        font.setPointSize(font.pointSize() + 2)
        self.edit.setFont(font)
        self.edit.returnPressed.connect(self.run)
        self.edit.textChanged.connect(self.show_outside_training)
        session.model_changed.connect(lambda _model: self.show_outside_training())
        session.language_changed.connect(lambda _language: self.show_outside_training())
        session.snapshot_changed.connect(self.show_file_source)
        layout.addWidget(self.edit, 1)
        self.languages = LanguagePicker(session, translator)  # multilingual models only
        layout.addWidget(self.languages)
        self.examples = QToolButton()
        self.examples.setText("Examples")
        translator.add(self.examples.setText, "Examples")
        self.examples.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.examples.setMenu(self.build_examples_menu())
        layout.addWidget(self.examples)
        self.run_button = QPushButton("Run")
        translator.add(self.run_button.setText, "Run")
        self.run_button.setToolTip("encode this source and play its generation (Enter)")
        self.run_button.clicked.connect(self.run)
        layout.addWidget(self.run_button)

    def show_outside_training(self) -> None:
        """Say, below the box, how the typed source lies outside the model's training data."""
        findings = self.session.outside_training(self.edit.text())
        words = [describe(finding, self.session.language) for finding in findings]
        self.outside.setText("⚠ " + " · ".join(words) if words else "")
        self.outside.setVisible(bool(words))

    def build_examples_menu(self) -> QMenu:
        """Per task: fresh random inputs (of every date form or text style) and chosen ones."""
        menu = QMenu(self)
        for task in TASK_NAMES:
            submenu = menu.addMenu(f"{task}: …")
            forms = fresh_forms(task)
            if forms:
                fresh = submenu.addMenu("a fresh random input")
                self.translator.add(fresh.setTitle, "a fresh random input")
                for form in forms:
                    if form in FORM_LABELS:
                        action = fresh.addAction(FORM_LABELS[form])
                        self.translator.add(action.setText, FORM_LABELS[form])
                    else:  # a date form, shown by a date written in it (the same in any language)
                        action = fresh.addAction(format_date(datetime.date(2026, 11, 29), form))
                    action.setData(("fresh", task, form))
                    action.triggered.connect(self.on_example)
                submenu.addSeparator()
            for example in CHOSEN[task]:
                action = submenu.addAction(f"{example.source}    ({example.note})")
                self.translator.add(
                    lambda note, a=action, e=example: a.setText(f"{e.source}    ({note})"), example.note
                )
                action.setData(("chosen", example.source, None))
                action.triggered.connect(self.on_example)
        return menu

    def on_example(self) -> None:
        what, text, form = self.sender().data()
        self.use_text(fresh_example(text, self.rng, form) if what == "fresh" else text)

    def use_text(self, text: str) -> None:
        self.edit.setText(text)
        self.run()

    def show_file_source(self, snapshot) -> None:
        """A source heard from a file (File > Open audio, a dropped file, --audio) is named in the
        box, which stays free for text: typing and Enter run text again."""
        source = snapshot.source if snapshot is not None else None
        if source == getattr(self, "shown_source", None):
            return  # a new step of the same source: leave what the user is typing alone
        self.shown_source = source
        if source is None or isinstance(source, str):
            self.edit.setPlaceholderText(TEXT_PLACEHOLDER)
            return
        self.edit.clear()
        self.edit.setPlaceholderText(
            trf(
                "hearing {name} (File > Open audio); type text to run text instead",
                self.session.language,
                name=str(source),
            )
        )

    def run(self) -> None:
        """Enter, Run or an example: encode the source and play its generation."""
        self.session.set_source(self.edit.text(), play=True)
        self.window().setFocus()


class DecodingControls(QWidget):
    """Strategy and its settings; only the settings the strategy uses are enabled."""

    def __init__(self, session: Session, translator: Translator, parent=None) -> None:
        super().__init__(parent)
        self.session = session
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.strategy = QComboBox()
        for index, strategy in enumerate(STRATEGIES):
            self.strategy.addItem(STRATEGY_LABELS[strategy], strategy)
            translator.add(
                lambda text, i=index: self.strategy.setItemText(i, text), STRATEGY_LABELS[strategy]
            )
        self.temperature = self._spin(QDoubleSpinBox(), 0.05, 10.0, 0.1, "temperature")
        self.top_k = self._spin(QSpinBox(), 1, 500, 1, "top-k")
        self.top_p = self._spin(QDoubleSpinBox(), 0.01, 1.0, 0.05, "top-p")
        self.beam = self._spin(QSpinBox(), 1, 16, 1, "beam width")
        self.seed = self._spin(QSpinBox(), 0, 2**31 - 1, 1, "seed")
        self.seed.setMaximumWidth(90)
        decoding_label = QLabel("Decoding:")
        translator.add(decoding_label.setText, "Decoding:")
        layout.addWidget(decoding_label)
        layout.addWidget(self.strategy)
        for label, widget in (
            ("T", self.temperature),
            ("k", self.top_k),
            ("p", self.top_p),
            ("beam", self.beam),
            ("seed", self.seed),
        ):
            caption = QLabel(label)
            translator.add(caption.setText, label)
            caption.setToolTip(widget.toolTip())
            layout.addWidget(caption)
            layout.addWidget(widget)
        layout.addStretch(1)
        self.show_settings(session.settings)
        self.strategy.currentIndexChanged.connect(self.commit)
        self.strategy.activated.connect(self.return_focus)
        for widget in (self.temperature, self.top_k, self.top_p, self.beam, self.seed):
            widget.valueChanged.connect(self.commit)
            widget.editingFinished.connect(self.return_focus)
        session.settings_changed.connect(self.show_settings)

    def detach(self) -> None:
        self.session.settings_changed.disconnect(self.show_settings)

    def _spin(self, spin, low, high, step, tip: str):
        spin.setRange(low, high)
        spin.setSingleStep(step)
        spin.setToolTip(tip)
        spin.setKeyboardTracking(False)  # commit when typing ends, not on every digit
        return spin

    def show_settings(self, settings) -> None:
        widgets = (self.strategy, self.temperature, self.top_k, self.top_p, self.beam, self.seed)
        for widget in widgets:
            widget.blockSignals(True)
        self.strategy.setCurrentIndex(STRATEGIES.index(settings.strategy))
        self.temperature.setValue(settings.temperature)
        self.top_k.setValue(settings.top_k)
        self.top_p.setValue(settings.top_p)
        self.beam.setValue(settings.beam_width)
        self.seed.setValue(settings.seed)
        for widget in widgets:
            widget.blockSignals(False)
        self.enable_relevant(settings.strategy)

    def enable_relevant(self, strategy: str) -> None:
        sampling = strategy in ("sample", "topk", "topp")
        self.temperature.setEnabled(sampling)
        self.seed.setEnabled(sampling)
        self.top_k.setEnabled(strategy == "topk")
        self.top_p.setEnabled(strategy == "topp")
        self.beam.setEnabled(strategy == "beam")

    def return_focus(self, *_args) -> None:
        """Hand the keyboard back to the views, so that arrows step again."""
        self.window().setFocus()

    def commit(self, *_args) -> None:
        strategy = self.strategy.currentData()
        self.enable_relevant(strategy)
        settings = self.session.with_settings(
            strategy=strategy,
            temperature=round(self.temperature.value(), 4),
            top_k=self.top_k.value(),
            top_p=round(self.top_p.value(), 4),
            beam_width=self.beam.value(),
            seed=self.seed.value(),
        )
        self.session.set_settings(settings)


class StepControls(QWidget):
    """Reset, back, play/pause, step, run to end, and the play speed."""

    speed_changed = Signal(int)  # steps per second

    def __init__(self, actions: dict, translator: Translator, parent=None) -> None:
        super().__init__(parent)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for name in ("reset", "back", "play", "step", "end"):
            button = QToolButton()
            button.setDefaultAction(actions[name])
            button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            layout.addWidget(button)
        layout.addSpacing(12)
        speed_label = QLabel("speed")
        translator.add(speed_label.setText, "speed")
        layout.addWidget(speed_label)
        self.unit = "steps/s"
        translator.add(self.set_unit, "steps/s")
        self.speed = QSlider(Qt.Orientation.Horizontal)
        self.speed.setRange(1, 30)
        self.speed.setValue(4)
        self.speed.setFixedWidth(90)
        self.speed.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.speed_label = QLabel()
        self.speed.valueChanged.connect(self.on_speed)
        layout.addWidget(self.speed)
        layout.addWidget(self.speed_label)
        self.on_speed(self.speed.value())

    def set_unit(self, unit: str) -> None:
        self.unit = unit
        self.speed_label.setText(f"{self.speed.value()} {unit}")

    def on_speed(self, value: int) -> None:
        self.speed_label.setText(f"{value} {self.unit}")
        self.speed_changed.emit(value)
