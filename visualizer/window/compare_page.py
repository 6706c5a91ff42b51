"""View > Compare: a second model on its own session and worker, shown on a Compare page.

``ComparePage`` owns side B (its session, its worker thread, the ``Comparison`` that makes it
follow the window's session, and the page's widget) and tears it all down when comparing
stops or the window closes.
"""

from __future__ import annotations

from pathlib import Path

import shiboken6
from PySide6.QtWidgets import QTabWidget

from visualizer.i18n import tr
from visualizer.state.compare import Comparison
from visualizer.state.events import Subscriptions
from visualizer.state.session import Session
from visualizer.widgets.compare_view import CompareView
from visualizer.work.worker import WorkerBridge

TITLE = "Compare A | B"


class ComparePage:
    def __init__(self, session: Session, pages: QTabWidget, parent) -> None:
        self.session = Session()
        self.session.language = session.language
        self.bridge = WorkerBridge(self.session, parent)
        self.comparison = Comparison(session, self.session)
        self.view = CompareView(self.comparison)
        self.pages = pages
        pages.addTab(self.view, tr(TITLE, session.language))
        self.subscriptions = Subscriptions((session.language_changed, self.on_language_changed))

    def on_language_changed(self, language: str) -> None:
        self.pages.setTabText(self.pages.indexOf(self.view), tr(TITLE, language))

    def open(self, path: str | Path) -> None:
        self.comparison.open(path)
        self.pages.setCurrentWidget(self.view)

    def close(self) -> None:
        self.subscriptions.close()
        index = self.pages.indexOf(self.view)
        if index >= 0:
            self.pages.removeTab(index)
        self.view.detach()
        self.comparison.close()
        self.bridge.shutdown()
        self.bridge.deleteLater()  # the stopped thread and its worker go with it
        # deleted now, while Python is alive: left to interpreter shutdown, its pyqtgraph items
        # receive events after Python is gone and crash the process
        shiboken6.delete(self.view)
