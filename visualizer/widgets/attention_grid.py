"""The grid of layers × heads (plus the mean over heads) for one kind of attention."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import Signal

from visualizer.session import Session
from visualizer.views import AttentionView, attention_view, describe_cell
from visualizer.widgets.heatmap import BACKGROUND, MatrixPlot

MEAN = None  # the column key for the mean over heads


class AttentionGrid(pg.GraphicsLayoutWidget):
    """Built once per model shape; each step only calls ``setImage`` on existing items."""

    hovered = Signal(str)  # a description of the cell under the mouse, or ""

    def __init__(self, session: Session, parent=None) -> None:
        super().__init__(parent)
        self.setBackground(BACKGROUND)
        self.session = session
        self.cells: dict[tuple[int, int | None], MatrixPlot] = {}
        self.grid_shape: tuple[int, int] | None = None
        self.view: AttentionView | None = None
        self.scene().sigMouseMoved.connect(self.on_mouse_moved)
        self.scene().sigMouseClicked.connect(self.on_mouse_clicked)
        session.model_changed.connect(self.on_model_changed)
        session.snapshot_changed.connect(self.on_snapshot_changed)
        session.cursor_changed.connect(self.on_cursor_changed)
        session.view_changed.connect(self.on_view_changed)
        session.selection_changed.connect(self.on_selection_changed)

    def detach(self) -> None:
        """Disconnect from the session, so that it does not keep a closed widget alive."""
        for signal, slot in (
            (self.session.model_changed, self.on_model_changed),
            (self.session.snapshot_changed, self.on_snapshot_changed),
            (self.session.cursor_changed, self.on_cursor_changed),
            (self.session.view_changed, self.on_view_changed),
            (self.session.selection_changed, self.on_selection_changed),
        ):
            signal.disconnect(slot)

    # -- building -------------------------------------------------------------------------
    def layer_count(self) -> int:
        config = self.session.model.config
        return config.n_encoder_layers if self.session.kind == "enc_self" else config.n_decoder_layers

    def rebuild(self) -> None:
        """(Re)create the plots when the number of layers or heads changes."""
        if self.session.model is None:
            return
        shape = (self.layer_count(), self.session.model.config.n_heads)
        if shape == self.grid_shape:
            return
        self.clear()
        self.cells.clear()
        self.grid_shape = shape
        layers, heads = shape
        colormap = self.session.colormap
        label_style = {"color": "#dddddd", "size": "10pt"}
        for head in range(heads):
            self.ci.addLabel(f"head {head + 1}", row=0, col=head + 1, **label_style)
        self.ci.addLabel("mean of heads", row=0, col=heads + 1, **label_style)
        for layer in range(layers):
            self.ci.addLabel(f"layer {layer + 1}", row=layer + 1, col=0, angle=-90, **label_style)
            for column, head in enumerate([*range(heads), MEAN]):
                plot = self.ci.addPlot(row=layer + 1, col=column + 1)
                cell = MatrixPlot(plot, colormap, axes=False)
                self.cells[(layer, head)] = cell
        self.ci.layout.setSpacing(4)
        self.on_selection_changed()

    # -- session events -------------------------------------------------------------------
    def on_model_changed(self, _model) -> None:
        self.grid_shape = None
        self.rebuild()

    def on_snapshot_changed(self, _snapshot) -> None:
        self.refresh()

    def on_cursor_changed(self, _step) -> None:
        self.refresh()

    def on_view_changed(self) -> None:
        self.rebuild()
        for cell in self.cells.values():
            cell.set_colormap(self.session.colormap)
        self.refresh()

    def on_selection_changed(self) -> None:
        for key, cell in self.cells.items():
            cell.set_selected(key == (self.session.layer, self.session.head))

    def refresh(self) -> None:
        snapshot = self.session.snapshot
        if snapshot is None or not self.cells:
            return
        self.view = attention_view(snapshot, self.session.kind, self.session.cursor)
        view = self.view
        for (layer, head), cell in self.cells.items():
            matrix = view.mean[layer] if head is MEAN else view.weights[layer, head]
            cell.show_matrix(matrix, view.current_row)

    # -- mouse ----------------------------------------------------------------------------
    def cell_under(self, scene_pos):
        for key, cell in self.cells.items():
            if cell.contains(scene_pos):
                return key, cell
        return None, None

    def on_mouse_moved(self, scene_pos) -> None:
        key, cell = self.cell_under(scene_pos)
        position = cell.cell_at(scene_pos) if cell is not None else None
        if key is None or position is None or self.view is None:
            self.hovered.emit("")
            return
        self.hovered.emit(describe_cell(self.view, key[0], key[1], *position))

    def on_mouse_clicked(self, event) -> None:
        key, _cell = self.cell_under(event.scenePos())
        if key is not None:
            self.session.select_head(*key)
