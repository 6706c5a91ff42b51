"""The Train page's probe: every head of one kind of attention small, the chosen head large.

Drawn from a ``model.tasks.probe.ProbeTrace`` (one snapshot's greedy run of the probe); a
click on a small head chooses it. Rows are labelled as on the main view: a decoder kind's by
what the decoder read at each step (the start token, then each token written), a source-query
kind's by the source tokens; columns are the keys.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Signal

from visualizer.widgets.heatmap import BACKGROUND, MatrixPlot, display_token

LABEL_COLOR = "#dddddd"
CHOSEN_COLOR = "#ffb300"


def axis_tokens(trace, kind: str) -> tuple[list[str], list[str]]:
    """(row labels, column labels) of ``kind``'s matrices in ``trace``."""
    matrices = trace.attention[kind]
    source = [display_token(t) for t in trace.source_tokens]
    read = [display_token(t) for t in trace.input_tokens]
    if trace.step_kinds:
        per_step = kind in trace.step_kinds
    else:  # a trace that does not say: by the shape, as the shipped families' kinds are
        per_step = matrices.shape[2] != len(source) or kind in ("cross", "dec_self")
    rows = read if per_step else source
    columns = read if matrices.shape[3] == len(read) and kind == "dec_self" else source
    return rows[: matrices.shape[2]], columns[: matrices.shape[3]]


class ProbeView(pg.GraphicsLayoutWidget):
    head_chosen = Signal(int, int)  # (layer, head)

    def __init__(self, colormap: str, parent=None) -> None:
        super().__init__(parent)
        self.setBackground(BACKGROUND)
        self.colormap = colormap
        self.small_layout = self.addLayout(row=0, col=0)
        self.big_plot = self.addPlot(row=0, col=1)
        self.ci.layout.setColumnStretchFactor(0, 3)
        self.ci.layout.setColumnStretchFactor(1, 2)
        self.big = MatrixPlot(self.big_plot, colormap)
        self.big_title = ""
        self.cells: list[tuple[int, int, pg.ViewBox, MatrixPlot]] = []
        self.shape: tuple[int, int] | None = None  # (layers, heads) the small cells are built for
        self.chosen = (0, 0)
        self.trace = None
        self.kind = "cross"
        self.scene().sigMouseClicked.connect(self.on_clicked)

    def set_colormap(self, name: str) -> None:
        self.colormap = name
        self.big.set_colormap(name)
        for *_where, plot in self.cells:
            plot.set_colormap(name)

    def show_trace(self, trace, kind: str) -> None:
        """Draw ``trace``'s ``kind`` (None: clear)."""
        self.trace, self.kind = trace, kind
        if trace is None or kind not in trace.attention:
            for *_where, plot in self.cells:
                plot.show_matrix(np.zeros((0, 0)), None)
            self.big.show_matrix(np.zeros((0, 0)), None)
            self.big_plot.setTitle("")
            return
        matrices = trace.attention[kind]  # [L, H, queries, keys]
        layers, heads = matrices.shape[:2]
        if self.shape != (layers, heads):
            self.build_cells(layers, heads)
        self.chosen = (min(self.chosen[0], layers - 1), min(self.chosen[1], heads - 1))
        for layer, head, viewbox, plot in self.cells:
            plot.show_matrix(matrices[layer, head], None)
            chosen = (layer, head) == self.chosen
            viewbox.setBorder(pg.mkPen(CHOSEN_COLOR if chosen else "#444444", width=3 if chosen else 1))
        rows, columns = axis_tokens(trace, kind)
        self.big.show_matrix(matrices[self.chosen], None)
        self.big.set_ticks(rows, columns)

    def set_title(self, title: str) -> None:
        self.big_plot.setTitle(title, color=LABEL_COLOR, size="10pt")

    def shown_matrix(self) -> np.ndarray | None:
        """The large head's matrix as drawn (tests compare it with the trace)."""
        return self.big.image.image

    def build_cells(self, layers: int, heads: int) -> None:
        self.small_layout.clear()
        self.cells = []
        for layer in range(layers):
            for head in range(heads):
                viewbox = pg.ViewBox(lockAspect=False, enableMouse=False)
                self.small_layout.addLabel(
                    f"L{layer + 1} H{head + 1}", row=2 * layer, col=head, color=LABEL_COLOR, size="8pt"
                )
                self.small_layout.addItem(viewbox, row=2 * layer + 1, col=head)
                plot = MatrixPlot(viewbox, self.colormap)
                self.cells.append((layer, head, viewbox, plot))
        self.shape = (layers, heads)

    def choose(self, layer: int, head: int) -> None:
        self.chosen = (layer, head)
        self.head_chosen.emit(layer, head)

    def on_clicked(self, event) -> None:
        for layer, head, viewbox, _plot in self.cells:
            if viewbox.sceneBoundingRect().contains(event.scenePos()):
                self.choose(layer, head)
                return
