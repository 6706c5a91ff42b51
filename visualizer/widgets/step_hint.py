"""The line above the attention grid: before the first step what is shown and what to press,
afterwards (in grey) what the grid answers to."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QLabel, QSizePolicy

from visualizer.i18n import tr, trf
from visualizer.state.events import Subscriptions
from visualizer.state.session import Session

if TYPE_CHECKING:
    from model.interface import FamilyInfo

BEFORE_STYLE = "color: #9ccc65; padding: 1px 4px;"  # green: the first thing to do
AFTER_STYLE = "color: #8a8a8a; padding: 1px 4px;"  # grey: a reminder


class StepHint(QLabel):
    """What to press before the first step of a generation; what to click afterwards.

    One line of fixed height that is never hidden: were it to come and go, the grid below
    would be resized and redrawn on the first step, which then takes long enough for the next
    key presses to be dropped.
    """

    def __init__(self, session: Session, parent=None) -> None:
        super().__init__(parent)
        self.session = session
        self.setObjectName("step-hint")
        self.setStyleSheet(BEFORE_STYLE)
        self.setFixedHeight(self.fontMetrics().height() + 4)
        # a long reminder is cut at the window's edge rather than widening the window
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.subscriptions = Subscriptions(
            (session.cursor_changed, self.refresh),
            (session.snapshot_changed, self.refresh),
            (session.view_changed, self.refresh),
            (session.language_changed, self.refresh),
        )

    def detach(self) -> None:
        self.subscriptions.close()

    def refresh(self, *_args) -> None:
        session = self.session
        language = session.language
        if session.snapshot is None:
            self.setText("")
            return
        if session.cursor >= 0:
            later = reminder(session.snapshot.info, language)
            if session.words:
                later += tr(
                    " · <b>words</b>: pieces merged, keys summed, queries averaged (<b>W</b>)", language
                )
            if self.text() != later:  # a style sheet set on every step would re-polish
                self.setStyleSheet(AFTER_STYLE)
                self.setText(later)
            return
        if self.styleSheet() != BEFORE_STYLE:
            self.setStyleSheet(BEFORE_STYLE)
        text = tr("<b>→</b> one token · <b>Space</b> play · <b>End</b> run to the end", language)
        info = session.snapshot.info
        if session.shown_kind != session.kind:
            shown = html.escape(info.kind(session.shown_kind).title)
            instead = trf(
                "Nothing generated yet: shown is <b>{shown}</b>, computed when the model read the source. ",
                language,
                shown=shown,
            )
            text = instead + text
        self.setText(text)


def reminder(info: FamilyInfo, language: str) -> str:
    """What the grid answers to, naming only what this model has: the mean of several heads,
    the number keys of several kinds; the stepping keys for a model without attention."""
    if not info.has_attention:
        return tr("<b>→</b> one token · <b>←</b> back · <b>End</b> run to the end", language)
    text = tr("click a head to enlarge it · hover a cell to read its weight", language)
    if info.max_heads > 1:
        text += tr(" · <b>M</b> the mean of the heads", language)
    if len(info.kinds) > 1:
        text += trf(" · <b>1</b> … <b>{n}</b> the kinds of attention", language, n=len(info.kinds))
    return text
