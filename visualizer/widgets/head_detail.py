"""One head (or the mean of a layer's heads) drawn large, with token labels and a colour bar."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Signal

from visualizer.i18n import tr, trf
from visualizer.state.events import Subscriptions
from visualizer.state.session import Session
from visualizer.state.views import AttentionView, describe_cell, head_name
from visualizer.widgets.heatmap import BACKGROUND, MatrixPlot
from visualizer.widgets.spectrogram import SpectrogramStrip


class HeadDetail(pg.GraphicsLayoutWidget):
    hovered = Signal(str)

    def __init__(self, session: Session, parent=None) -> None:
        super().__init__(parent)
        self.setBackground(BACKGROUND)
        self.session = session
        self.title = self.ci.addLabel("", row=0, col=0, colspan=2, color="#eeeeee", size="10pt")
        plot = self.ci.addPlot(row=1, col=0)
        self.matrix = MatrixPlot(plot, session.colormap)
        plot.setLabel("left", "query (decoder input)")
        plot.setLabel("bottom", "key")
        for side in ("left", "bottom"):
            plot.getAxis(side).setTextPen("#dddddd")
            # draw the first and last token labels even where they overhang the axis ends
            plot.getAxis(side).setStyle(
                tickFont=pg.QtGui.QFont("DejaVu Sans", 10), hideOverlappingLabels=False
            )
        self.colorbar = pg.ColorBarItem(
            values=(0, 1), colorMap=pg.colormap.get(session.colormap), interactive=False, width=14
        )
        self.colorbar.setImageItem(self.matrix.image)
        self.ci.addItem(self.colorbar, row=1, col=1)
        # a speech model's source under the attention over it: the spectrogram and the words
        self.spectrogram = SpectrogramStrip(self.ci, 2, plot)
        self.spectrogram.set_visible(False)
        self.ci.layout.setColumnMinimumWidth(1, 60)  # room for the colour bar's tick labels
        self.view: AttentionView | None = None
        self.shown: np.ndarray | None = None
        self.scene().sigMouseMoved.connect(self.on_mouse_moved)
        self.subscriptions = Subscriptions(
            (session.cursor_changed, self.on_change),
            (session.view_changed, self.on_view_changed),
            (session.selection_changed, self.on_change),
            (session.model_changed, self.on_change),
            (session.language_changed, self.on_change),
        )

    def detach(self) -> None:
        self.subscriptions.close()

    def on_view_changed(self) -> None:
        self.matrix.set_colormap(self.session.colormap)
        self.colorbar.setColorMap(pg.colormap.get(self.session.colormap))
        self.on_change()

    def on_change(self, *_args) -> None:
        session = self.session
        view = session.attention()
        self.view = view
        if view is None:
            self.matrix.image.clear()
            self.matrix.row_outline.hide()
            self.title.setText("")
            return
        layer = min(session.layer, view.layers - 1)
        head = None if session.head is None else min(session.head, view.heads - 1)
        self.shown = view.mean[layer] if head is None else view.weights[layer, head]
        self.matrix.show_matrix(self.shown, view.current_row)
        self.matrix.set_ticks(view.query_labels, view.key_labels)
        language = session.language
        who = head_name(head, view.heads, language)
        step = (
            tr("before the first step", language)
            if session.cursor < 0
            else trf("step {n}", language, n=session.cursor + 1)
        )
        kind = session.model.family.kind(view.kind)  # the kind shown (the encoder's before the first step)
        layer_text = trf("layer {n}", language, n=layer + 1)
        self.title.setText(f"{tr(kind.title, language)} · {layer_text} · {who} · {step}")
        self.title.setToolTip(self.title.text)
        query_axis = tr("query (source)" if kind.queries == "source" else "query (decoder input)", language)
        key_axis = tr("key (decoder input)" if kind.keys == "target" else "key (source)", language)
        self.matrix.plot.setLabel("left", query_axis)
        self.matrix.plot.setLabel("bottom", key_axis)
        self.show_source(kind)

    def show_source(self, kind) -> None:
        """Under attention whose keys are a speech model's time frames: the spectrogram, and the
        words where the alignment heads place them so far."""
        snapshot = self.session.snapshot
        axis = snapshot.encoder.source_axis if snapshot is not None else None
        frames = axis is not None and axis.kind == "frames" and axis.picture is not None
        frames = frames and kind.keys == "source"
        self.spectrogram.set_visible(frames)
        if not frames:
            return
        self.spectrogram.show_picture(axis.picture, len(axis))
        timing = self.session.word_timing()
        words = [(w.word, w.start, w.end) for w in timing.words] if timing is not None else []
        self.spectrogram.show_words(words, axis.seconds_per_position)

    def on_mouse_moved(self, scene_pos) -> None:
        position = self.matrix.cell_at(scene_pos)
        if position is None or self.view is None:
            self.hovered.emit("")
            return
        layer = min(self.session.layer, self.view.layers - 1)
        self.hovered.emit(
            describe_cell(self.view, layer, self.session.head, *position, self.session.language)
        )
