"""The line above the attention grid before the first step: what is shown, and what to press."""

from __future__ import annotations

import html

from PySide6.QtWidgets import QLabel

from visualizer.events import Subscriptions
from visualizer.session import Session

TEXT = {
    "en": {
        "instead": "Nothing generated yet, so {chosen} has no row: shown is <b>{shown}</b>, which the "
        "model computed when it read the source. ",
        "keys": "Press <b>→</b> to generate one token, <b>Space</b> to play, <b>End</b> to run to the end.",
    },
    "zh": {
        "instead": "还没有生成任何词元，{chosen}还没有行："
        "这里显示的是模型读入输入时就已算好的<b>{shown}</b>。",
        "keys": "按 <b>→</b> 生成一个词元，按 <b>空格</b> 播放，按 <b>End</b> 一直运行到结束。",
    },
}


class StepHint(QLabel):
    """Shown only before the first step of a generation."""

    def __init__(self, session: Session, parent=None) -> None:
        super().__init__(parent)
        self.session = session
        self.setObjectName("step-hint")
        self.setWordWrap(True)
        self.setStyleSheet("color: #9ccc65; padding: 2px 4px;")
        self.hide()
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
            self.hide()
            return
        words = TEXT.get(session.language, TEXT["en"])
        text = words["keys"]
        info = session.snapshot.info
        if session.shown_kind != session.kind:
            chosen = html.escape(info.kind(session.kind).title)
            shown = html.escape(info.kind(session.shown_kind).title)
            text = words["instead"].format(chosen=chosen, shown=shown) + text
        self.setText(text)
        self.show()
