"""The generated tokens as a row of buttons: click one to see the app as it was at that step."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt, QTimer
from PySide6.QtWidgets import QButtonGroup, QHBoxLayout, QLabel, QPushButton, QScrollArea, QWidget

from visualizer.i18n import tr, trf
from visualizer.state.events import Subscriptions
from visualizer.state.session import Session
from visualizer.state.token_labels import copy_description, start_token
from visualizer.widgets.heatmap import display_token

BUTTONS_PER_PASS = 16
# no min-width here: a style sheet's min-width is a fixed minimum that the row squeezed every
# chip down to once the chips outgrew the window, cutting "⟨bos⟩" to "bos" (Chip has its own)
BUTTON_STYLE = """
QPushButton { padding: 3px 5px; font-size: 13pt; border: 1px solid #555;
              border-radius: 3px; background: #2b2b2b; color: #eee; }
QPushButton:checked { background: #ffb300; color: #000; border-color: #ffb300; }
QPushButton:flat { color: #888; }
QPushButton[forced="true"] { border: 2px solid #4fc3f7; }
QPushButton[copied="true"] { color: #e1bee7; border: 1px dashed #ce93d8; text-decoration: underline; }
QPushButton[copied="true"]:checked { color: #4a148c; }
"""


class Chip(QPushButton):
    """A timeline button: never narrower than its text (nor than MIN_WIDTH pixels)."""

    MIN_WIDTH = 38  # a one-character chip stays easy to click

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        hint = super().sizeHint()
        return QSize(max(hint.width(), self.MIN_WIDTH), hint.height())

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        return self.sizeHint()


class Timeline(QScrollArea):
    def __init__(self, session: Session, parent=None) -> None:
        super().__init__(parent)
        self.session = session
        self.setWidgetResizable(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setFixedHeight(58)
        inner = QWidget()
        inner.setStyleSheet(BUTTON_STYLE)
        self.row = QHBoxLayout(inner)
        self.row.setContentsMargins(4, 2, 4, 2)
        self.row.setSpacing(3)
        self.setWidget(inner)
        self.group = QButtonGroup(self)
        self.group.setExclusive(True)
        self.group.idClicked.connect(self.on_clicked)
        # new chips are laid out after the step that made them: the row grows, then the
        # scroll bar's range, and only then can the current chip be scrolled to
        self.horizontalScrollBar().rangeChanged.connect(self.show_current)
        self.start = self._make_button("", -1)  # the model's start token, once there is a model
        self.start.hide()
        self.buttons: list[QPushButton] = []
        self.shown = None  # the snapshot the buttons are for
        self.records: list = []  # the step record each button shows (records are immutable)
        self.ending = QLabel("")
        self.ending.setStyleSheet("color: #aaa; padding-left: 8px;")
        self.row.addWidget(self.ending)
        self.row.addStretch(1)
        self.subscriptions = Subscriptions(
            (session.snapshot_changed, self.on_snapshot_changed),
            (session.cursor_changed, self.on_cursor_changed),
            (session.language_changed, lambda _language: self.on_snapshot_changed(session.snapshot)),
        )

    def detach(self) -> None:
        self.subscriptions.close()

    def _make_button(self, text: str, step: int) -> QPushButton:
        button = Chip(text)
        button.setCheckable(True)
        button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.group.addButton(button, step + 1)  # ids must be ≥ 0
        self.row.insertWidget(step + 1, button)
        return button

    def on_snapshot_changed(self, snapshot) -> None:
        self.shown = snapshot
        language = self.session.language
        if snapshot is not None:  # what the decoder reads first: the model's own start token
            self.start.setText(start_token(snapshot.tokenizer))
            self.start.setToolTip(tr("before the first step: only the encoder has run", language))
        self.start.setVisible(snapshot is not None)
        steps = snapshot.steps if snapshot is not None else ()
        copies = snapshot.copies if snapshot is not None else {}
        kind = snapshot.info.alignment_kind if snapshot is not None else None
        while len(self.buttons) > len(steps):
            button = self.buttons.pop()
            self.records.pop()
            self.group.removeButton(button)
            button.deleteLater()
        # Each styled button costs about 0.6 ms to make: a 64-step snapshot (run to the end)
        # gets its buttons over a few passes of the event loop, never in one 40 ms block.
        for _ in range(min(len(steps) - len(self.buttons), BUTTONS_PER_PASS)):
            self.buttons.append(self._make_button("", len(self.buttons)))
            self.records.append(None)
        if len(self.buttons) < len(steps):
            QTimer.singleShot(0, self.on_more_buttons)
        for step, (button, record) in enumerate(zip(self.buttons, steps, strict=False)):
            if self.records[step] is record:  # a step kept from the last snapshot: nothing to do
                continue
            self.records[step] = record
            copy = copies.get(record.position)
            label = display_token(copy.character if copy else snapshot.tokenizer.token_text(record.token_id))
            button.setText(label)
            marks = {"forced": record.forced, "copied": copy is not None}
            if any(bool(button.property(name)) != value for name, value in marks.items()):
                for name, value in marks.items():
                    button.setProperty(name, value)
                restyle(button)  # a dynamic property is matched when polished: polish again
            chosen_p = record.filtered_probs[record.token_id]
            how = tr("forced by you", language) if record.forced else f"p = {chosen_p:.3f}"
            tip = trf("step {n}: {token} ({how})", language, n=step + 1, token=repr(label), how=how)
            if copy is not None:
                tip += "\n" + copy_description(copy, kind.title if kind else copy.kind, language)
            button.setToolTip(tip)
        stop_reason = snapshot.stop_reason if snapshot else None
        if stop_reason == "eos":
            self.ending.setText(tr("■ end of sequence", self.session.language))
        elif stop_reason == "max_length":
            self.ending.setText(tr("■ stopped at the maximum length", self.session.language))
        else:
            self.ending.setText("")
        self.on_cursor_changed(self.session.cursor)

    def on_more_buttons(self) -> None:
        if self.shown is self.session.snapshot:  # else a newer snapshot has made its own
            self.on_snapshot_changed(self.shown)

    def on_cursor_changed(self, cursor: int) -> None:
        button = self.group.button(cursor + 1)
        if button is not None:
            button.setChecked(True)
        self.show_current()
        for step, item in enumerate(self.buttons):
            # "ahead" is the :flat pseudo-state, matched when painted: no re-polish per step
            # (polishing all 64 buttons on a jump to the start blocked the GUI for ~40 ms)
            item.setFlat(step > cursor)

    def show_current(self, *_range) -> None:
        """Scroll the current step's chip into view, once it is laid out: a chip made this step
        is shown, and placed, by the next layout pass (whose growing row calls this again);
        scrolling to it before would scroll to the row's start, a jump back at every step."""
        button = self.group.button(self.session.cursor + 1)
        if button is not None and button.isVisible():
            self.ensureWidgetVisible(button)

    def on_clicked(self, button_id: int) -> None:
        self.session.go_to_step(button_id - 1)


def restyle(widget: QWidget) -> None:
    widget.style().unpolish(widget)
    widget.style().polish(widget)
