"""The line above the attention grid before the first step: what is shown, and what to press."""

from __future__ import annotations

import html

from PySide6.QtWidgets import QLabel

from visualizer.events import Subscriptions
from visualizer.session import Session

TEXT = {
    "en": {
        "instead": "Nothing generated yet: shown is <b>{shown}</b>, computed when the model read the "
        "source. ",
        "keys": "<b>→</b> one token · <b>Space</b> play · <b>End</b> run to the end",
    },
    "zh": {
        "instead": "还没有生成词元：这里显示的是模型读入输入时算好的<b>{shown}</b>。",
        "keys": "<b>→</b> 生成一个词元 · <b>空格</b> 播放 · <b>End</b> 运行到结束",
    },
}


class StepHint(QLabel):
    """Says something only before the first step of a generation.

    One line of fixed height, empty after the first step rather than hidden: were it to come
    and go, the grid below would be resized and redrawn on the first step, which then takes
    long enough for the next key presses to be dropped.
    """

    def __init__(self, session: Session, parent=None) -> None:
        super().__init__(parent)
        self.session = session
        self.setObjectName("step-hint")
        self.setStyleSheet("color: #9ccc65; padding: 1px 4px;")
        self.setFixedHeight(self.fontMetrics().height() + 4)
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
        if session.snapshot is None or session.cursor >= 0:
            self.setText("")
            return
        words = TEXT.get(session.language, TEXT["en"])
        text = words["keys"]
        info = session.snapshot.info
        if session.shown_kind != session.kind:
            shown = html.escape(info.kind(session.shown_kind).title)
            text = words["instead"].format(shown=shown) + text
        self.setText(text)
