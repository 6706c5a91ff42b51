"""The Train page's curves: the training loss, and exact match on the training batch and held out.

The newest point of each curve is marked, and a vertical line marks the snapshot the page
shows. Redrawn from a ``visualizer.state.training_run.TrainingRun`` (plain arrays, set in place).
A replay keeps no per-batch numbers: its legend names only what is drawn. The two plots stand
one above the other, or side by side where the widget is much wider than tall (a small window),
rather than squeezed into strips too low to read.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg

from visualizer.widgets.heatmap import BACKGROUND

LOSS_COLOR = "#ef9a9a"
TRAIN_COLOR = "#90caf9"
HELD_COLOR = "#a5d6a7"
SNAPSHOT_COLOR = "#ffb300"
LABEL_COLOR = "#dddddd"
SMOOTHING = 0.9  # the training batch's numbers jump from batch to batch: drawn smoothed
SIDE_BY_SIDE = 1.5  # wider than this many times its height, the plots stand side by side


def smoothed(values: np.ndarray, weight: float = SMOOTHING) -> np.ndarray:
    """An exponential moving average that skips NaN (a replay has no per-step exact match)."""
    out = np.empty_like(values)
    level = np.nan
    for index, value in enumerate(values):
        if not np.isnan(value):
            level = value if np.isnan(level) else weight * level + (1 - weight) * value
        out[index] = level
    return out


class TrainingCurves(pg.GraphicsLayoutWidget):
    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setBackground(BACKGROUND)
        self.loss_plot = self.addPlot(row=0, col=0)
        self.exact_plot = self.addPlot(row=1, col=0)
        self.side_by_side = False
        self.loss_plot.setLogMode(y=True)
        self.exact_plot.setYRange(0, 1, padding=0.02)
        for plot in (self.loss_plot, self.exact_plot):
            plot.showGrid(x=True, y=True, alpha=0.2)
            plot.setMenuEnabled(False)
            plot.setMouseEnabled(x=False, y=False)
            plot.hideButtons()
        self.exact_plot.addLegend(offset=(-8, -8), labelTextColor=LABEL_COLOR)
        self.loss_line = self.loss_plot.plot(pen=pg.mkPen(LOSS_COLOR, width=1.5))
        self.loss_now = self.loss_plot.plot(symbol="o", symbolBrush=LOSS_COLOR, symbolSize=8, pen=None)
        self.train_line = self.exact_plot.plot(pen=pg.mkPen(TRAIN_COLOR, width=1.5), name="train")
        self.held_line = self.exact_plot.plot(
            pen=pg.mkPen(HELD_COLOR, width=2), symbol="o", symbolSize=5, symbolBrush=HELD_COLOR, name="held"
        )
        self.exact_now = self.exact_plot.plot(symbol="o", symbolBrush=TRAIN_COLOR, symbolSize=8, pen=None)
        self.names = {self.train_line: "train", self.held_line: "held"}  # the legend's words
        self.has_batch_curve = True  # a replay has none: its legend leaves it out
        self.marks = []
        for plot in (self.loss_plot, self.exact_plot):
            mark = pg.InfiniteLine(angle=90, movable=False, pen=pg.mkPen(SNAPSHOT_COLOR, width=1.5))
            mark.hide()
            plot.addItem(mark)
            self.marks.append(mark)

    def set_words(self, loss: str, exact: str, train: str, held: str, step: str) -> None:
        self.loss_plot.setTitle(loss, color=LABEL_COLOR, size="10pt")
        self.exact_plot.setTitle(exact, color=LABEL_COLOR, size="10pt")
        for plot in (self.loss_plot, self.exact_plot):
            plot.setLabel("bottom", step, color=LABEL_COLOR)
        self.names = {self.train_line: train, self.held_line: held}
        self.fill_legend()

    def fill_legend(self) -> None:
        """One entry per curve drawn: no "training batch" for a replay, which has no such numbers."""
        legend = self.exact_plot.legend
        legend.clear()
        for line in (self.train_line, self.held_line):
            if line is not self.train_line or self.has_batch_curve:
                legend.addItem(line, self.names[line])

    def legend_words(self) -> list[str]:
        """The legend's entries, as shown (for tests)."""
        return [label.text for _sample, label in self.exact_plot.legend.items]

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        super().resizeEvent(event)
        if not hasattr(self, "exact_plot"):  # resized while pyqtgraph builds the widget
            return
        side_by_side = self.width() > SIDE_BY_SIDE * self.height()
        if side_by_side != self.side_by_side:
            self.side_by_side = side_by_side
            self.ci.removeItem(self.exact_plot)
            self.ci.addItem(self.exact_plot, row=0 if side_by_side else 1, col=1 if side_by_side else 0)

    def show_run(self, run, snapshot_step: int | None) -> None:
        """Draw ``run``'s curves (None: empty) and mark ``snapshot_step``."""
        if run is None:
            for item in (self.loss_line, self.loss_now, self.train_line, self.held_line, self.exact_now):
                item.setData([], [])
            for mark in self.marks:
                mark.hide()
            return
        steps, loss = run.loss_curve()
        keep = np.isfinite(loss) & (loss > 0)  # log axis: a zero or NaN loss is not drawn
        self.loss_line.setData(steps[keep], loss[keep])
        self.loss_now.setData(steps[keep][-1:], loss[keep][-1:])
        steps, exact = run.exact_curve()
        exact = smoothed(exact)
        keep = np.isfinite(exact)
        if keep.any() != self.has_batch_curve:
            self.has_batch_curve = bool(keep.any())
            self.fill_legend()
        self.train_line.setData(steps[keep], exact[keep])
        self.exact_now.setData(steps[keep][-1:], exact[keep][-1:])
        held_steps, held = run.held_out_curve()
        self.held_line.setData(held_steps, held)
        right = max(run.total_steps, int(steps.max()) if steps.size else 1, 1)
        for plot in (self.loss_plot, self.exact_plot):
            plot.setXRange(0, right, padding=0.02)
        for mark in self.marks:
            mark.setVisible(snapshot_step is not None)
            if snapshot_step is not None:
                mark.setValue(snapshot_step)
