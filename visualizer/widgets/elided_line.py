"""One line of text cut with "…" to the width it has; a click on it is a signal."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QLabel, QSizePolicy


def plain_text(rich: str) -> str:
    """Rich text as one line of plain text (tags dropped, entities read, breaks as spaces)."""
    document = QTextDocument()
    document.setHtml(rich)
    return " ".join(document.toPlainText().split())


class ElidedLine(QLabel):
    """Never wider than its place: the text is cut at the end, the whole of it in ``full``."""

    clicked = Signal()

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.full = ""
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.setCursor(Qt.CursorShape.PointingHandCursor)

    def set_full_text(self, text: str) -> None:
        self.full = text
        self.elide()

    def elide(self) -> None:
        room = self.contentsRect().width() - 2 * self.margin()
        self.setText(self.fontMetrics().elidedText(self.full, Qt.TextElideMode.ElideRight, max(0, room)))

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        self.elide()

    def mousePressEvent(self, event) -> None:  # noqa: N802
        if event.button() == Qt.MouseButton.LeftButton:
            self.clicked.emit()
        super().mousePressEvent(event)
