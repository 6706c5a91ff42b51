"""One concept page: the panel, or, when the loaded model lacks what it needs, one line why.

The tab stays (never hidden silently) and says why in place of the panel's view; the panel
itself is not shown, so it asks the model for nothing. The panel sits in a scroll area: a
window smaller than the panel needs (1024×700 and up must stay readable) scrolls it instead of
squeezing its plots or drawing text over them.

The panel is built when it is first needed (its page shown, or ``panel`` asked for), or
ahead of time by ``build()``: building one costs up to a few hundred milliseconds of
pyqtgraph plots (and its first jobs load torch), so a window that is never asked for a page
never pays for it. Until then the page says "Loading…" (or why the model cannot be shown there).
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QLabel, QScrollArea, QStackedWidget, QWidget

from visualizer.i18n import tr, trf
from visualizer.panels.base import ConceptPanel
from visualizer.panels.registry import PanelEntry
from visualizer.state.events import Subscriptions
from visualizer.state.session import Session


def panel_class(entry: PanelEntry) -> type[ConceptPanel]:
    """The class of one panel (imports its module: Qt and pyqtgraph, never torch)."""
    module, name = entry.where.split(":")
    return getattr(import_module(f"visualizer.panels.{module}"), name)


UNSUPPORTED_STYLE = "color: #9a9a9a; font-size: 13pt; padding: 24px"


class PanelPage(QStackedWidget):
    def __init__(
        self,
        session: Session,
        entry: PanelEntry,
        build: Callable[[], ConceptPanel],
        on_failure: Callable[[Exception], None] = lambda _error: None,
    ) -> None:
        super().__init__()
        self.session, self.entry = session, entry
        self.builder, self.on_failure = build, on_failure
        self.built_panel: ConceptPanel | None = None
        self.failure: str | None = None  # why the panel could not be built
        self.build_on_show = True  # False while the window waits for torch (lazy panels)
        self.reason = QLabel()
        self.reason.setObjectName("unsupported")
        self.reason.setWordWrap(True)
        self.reason.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.reason.setStyleSheet(UNSUPPORTED_STYLE)
        self.scroll = QScrollArea()
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.addWidget(self.scroll)
        self.addWidget(self.reason)
        self.subscriptions = Subscriptions(
            (session.model_changed, self.on_model_changed),
            (session.language_changed, self.on_language_changed),
        )
        self.on_model_changed(session.model)

    # -- the panel, built once -------------------------------------------------------------
    @property
    def built(self) -> bool:
        return self.built_panel is not None

    @property
    def panel(self) -> ConceptPanel | None:
        """The panel, built now if it was not yet; None if it cannot be built."""
        self.build()
        return self.built_panel

    def build(self) -> bool:
        """Build the panel if it is not built yet; False if building it failed (then the page
        says why, and ``on_failure`` was told)."""
        if self.built_panel is not None:
            return True
        if self.failure is not None:
            return False
        try:
            panel = self.builder()
        except Exception as error:  # e.g. torch cannot be imported: say so on the page
            self.fail(str(error))
            self.on_failure(error)
            return False
        # a panel's plots shrink with the window rather than force it to grow on a small screen
        panel.setMinimumSize(480, 360)
        self.built_panel = panel
        self.scroll.setWidget(panel)
        panel.set_room(self.height())
        self.on_model_changed(self.session.model)
        return True

    def fail(self, message: str) -> None:
        """The panel cannot be built: the page says why, for good."""
        self.failure = message
        self.show_reason()

    def showEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().showEvent(event)
        if self.build_on_show and self.unsupported() is None:
            self.build()

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        if self.built_panel is not None:  # a small window folds the explanation (ConceptPanel)
            self.built_panel.set_room(self.height())

    # -- what the page shows ---------------------------------------------------------------
    def unsupported(self) -> str | None:
        model = self.session.model
        return self.entry.unsupported(model.family if model is not None else None)

    def on_model_changed(self, _model) -> None:
        wanted = self.isVisible() and self.build_on_show and self.unsupported() is None
        if self.built_panel is None and wanted:
            self.build()  # shown, and a model it can show arrived: calls back here once built
            return
        self.show_reason()

    def show_reason(self) -> None:
        language = self.session.language
        reason = self.unsupported()
        if self.failure is not None:
            self.reason.setText(trf("This page could not be loaded: {error}", language, error=self.failure))
        elif reason is not None:
            title = self.entry.title(language)
            self.reason.setText(f"{title} — {self.session.model.name}: {tr(reason, language)}.")
        elif self.built_panel is None:
            self.reason.setText(tr("Loading…", language))
        shows_panel = self.failure is None and reason is None and self.built_panel is not None
        self.setCurrentWidget(self.scroll if shows_panel else self.reason)

    @property
    def shows_panel(self) -> bool:
        return self.currentWidget() is self.scroll

    def content(self) -> QWidget:
        """What the page shows, whole (the panel, also where the scroll area hides part of it)."""
        return self.built_panel if self.shows_panel else self.reason

    def on_language_changed(self, _language) -> None:
        self.show_reason()

    def detach(self) -> None:
        self.subscriptions.close()
        if self.built_panel is not None:
            self.built_panel.detach()
