"""A row of controls that wraps onto another line where the window is too narrow for it.

A ``QHBoxLayout`` squeezes its widgets below their size hints when the row is wider than the
page: at 1024×700 a check box read "what if: remove the causal mas". ``FlowRow`` never gives a
widget less than its size hint; what does not fit goes onto the next line. Each line's spare
width goes to its stretches and stretching widgets, as in a box layout, so a row that fits
looks as it did.
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, QSize, Qt
from PySide6.QtWidgets import QLabel, QLayout, QLayoutItem, QSizePolicy, QSpacerItem, QWidget, QWidgetItem


class FlowRow(QLayout):
    def __init__(self, parent: QWidget | None = None, spacing: int = 6) -> None:
        super().__init__(parent)
        self.setContentsMargins(0, 0, 0, 0)
        self.setSpacing(spacing)
        self.entries: list[tuple[QLayoutItem, int]] = []  # each item and its stretch

    # -- what the row holds ---------------------------------------------------------------------
    def addItem(self, item: QLayoutItem) -> None:  # noqa: N802 (Qt's name)
        self.entries.append((item, 0))

    def addWidget(self, widget: QWidget, stretch: int = 0) -> None:  # noqa: N802
        """``widget`` at its size hint or wider: a ``stretch`` above 0 takes its share of the
        line's spare width."""
        self.addChildWidget(widget)
        self.entries.append((QWidgetItem(widget), stretch))
        self.invalidate()

    def addStretch(self, stretch: int = 1) -> None:  # noqa: N802
        """Spare width on the line goes here (what follows is pushed to the line's right end)."""
        spacer = QSpacerItem(0, 0, QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Minimum)
        self.entries.append((spacer, max(1, stretch)))
        self.invalidate()

    def addSpacing(self, size: int) -> None:  # noqa: N802
        spacer = QSpacerItem(size, 0, QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Minimum)
        self.entries.append((spacer, 0))
        self.invalidate()

    def count(self) -> int:
        return len(self.entries)

    def itemAt(self, index: int) -> QLayoutItem | None:  # noqa: N802
        return self.entries[index][0] if 0 <= index < len(self.entries) else None

    def takeAt(self, index: int) -> QLayoutItem | None:  # noqa: N802
        return self.entries.pop(index)[0] if 0 <= index < len(self.entries) else None

    # -- sizes ------------------------------------------------------------------------------------
    def expandingDirections(self) -> Qt.Orientation:  # noqa: N802
        return Qt.Orientation.Horizontal

    def hasHeightForWidth(self) -> bool:  # noqa: N802
        return True

    def heightForWidth(self, width: int) -> int:  # noqa: N802
        return self.arrange(QRect(0, 0, width, 0), place=False)

    def sizeHint(self) -> QSize:  # noqa: N802
        """Every item on one line."""
        shown = self.shown()
        width = sum(item.sizeHint().width() for item, _ in shown) + self.spacing() * max(0, len(shown) - 1)
        height = max((item.sizeHint().height() for item, _ in shown), default=0)
        return self.with_margins(QSize(width, height))

    def minimumSize(self) -> QSize:  # noqa: N802
        """The widest item alone on its line: narrower, the row would have to cut it."""
        shown = self.shown()
        width = max((item.sizeHint().width() for item, _ in shown), default=0)
        height = max((item.sizeHint().height() for item, _ in shown), default=0)
        return self.with_margins(QSize(width, height))

    def with_margins(self, size: QSize) -> QSize:
        margins = self.contentsMargins()
        return size + QSize(margins.left() + margins.right(), margins.top() + margins.bottom())

    def setGeometry(self, rect: QRect) -> None:  # noqa: N802
        super().setGeometry(rect)
        self.arrange(rect, place=True)

    # -- placing ----------------------------------------------------------------------------------
    def shown(self) -> list[tuple[QLayoutItem, int]]:
        """The items that take room (a hidden widget takes none)."""
        return [(item, stretch) for item, stretch in self.entries if not item.isEmpty() or item.spacerItem()]

    def lines(self, width: int) -> list[list[tuple[QLayoutItem, int]]]:
        """The items in lines no wider than ``width`` (an item wider than that alone on its own).
        A caption (a label) stays with the control after it: where the line breaks between
        them, the caption moves down too."""
        lines: list[list[tuple[QLayoutItem, int]]] = [[]]
        for item, stretch in self.shown():
            line = lines[-1]
            needed = item.sizeHint().width()
            if line and needed > 0 and self.width_of(line) + self.spacing() + needed > width:
                carried = [line.pop()] if len(line) > 1 and is_caption(line[-1][0]) else []
                lines.append(carried)
                line = lines[-1]
            if not line and item.spacerItem() is not None:
                continue  # a stretch or spacing at the start of a wrapped line holds nothing
            line.append((item, stretch))
        return [line for line in lines if line]

    def width_of(self, line: list[tuple[QLayoutItem, int]]) -> int:
        return sum(item.sizeHint().width() for item, _ in line) + self.spacing() * (len(line) - 1)

    def arrange(self, rect: QRect, place: bool) -> int:
        """Lay the items out in ``rect`` (``place``: move them there); returns the height used."""
        margins = self.contentsMargins()
        area = rect.adjusted(margins.left(), margins.top(), -margins.right(), -margins.bottom())
        y = area.y()
        for number, line in enumerate(self.lines(area.width())):
            if number:
                y += self.spacing()
            height = max(item.sizeHint().height() for item, _ in line)
            if place:
                self.place_line(line, QPoint(area.x(), y), area.width(), height)
            y += height
        return y - area.y() + margins.top() + margins.bottom()

    def place_line(self, line: list[tuple[QLayoutItem, int]], start: QPoint, width: int, height: int) -> None:
        """One line: each item at its size hint, the spare width shared by the stretches (or,
        without any, by the widgets that expand), each item centred in the line's height."""
        hints = [item.sizeHint() for item, _ in line]
        spare = width - self.width_of(line)
        shares = [stretch for _, stretch in line]
        if not any(shares):
            shares = [1 if item.expandingDirections() & Qt.Orientation.Horizontal else 0 for item, _ in line]
        total = sum(shares)
        x = start.x()
        for (item, _), hint, share in zip(line, hints, shares, strict=True):
            extra = spare * share // total if spare > 0 and total else 0
            item_height = height if item.expandingDirections() & Qt.Orientation.Vertical else hint.height()
            item_height = min(height, max(item_height, item.minimumSize().height()))
            top = start.y() + (height - item_height) // 2
            item.setGeometry(QRect(x, top, hint.width() + extra, item_height))
            x += hint.width() + extra + self.spacing()


def is_caption(item: QLayoutItem) -> bool:
    """A label on one line: it names the control after it."""
    widget = item.widget()
    return isinstance(widget, QLabel) and not widget.wordWrap()


def keep_size_hint(widget: QWidget) -> QWidget:
    """``widget`` never narrower than its size hint in a box layout (which would cut its text):
    in a row that also holds a stretching widget, the stretching one gives way."""
    widget.setSizePolicy(QSizePolicy.Policy.Minimum, widget.sizePolicy().verticalPolicy())
    return widget
