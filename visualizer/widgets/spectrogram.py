"""A speech model's source drawn as what it is: the log-mel spectrogram its encoder read, time
across, under the attention over its frames, with the words where cross-attention places them.

The strip shares the detail's x axis (one unit per encoder position, 20 ms for Whisper; the
spectrogram has two columns per position), so a column of attention stands over the sound it
weighs. Word starts (``model.probes.word_timing``, computed from the recorded rows after every
step) are drawn as lines with the word; they are provisional while the model writes, as later
tokens move the alignment.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF

from visualizer.widgets.heatmap import BACKGROUND

WORD_COLOR = "#ffd54f"


class SpectrogramStrip:
    """The spectrogram plot under a matrix plot whose keys are time frames."""

    def __init__(self, layout: pg.GraphicsLayout, row: int, matrix_plot: pg.PlotItem) -> None:
        self.plot = layout.addPlot(row=row, col=0)
        self.plot.setXLink(matrix_plot)
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.setMenuEnabled(False)
        self.plot.hideButtons()
        self.plot.hideAxis("bottom")
        self.plot.getAxis("left").setTextPen("#dddddd")
        self.plot.setLabel("left", "mel")
        self.plot.getViewBox().setBackgroundColor(BACKGROUND)
        self.plot.setMaximumHeight(110)
        self.image = pg.ImageItem(axisOrder="row-major")
        self.image.setColorMap(pg.colormap.get("magma"))
        self.plot.addItem(self.image)
        self.marks: list[pg.GraphicsObject] = []
        self.words: list[tuple[str, float, float]] = []
        self.picture: np.ndarray | None = None

    def set_visible(self, visible: bool) -> None:
        self.plot.setVisible(visible)

    def show_picture(self, picture: np.ndarray, positions: int) -> None:
        """``picture`` [mel bins, columns] over ``positions`` key positions (low bins at the bottom)."""
        if picture is not self.picture:
            self.picture = picture
            self.image.setImage(picture, autoLevels=True)
            self.image.setRect(QRectF(0, 0, positions, picture.shape[0]))
            self.plot.setYRange(0, picture.shape[0], padding=0)

    def show_words(self, words: Sequence[tuple[str, float, float]], seconds_per_position: float) -> None:
        """Each word (text, start, end in seconds) as a line at its start and its text beside it."""
        words = list(words)
        if words == self.words:
            return
        self.words = words
        for mark in self.marks:
            self.plot.removeItem(mark)
        self.marks = []
        top = self.picture.shape[0] if self.picture is not None else 80
        for text, start, _end in words:
            x = start / seconds_per_position
            line = pg.InfiniteLine(pos=x, angle=90, pen=pg.mkPen(WORD_COLOR, width=1.5))
            label = pg.TextItem(text, color=WORD_COLOR, anchor=(0, 0))
            label.setPos(x, top)
            for item in (line, label):
                self.plot.addItem(item)
                self.marks.append(item)
