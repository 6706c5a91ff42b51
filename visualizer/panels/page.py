"""One concept page: the panel, or, when the loaded model lacks what it needs, one line why.

The tab stays (never hidden silently) and says why in place of the panel's view; the panel
itself is not shown, so it asks the model for nothing. The panel sits in a scroll area: a
window smaller than the panel needs (1024×700 and up must stay readable) scrolls it instead of
squeezing its plots or drawing text over them.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QLabel, QScrollArea, QStackedWidget, QWidget

from visualizer.events import Subscriptions
from visualizer.i18n import tr
from visualizer.panels.base import ConceptPanel
from visualizer.session import Session

UNSUPPORTED_STYLE = "color: #9a9a9a; font-size: 13pt; padding: 24px"


class PanelPage(QStackedWidget):
    def __init__(self, session: Session, panel: ConceptPanel) -> None:
        super().__init__()
        self.session, self.panel = session, panel
        self.reason = QLabel()
        self.reason.setObjectName("unsupported")
        self.reason.setWordWrap(True)
        self.reason.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.reason.setStyleSheet(UNSUPPORTED_STYLE)
        self.scroll = QScrollArea()
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll.setWidget(panel)
        self.addWidget(self.scroll)
        self.addWidget(self.reason)
        self.subscriptions = Subscriptions(
            (session.model_changed, self.on_model_changed),
            (session.language_changed, self.on_language_changed),
        )
        self.on_model_changed(session.model)

    def on_model_changed(self, _model) -> None:
        # the panel judged the model first: it subscribed in its constructor, before its page
        reason = self.panel.unsupported
        if reason is not None:
            language = self.session.language
            self.reason.setText(f"{self.panel.title()} — {self.session.model.name}: {tr(reason, language)}.")
        self.setCurrentWidget(self.reason if reason is not None else self.scroll)

    @property
    def shows_panel(self) -> bool:
        return self.currentWidget() is self.scroll

    def content(self) -> QWidget:
        """What the page shows, whole (the panel, also where the scroll area hides part of it)."""
        return self.panel if self.shows_panel else self.reason

    def on_language_changed(self, _language) -> None:
        self.on_model_changed(self.session.model)

    def detach(self) -> None:
        self.subscriptions.close()
        self.panel.detach()
