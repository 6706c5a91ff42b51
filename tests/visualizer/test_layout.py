"""Every page stays readable in a small window: nothing drawn over anything else, nothing cut.

At 1024×700 a concept page is taller than the room it has; it sits in a scroll area and keeps
its plots' minimum sizes, instead of squeezing them or drawing its text over them.
"""

from __future__ import annotations

import pyqtgraph as pg
import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtWidgets import QLayout, QWidget

from visualizer.panels.registry import PANELS


def laid_out_widgets(layout: QLayout) -> list[QWidget]:
    """The visible widgets a layout places, through nested layouts."""
    found = []
    for index in range(layout.count()):
        item = layout.itemAt(index)
        if item.widget() is not None and item.widget().isVisible():
            found.append(item.widget())
        elif item.layout() is not None:
            found += laid_out_widgets(item.layout())
    return found


def panel_rect(widget: QWidget, panel: QWidget) -> QRect:
    return QRect(widget.mapTo(panel, widget.rect().topLeft()), widget.size())


@pytest.mark.parametrize("size", [(1024, 700), (1440, 900)])
def test_no_concept_page_overlaps_or_cuts_its_plots(harness, size):
    harness.window.resize(*size)
    for _ in range(4):
        harness.session.step_forward()
        harness.wait_idle()
    for entry in PANELS:
        harness.window.show_panel(entry.key)
        harness.wait_idle()
        harness.qtbot.wait(50)
        page = harness.window.pages.currentWidget()
        panel = page.panel
        assert page.shows_panel, entry.key
        # the panel is at least as tall as its layout needs at its width (else Qt overlaps widgets)
        needed = panel.outer.totalMinimumHeightForWidth(panel.width())
        assert panel.height() >= needed, (entry.key, panel.height(), needed)
        widgets = laid_out_widgets(panel.outer)
        rects = [panel_rect(w, panel) for w in widgets]
        for i, a in enumerate(rects):
            for j in range(i + 1, len(rects)):
                assert not a.intersects(rects[j]), (entry.key, widgets[i], widgets[j])
        for canvas in panel.findChildren(pg.GraphicsView):
            if not canvas.isVisible():
                continue
            assert canvas.height() >= canvas.minimumHeight() > 0, entry.key
            if isinstance(canvas, pg.GraphicsLayoutWidget):
                needed_width = canvas.ci.effectiveSizeHint(Qt.SizeHint.MinimumSize).width()
                assert canvas.width() >= needed_width, entry.key
