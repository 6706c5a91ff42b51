"""What every concept panel shares: an explanation above a live view of the model.

A panel reads the session (the shown step, the selected layer and head, the computed
what-ifs) and draws; it asks for model work by naming it (a job of ``visualizer.state.jobs``)
to ``session.compute(key, job)``, never runs the model on the GUI thread, and imports no
torch. ``refresh()`` is called whenever something it shows may have changed; a panel that is
not visible postpones the work until it is shown.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSizePolicy, QVBoxLayout, QWidget

from visualizer.i18n import trf
from visualizer.panels.registry import ENTRIES
from visualizer.state.events import Subscriptions
from visualizer.state.session import Session
from visualizer.widgets.heatmap import BACKGROUND

WHAT_IF_STYLE = (
    "background: #fff3cd; color: #6b4e00; border: 1px solid #e0b000; padding: 4px; font-weight: bold"
)


class ConceptPanel(QWidget):
    key = ""  # the --panel name; its tab title is the registry's

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.outer = QVBoxLayout(self)
        self.outer.setContentsMargins(6, 6, 6, 6)
        self.explanation = QLabel()
        self.explanation.setWordWrap(True)
        self.explanation.setTextFormat(Qt.TextFormat.RichText)
        self.explanation.setStyleSheet("font-size: 11pt; padding: 4px;")
        self.outer.addWidget(self.explanation)
        self.what_if_banner = QLabel()
        self.what_if_banner.setStyleSheet(WHAT_IF_STYLE)
        self.what_if_banner.hide()
        self.outer.addWidget(self.what_if_banner)
        self.failure = QLabel()  # a computation for this panel raised: say what, in the panel
        self.failure.setWordWrap(True)
        self.failure.setStyleSheet("color: #c62828; font-weight: bold; padding: 2px")
        self.failure.hide()
        self.outer.addWidget(self.failure)
        self.unsupported: str | None = None  # why the loaded model cannot be shown here
        self.stale = True
        self.subscriptions = Subscriptions(
            (session.cursor_changed, self.on_state_changed),
            (session.view_changed, self.on_state_changed),
            (session.selection_changed, self.on_state_changed),
            (session.computed_changed, self.on_computed),
            (session.language_changed, self.on_language_changed),
            (session.model_changed, self.on_model_changed),
        )
        self.on_language_changed(session.language)
        if session.model is not None:
            self.on_model_changed(session.model)

    def on_model_changed(self, model) -> None:
        """Check the new model against what the panel needs (``registry.PanelEntry.needs``);
        an unsupported panel asks the model for nothing (the window shows why instead)."""
        self.unsupported = ENTRIES[self.key].unsupported(model.family if model is not None else None)
        self.on_state_changed()

    def detach(self) -> None:
        self.subscriptions.close()

    def title(self) -> str:
        return ENTRIES[self.key].title(self.session.language)

    def explain(self, language: str) -> str:
        """A few sentences of rich text above the view, in ``language``: each panel returns
        ``tr`` of its English text (a literal there, where the translation test finds it)."""
        return ""

    def on_language_changed(self, language: str) -> None:
        self.explanation.setText(self.explain(language))
        self.on_state_changed()

    def on_state_changed(self, *_args) -> None:
        self.stale = True
        if self.isVisible():
            self.update_view()

    def on_computed(self, key) -> None:
        message = self.session.failed.get(key)
        if message is not None:
            words = "the model could not compute this view: {message}"
            self.failure.setText(trf(words, self.session.language, message=message))
            self.failure.show()
            return
        self.failure.hide()
        self.on_state_changed()

    def showEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().showEvent(event)
        if self.stale:
            self.update_view()

    def update_view(self) -> None:
        self.stale = False
        if self.unsupported is None:
            self.refresh()
            self.fit_canvases()

    def heightForWidth(self, width: int) -> int:  # noqa: N802 (Qt's name)
        """At least the layout's minimum: the scroll area sizes the panel by this, and the
        canvases' preferred heights (ignored, see fit_canvases) would undercut their minimums."""
        return max(self.outer.totalHeightForWidth(width), self.outer.totalMinimumHeightForWidth(width))

    def fit_canvases(self) -> None:
        """Each plot canvas asks for at least the width its axes and labels need, so that a
        narrow window scrolls the page (it sits in a scroll area) instead of cutting a plot off;
        its height is its minimum plus whatever room the window has (an ignored size hint: the
        canvases' own 480-pixel hint would make every page scroll)."""
        for canvas in self.findChildren(pg.GraphicsView):
            canvas.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Ignored)
            if isinstance(canvas, pg.GraphicsLayoutWidget):
                needed = canvas.ci.effectiveSizeHint(Qt.SizeHint.MinimumSize)
                canvas.setMinimumWidth(math.ceil(needed.width()))

    def add_view(
        self,
        controls: Sequence[QWidget] = (),
        right: Sequence[QWidget] = (),
        canvas_height: int = 300,
        wrap: bool = True,
    ) -> tuple[QLabel, pg.GraphicsLayoutWidget]:
        """The set-up most panels share under the explanation, added in this order: a row of
        ``controls`` with ``right`` at its right end (no row when both are empty), a status line
        (``wrap``: a long one wraps rather than widening the page) and the plot canvas on the
        dark background, at least ``canvas_height`` pixels high, which takes the room left.
        Returns the status line and the canvas."""
        if controls or right:
            row = QHBoxLayout()
            for widget in controls:
                row.addWidget(widget)
            row.addStretch(1)
            for widget in right:
                row.addWidget(widget)
            self.outer.addLayout(row)
        status = QLabel()
        status.setWordWrap(wrap)
        self.outer.addWidget(status)
        canvas = pg.GraphicsLayoutWidget()
        canvas.setBackground(BACKGROUND)
        canvas.setMinimumHeight(canvas_height)
        self.outer.addWidget(canvas, 1)
        return status, canvas

    def show_what_if(self, text: str | None) -> None:
        """A banner that says a what-if is active (the picture is not the model as trained)."""
        self.what_if_banner.setVisible(bool(text))
        self.what_if_banner.setText(text or "")

    def refresh(self) -> None:
        """Redraw from the session; subclasses implement it."""
        raise NotImplementedError
