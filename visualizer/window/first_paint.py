"""Run something once a window has painted for the first time.

The interactive start holds back the model worker (whose first job imports torch, over a
second with the GIL held for much of it) until the window is on screen, and ``attnviz bench``
stamps the same moment to time the start-up (``visualizer.window.app.probe_startup``).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QWidget


class FirstPaint(QObject):
    """Calls ``callback`` once, after ``widget``'s first paint has finished (children included).

    A window that is never exposed (started minimised, or on a platform that does not paint
    a hidden window) gets no paint event; with ``fallback_ms`` the callback runs anyway that
    long after the widget was first shown, so that nothing waits on a paint forever.
    """

    def __init__(self, widget: QWidget, callback: Callable[[], None], fallback_ms: int | None = None) -> None:
        super().__init__(widget)
        self.widget = widget
        self.callback = callback
        self.fallback_ms = fallback_ms
        self.done = False
        self.armed = False
        widget.installEventFilter(self)

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 (Qt's name)
        kind = event.type()
        if kind == QEvent.Type.Paint and not self.done:
            # the window and its children are painted in one pass: run once that pass is over
            QTimer.singleShot(0, self.fire)
        elif kind == QEvent.Type.Show and self.fallback_ms is not None and not self.armed:
            self.armed = True
            QTimer.singleShot(self.fallback_ms, self.fire)
        return False

    def fire(self) -> None:
        if self.done:
            return
        self.done = True
        self.widget.removeEventFilter(self)
        self.callback()
