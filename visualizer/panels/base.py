"""What every concept panel shares: an explanation above a live view of the model.

A panel reads the session (the shown step, the selected layer and head, the computed
what-ifs) and draws; it asks for model work by naming it (a job of ``visualizer.state.jobs``)
to ``session.compute(key, job)``, never runs the model on the GUI thread, and imports no
torch. ``refresh()`` is called whenever something it shows may have changed; a panel that is
not visible postpones the work until it is shown.

The explanation at the top folds into one line (a toggle on every page; the session holds the
choice, so it is the same on every page, and the window remembers it between runs). Until the
user chooses, it is shown where the page has room for it and folded in a small window
(``ROOMY_PAGE``), so that the plots are in view at 1024×700.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSizePolicy, QToolButton, QVBoxLayout, QWidget

from visualizer.i18n import tr, trf
from visualizer.panels.registry import ENTRIES
from visualizer.state.events import Subscriptions
from visualizer.state.session import Session
from visualizer.widgets.elided_line import ElidedLine, plain_text
from visualizer.widgets.flow_row import FlowRow
from visualizer.widgets.heatmap import BACKGROUND

WHAT_IF_STYLE = (
    "background: #fff3cd; color: #6b4e00; border: 1px solid #e0b000; padding: 4px; font-weight: bold"
)
# a page at least this tall (1440×900: 634 pixels) shows the explanation until the
# user folds it; a shorter one (1280×800: 534, 1024×700: 434) folds it, else it pushes the plots
# below the fold
ROOMY_PAGE = 560


class ConceptPanel(QWidget):
    key = ""  # the --panel name; its tab title is the registry's

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.outer = QVBoxLayout(self)
        self.outer.setContentsMargins(6, 6, 6, 6)
        self.room: int | None = None  # the height of the page it is shown on (set_room)
        self.outer.addLayout(self.build_explanation())
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
            (session.explanations_changed, self.show_explanation),
        )
        self.on_language_changed(session.language)
        self.show_explanation()
        if session.model is not None:
            self.on_model_changed(session.model)

    def build_explanation(self) -> QHBoxLayout:
        """The explanation with its toggle at its left; folded, one line of it, cut with "…"
        (a click on that line unfolds it too)."""
        row = QHBoxLayout()
        row.setSpacing(0)
        self.explanation_toggle = QToolButton()
        self.explanation_toggle.setAutoRaise(True)
        self.explanation_toggle.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # the stepping keys stay
        self.explanation_toggle.clicked.connect(self.toggle_explanation)
        row.addWidget(self.explanation_toggle, 0, Qt.AlignmentFlag.AlignTop)
        self.explanation = QLabel()
        self.explanation.setWordWrap(True)
        self.explanation.setTextFormat(Qt.TextFormat.RichText)
        self.explanation.setStyleSheet("font-size: 11pt; padding: 4px;")
        row.addWidget(self.explanation, 1)
        self.explanation_line = ElidedLine()
        self.explanation_line.setStyleSheet("font-size: 11pt; padding: 4px; color: #666;")
        self.explanation_line.clicked.connect(self.toggle_explanation)
        row.addWidget(self.explanation_line, 1)
        return row

    def explanation_wanted(self) -> bool:
        """The user's choice; until there is one, shown where the page has room for it."""
        if self.session.explanations is not None:
            return self.session.explanations
        return self.room is None or self.room >= ROOMY_PAGE

    def show_explanation(self) -> None:
        shown = self.explanation_wanted()
        self.explanation.setVisible(shown)
        self.explanation_line.setVisible(not shown)
        toggle = self.explanation_toggle
        toggle.setArrowType(Qt.ArrowType.DownArrow if shown else Qt.ArrowType.RightArrow)
        words = "Hide the explanation" if shown else "Show the explanation"
        toggle.setToolTip(tr(words, self.session.language))
        self.explanation_line.setToolTip(tr("Show the explanation", self.session.language))

    def toggle_explanation(self) -> None:
        """The user's choice, for every page (the session holds it; the window remembers it)."""
        self.session.set_explanations(self.explanation.isHidden())

    def set_room(self, height: int) -> None:
        """The page is ``height`` pixels tall (its ``PanelPage`` says so as it resizes)."""
        if height != self.room:
            self.room = height
            self.show_explanation()

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
        self.set_explanation(self.explain(language))
        self.show_explanation()  # its tool tips
        self.on_state_changed()

    def set_explanation(self, text: str) -> None:
        """The explanation, unfolded and as its folded line; a page whose words follow the model
        or the kind shown calls it again when they change."""
        if self.explanation.text() != text:
            self.explanation.setText(text)
            self.explanation_line.set_full_text(plain_text(text))

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
        ``controls`` with ``right`` at its right end (no row when both are empty; a narrow
        window wraps it onto another line, see ``FlowRow``), a status line
        (``wrap``: a long one wraps rather than widening the page) and the plot canvas on the
        dark background, at least ``canvas_height`` pixels high, which takes the room left.
        Returns the status line and the canvas."""
        if controls or right:
            row = FlowRow()  # wraps on a narrow window rather than cutting a control
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
