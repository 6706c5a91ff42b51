"""The Logit lens page's map of layers × steps: each cell is the model's own lens at that step
(computed here again, a step at a time), a click chooses the step and layer the table shows, and
the choice follows stepping."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtWidgets import QApplication

from model.attribution.logit_lens import logit_lens
from model.transformer.checkpoint import load_checkpoint
from tests.visualizer.test_panel_attribution import Click, cell_centre, panel_of, stepped
from tests.waits import EVENT_MS
from visualizer.numbers import percent
from visualizer.panels.logit_lens import CHOSEN_MARK, ROW_PADDING, TOP_K
from visualizer.widgets.heatmap import display_token


def table_is(panel, lens) -> None:
    """The table shows ``lens``: each layer's most likely tokens with their probabilities."""
    assert panel.table.rowCount() == lens.layers
    for layer in range(lens.layers):
        for column in range(TOP_K):
            token = display_token(lens.top_tokens[layer][column])
            probability = percent(lens.top_probs[layer, column])
            assert panel.table.item(layer, column).text() == f"{token}  {probability}"
        assert panel.table.item(layer, TOP_K).text() == percent(lens.written_probs[layer])
        assert panel.table.item(layer, TOP_K + 1).text() == str(lens.written_ranks[layer])
    assert f"Step {lens.step + 1} writes" in panel.status.text()


def test_the_map_is_the_lens_of_every_step_and_a_click_chooses_what_the_table_shows(
    harness, tiny_checkpoint_path
):
    harness.window.resize(1024, 700)
    stepped(harness, 4)
    panel = panel_of(harness, "logit_lens")
    harness.qtbot.waitUntil(lambda: panel.grid is not None, timeout=EVENT_MS)
    model = load_checkpoint(tiny_checkpoint_path, "cpu")
    snapshot = harness.session.snapshot
    ids = snapshot.output_ids
    lenses = [logit_lens(model, snapshot.source, ids, step, k=TOP_K) for step in range(len(ids))]
    layers = lenses[0].layers
    # each cell: the probability of the token written at that step, after that layer
    written = np.stack([lens.written_probs for lens in lenses], axis=1)  # [L, T]
    np.testing.assert_allclose(panel.map.image.image, written, atol=1e-5)
    assert panel.labels.texts == [
        [display_token(lens.top_tokens[layer][0]) for lens in lenses] for layer in range(layers)
    ]
    # the shown step is chosen at first, at the last layer (the model's own distribution)
    assert harness.session.cursor == 3 and panel.chosen == (layers - 1, 3)
    table_is(panel, lenses[3])
    # a click on a cell chooses its layer and step
    panel.on_mouse_clicked(Click(cell_centre(panel.map, 0, 1)))
    assert panel.chosen == (0, 1)
    table_is(panel, lenses[1])
    marks = [panel.table.verticalHeaderItem(layer).text().startswith(CHOSEN_MARK) for layer in range(layers)]
    assert marks == [True] + [False] * (layers - 1)
    # the probabilities are coloured on the map's scale, their text readable on it
    colormap = pg.colormap.get(harness.session.colormap)
    item = panel.table.item(0, 0)
    assert item.background().color() == colormap.map(float(lenses[1].top_probs[0, 0]), mode="qcolor")
    # stepping: the choice follows the shown step, on the chosen layer
    harness.session.step_back()
    harness.wait_idle()
    assert panel.chosen == (0, 2)
    table_is(panel, lenses[2])
    # compact rows, no empty band below them, every text whole at 1024 × 700
    QApplication.processEvents()
    table = panel.table
    row_height = table.fontMetrics().height() + 2 * ROW_PADDING
    assert all(table.rowHeight(row) == row_height for row in range(layers))
    assert table.viewport().height() <= layers * row_height + 1
    for row in range(layers):
        for column in range(table.columnCount()):
            text = table.item(row, column).text()
            width = table.fontMetrics().horizontalAdvance(text) * 1.1  # bold runs a little wider
            assert width <= table.columnWidth(column), text
