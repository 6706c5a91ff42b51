"""The main window's concept pages and when their panels are built. Mixed into ``MainWindow``.

Building a panel costs up to a few hundred milliseconds of pyqtgraph plots, and its first jobs
need torch (some run on the GUI thread: the decoding page's live settings, the Train page's replay).
A window built for a screenshot or a test builds a panel when its page is first shown; the
interactive start (``lazy_panels``) builds them all once the worker has imported torch, the
page in front first, then one per pass of the event loop.
"""

from __future__ import annotations

from functools import partial

from PySide6.QtCore import QTimer

from visualizer.i18n import trf
from visualizer.panels.page import PanelPage
from visualizer.panels.registry import PANELS


class PanelsMixin:
    def add_panel_pages(self) -> None:
        """One tab per concept panel, each built when first needed (see PanelPage)."""
        session = self.session
        for entry in PANELS:
            page = PanelPage(session, entry, partial(self.build_panel, entry), self.on_panel_failed)
            page.build_on_show = not self.lazy_panels  # lazily: once the worker has imported torch
            self.pages.addTab(page, entry.title(session.language))
            self.panel_pages.append(page)

    @property
    def panels(self) -> list:
        """Every concept panel, built now if it was not yet (those before a failure)."""
        self.install_panels()
        return [page.built_panel for page in self.panel_pages if page.built]

    def on_panel_failed(self, error: Exception) -> None:
        """A panel could not be built (e.g. torch cannot be imported): every page not built yet
        says why, and the window says it once."""
        if self.panels_failed:
            return
        self.panels_failed = True
        for page in self.panel_pages:
            if not page.built:
                page.fail(str(error))
        self.on_message(
            "error",
            trf("the concept panels could not be loaded: {error}", self.session.language, error=error),
        )

    def install_panels(self) -> None:
        """Build every concept panel now."""
        while self.install_next_panel():
            pass

    def on_worker_warmed(self) -> None:
        """Torch is imported: a page shown from now on builds its panel, the one in front
        first, then the others one per pass of the event loop."""
        for page in self.panel_pages:
            page.build_on_show = True
        current = self.pages.currentWidget()
        if isinstance(current, PanelPage) and not self.closed and current.unsupported() is None:
            current.build()
        self.install_panels_gradually()

    def install_panels_gradually(self) -> None:
        """One panel per pass of the event loop: building one blocks the GUI thread for up to
        a few hundred milliseconds (pyqtgraph's plots)."""
        if self.install_next_panel():
            QTimer.singleShot(0, self.install_panels_gradually)

    def install_next_panel(self) -> bool:
        """Build the next panel not built yet; False when there is none left (or one failed)."""
        if self.closed or self.panels_failed:
            return False
        page = next((page for page in self.panel_pages if not page.built), None)
        return page is not None and page.build()
